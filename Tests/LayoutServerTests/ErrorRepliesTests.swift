import Foundation
import Testing
@testable import LayoutServer

@Suite struct ErrorRepliesTests {
    private func id(ofBusyReplyTo body: String) throws -> Any? {
        let reply = FrontReplies.busy(for: RequestBody(Array(body.utf8)), message: "full")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any])
        #expect((object["error"] as? [String: Any])?["code"] as? String == "busy")
        return object["id"]
    }

    @Test func busyEchoesAnIdNearTheStart() throws {
        #expect(try id(ofBusyReplyTo: #"{"v":1,"id":"r-1","op":"ping"}"#) as? String == "r-1")
    }

    @Test func busyDoesNotSearchAHugeBodyForItsId() throws {
        // The id stands after 100 KB of sections: past what the I/O thread reads, so it is not echoed.
        let heights = Array(repeating: "1", count: 50_000).joined(separator: ",")
        let body = #"{"v":1,"op":"layout","sections":[{"heights":[\#(heights)]}],"id":"late"}"#
        #expect(body.utf8.count > FrontReplies.idSearchBytes)
        #expect(try id(ofBusyReplyTo: body) is NSNull)
    }
}
