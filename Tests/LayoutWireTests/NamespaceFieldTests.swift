import Foundation
import LayoutEngine
import Testing
@testable import LayoutWire

/// `namespace`: an admin's query of another client's layout, and the member of an admin's `list`.
@Suite struct NamespaceFieldTests {
    @Test func aQueryMayNameANamespace() throws {
        let request = try decodeRequest(#"{"v":1,"id":1,"op":"query","layout":"feed","namespace":"alice","items":[[0,0]]}"#)
        guard case .query(let query) = request.operation else { throw WireError.invalidRequest("not a query", at: .root) }
        #expect(query.namespace == "alice")
        #expect(query.layout == "feed")
        let plain = try decodeRequest(#"{"v":1,"id":1,"op":"query","layout":"feed","namespace":null,"items":[[0,0]]}"#)
        guard case .query(let unnamed) = plain.operation else { throw WireError.invalidRequest("not a query", at: .root) }
        #expect(unnamed.namespace == nil)
    }

    @Test(arguments: [#""""#, "7", "[]"])
    func aNamespaceIsANonEmptyString(value: String) {
        let error = decodingError(#"{"v":1,"id":1,"op":"query","layout":"feed","namespace":\#(value),"items":[[0,0]]}"#)
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "namespace")
    }

    @Test func listEntriesShowANamespaceOnlyWhenGiven() throws {
        let list = ListResult(layouts: [
            .init(layout: "feed", version: 1, items: 3, bytes: 96, namespace: "alice"),
            .init(layout: "feed", version: 2, items: 4, bytes: 128),
        ])
        let reply = try JSONSerialization.jsonObject(with: Data(ReplyEncoder.success(id: nil, result: list))) as? [String: Any]
        let entries = try #require((reply?["result"] as? [String: Any])?["layouts"] as? [[String: Any]])
        #expect(entries[0]["namespace"] as? String == "alice")
        #expect(entries[1]["namespace"] == nil)
    }
}
