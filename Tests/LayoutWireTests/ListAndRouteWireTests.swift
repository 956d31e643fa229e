import Foundation
import Testing
@testable import LayoutWire

/// `list` pages and `route` lookups on the wire: the request members, the encoders, and their readers.
@Suite struct ListAndRouteWireTests {
    private func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func aListTakesAfterLimitAndPrefix() throws {
        guard case .list(let bare) = try decodeRequest(#"{"v":1,"id":1,"op":"list"}"#).operation else {
            Issue.record("not a list")
            return
        }
        #expect(bare == ListRequest())
        #expect(bare.pageSize == 10_000)
        guard case .list(let paged) = try decodeRequest(#"{"op":"list","after":"k-07","limit":25,"prefix":"k-"}"#).operation else {
            Issue.record("not a list")
            return
        }
        #expect(paged == ListRequest(after: "k-07", limit: 25, prefix: "k-"))
        #expect(paged.pageSize == 25)
        // null is absent, as for every optional member.
        guard case .list(let nulls) = try decodeRequest(#"{"op":"list","after":null,"limit":null,"prefix":null}"#).operation else {
            Issue.record("not a list")
            return
        }
        #expect(nulls == ListRequest())
    }

    @Test(arguments: [
        (#"{"op":"list","limit":0}"#, "limit"),
        (#"{"op":"list","limit":10001}"#, "limit"),
        (#"{"op":"list","limit":2.5}"#, "limit"),
        (#"{"op":"list","limit":"10"}"#, "limit"),
        (#"{"op":"list","after":3}"#, "after"),
        (#"{"op":"list","prefix":["k"]}"#, "prefix"),
    ])
    func aBadListMemberIsInvalidAtItsPath(body: String, path: String) {
        let error = decodingError(body)
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == path)
    }

    @Test func aListPageComesBackFromItsReply() throws {
        let entries = [ListResult.Entry(layout: "a", version: 2, items: 10, bytes: 999), .init(layout: "b|c", version: 1, items: 0, bytes: 0, namespace: "alice")]
        let paged = ReplyEncoder.success(id: .number("4"), result: ListResult(layouts: entries, next: "alice|b|c"))
        let read = try #require(paged.withUnsafeBytes { ListResult(reply: $0) })
        #expect(read == ListResult(layouts: entries, next: "alice|b|c"))
        let result = try #require(try object(paged)["result"] as? [String: Any])
        #expect(result["next"] as? String == "alice|b|c")
        // The last page has no `next` at all (not null).
        let last = ReplyEncoder.success(id: nil, result: ListResult(layouts: entries))
        #expect(try #require(try object(last)["result"] as? [String: Any])["next"] == nil)
        #expect(last.withUnsafeBytes { ListResult(reply: $0) }?.next == nil)
    }

    @Test func anAdminsCursorSplitsAtTheFirstBar() {
        let cursor = ListCursor(namespace: "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7", name: "feed|2/x")
        #expect(cursor.text == "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7|feed|2/x")
        #expect(ListCursor(text: cursor.text) == cursor)
        #expect(ListCursor(text: "plain") == ListCursor(namespace: "", name: "plain"))
        #expect(ListResult.Entry(layout: "feed|2", version: 1, items: 1, bytes: 1, namespace: "bob").cursor == "bob|feed|2")
        #expect(ListResult.Entry(layout: "feed", version: 1, items: 1, bytes: 1).cursor == "feed")
        #expect(ListCursor(namespace: "a", name: "z") < ListCursor(namespace: "b", name: "a"))
    }

    @Test func aRouteLookupNamesItsKeys() throws {
        let one = try #require(RouteRequest(scanning: Array(#"{"v":1,"id":1,"op":"route","layout":"feed"}"#.utf8)))
        #expect(one.askedNames == ["feed"] && one.fault == nil)
        let many = try #require(RouteRequest(scanning: Array(#"{"op":"route","layouts":["a","b\"c"]}"#.utf8)))
        #expect(many.layouts == ["a", "b\"c"] && many.askedNames == ["a", "b\"c"])
        let table = try #require(RouteRequest(scanning: Array(#"{"op":"route","layouts":null}"#.utf8)))
        #expect(table.askedNames == nil && table.fault == nil)
        #expect(RouteRequest(scanning: Array(#"{"op":"list","layouts":["a"]}"#.utf8)) == nil)
    }

    @Test func aBadRouteLookupCarriesItsFault() throws {
        let notArray = try #require(RouteRequest(scanning: Array(#"{"op":"route","layouts":"feed"}"#.utf8)))
        #expect(notArray.fault?.code == .invalidRequest && notArray.fault?.path == "layouts")
        let notString = try #require(RouteRequest(scanning: Array(#"{"op":"route","layouts":["a",2]}"#.utf8)))
        #expect(notString.fault?.path == "layouts[1]")
        let names = (0...RouteRequest.maxLayouts).map { "\"k\($0)\"" }.joined(separator: ",")
        let tooMany = try #require(RouteRequest(scanning: Array(#"{"op":"route","layouts":[\#(names)]}"#.utf8)))
        #expect(tooMany.fault?.code == .invalidRequest && tooMany.fault?.path == "layouts")
    }

    @Test func aRouteResultListsWorkersAndKeys() throws {
        let result = RouteResult(
            role: "broker", version: 7, epoch: 1_764_000_000_003,
            workers: [.init(name: "worker-0", direct: "tcp://10.0.0.5:5570"), .init(name: "worker-1")],
            keys: [.init(layout: "feed", epoch: 1_764_000_000_003, version: 4, worker: "worker-0"), .init(layout: "wall", epoch: 1_764_000_000_001, version: 2)]
        )
        let reply = try object(ReplyEncoder.success(id: .string("r"), result: result))
        let body = try #require(reply["result"] as? [String: Any])
        #expect(body["role"] as? String == "broker")
        #expect(body["version"] as? Int == 7)
        #expect((body["epoch"] as? NSNumber)?.int64Value == 1_764_000_000_003)
        let workers = try #require(body["workers"] as? [[String: Any]])
        #expect(workers.map { $0["worker"] as? String } == ["worker-0", "worker-1"])
        #expect(workers[0]["direct"] as? String == "tcp://10.0.0.5:5570" && workers[1]["direct"] == nil)
        let keys = try #require(body["keys"] as? [[String: Any]])
        #expect(keys.map { $0["layout"] as? String } == ["feed", "wall"])
        #expect(keys[0]["worker"] as? String == "worker-0" && keys[1]["worker"] == nil)
        #expect(keys.map { $0["version"] as? Int } == [4, 2])
        // A single daemon's answer: no role unless given, empty lists.
        let daemon = try object(ReplyEncoder.success(id: nil, result: RouteResult(role: "daemon", version: 0, epoch: 0, workers: [], keys: [])))
        #expect((daemon["result"] as? [String: Any])?["role"] as? String == "daemon")
        #expect(((daemon["result"] as? [String: Any])?["keys"] as? [Any])?.isEmpty == true)
    }

    @Test func aRouteEventNamesAtMost256Keys() throws {
        let named = RouteEvent(version: 9, layouts: ["a", "b"]).wireEvent
        #expect(named.topic == Array("route".utf8))
        let body = try object(named.body)
        #expect(body["event"] as? String == "route" && body["version"] as? Int == 9)
        #expect(body["layouts"] as? [String] == ["a", "b"])
        #expect(try object(RouteEvent(version: 9).wireEvent.body)["layouts"] == nil)
        let many = (0...RouteEvent.maxLayouts).map { "k\($0)" }
        #expect(try object(RouteEvent(version: 10, layouts: many).wireEvent.body)["layouts"] == nil)
        #expect((try object(RouteEvent(version: 10, layouts: Array(many.dropLast())).wireEvent.body)["layouts"] as? [String])?.count == 256)
    }

    @Test func aRefusalCarriesTheCopyHeld() throws {
        let bytes = ReplyEncoder.failure(id: .number("8"), error: WireError(.behind, "older", path: "minVersion"), copy: KeyCopy(epoch: 1_764_000_000_003, version: 4))
        let error = try #require(try object(bytes)["error"] as? [String: Any])
        #expect(error["code"] as? String == "behind" && error["path"] as? String == "minVersion")
        let copy = try #require(error["copy"] as? [String: Any])
        #expect((copy["epoch"] as? NSNumber)?.int64Value == 1_764_000_000_003 && copy["version"] as? Int == 4)
        // Without a copy the reply is the plain failure.
        #expect(ReplyEncoder.failure(id: nil, error: WireError(.moved, "gone"), copy: nil) == ReplyEncoder.failure(id: nil, error: WireError(.moved, "gone")))
    }

    @Test func oneListOfWhichOpsChangeALayout() {
        let changing = OperationName.allCases.filter(\.changesLayout)
        #expect(changing == [.prepare, .bounds, .update, .diff, .drop])
        #expect(Operation.list(ListRequest()).changesLayout == false)
        #expect(Operation.drop(DropRequest(layout: "feed")).changesLayout)
        #expect(Operation.drop(DropRequest(layout: "feed")).layoutKey == "feed")
    }
}
