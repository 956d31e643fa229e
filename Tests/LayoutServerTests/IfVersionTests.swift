import Foundation
import Testing
@testable import LayoutServer

/// `ifVersion` on every change (PROTOCOL.md §5): a client that retries a change after a timeout or an
/// `unavailable` never applies it twice.
@Suite(.serialized) struct IfVersionTests {
    @Test(arguments: Topology.all) func everyChangeAppliesOnlyAtItsVersion(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        let socket = try daemon.dealer()
        func call(_ body: String) throws -> [String: Any] { try daemon.call(body, on: socket) }
        func prepare(_ ifVersion: Int) -> String { mosaicJob(op: "prepare", key: "feed", extra: #","ifVersion":\#(ifVersion)"#) }
        func expectConflict(_ reply: [String: Any], _ note: String) {
            #expect(reply.errorCode == "version_conflict", "\(note): \(reply)")
            #expect(reply.errorPath == "ifVersion", "\(note)")
        }

        // 0: only a key that was never kept.
        #expect(try call(prepare(0)).result["version"] as? Int == 1)
        expectConflict(try call(prepare(0)), "a second first prepare")
        #expect(try call(prepare(1)).result["version"] as? Int == 2)
        expectConflict(try call(prepare(1)), "a replayed prepare")

        let bounds = { (width: Int, version: Int) in #"{"id":"b","op":"bounds","layout":"feed","bounds":{"width":\#(width),"height":800},"ifVersion":\#(version)}"# }
        expectConflict(try call(bounds(320, 1)), "bounds at an old version")
        #expect(try call(bounds(320, 2)).result["version"] as? Int == 3)
        expectConflict(try call(bounds(300, 2)), "a replayed bounds")

        expectConflict(try call(#"{"id":"d","op":"drop","layout":"feed","ifVersion":2}"#), "drop at an old version")
        #expect(try call(#"{"id":"q","op":"query","layout":"feed","rect":{"x":0,"y":0,"width":1,"height":1}}"#).result["version"] as? Int == 3)
        #expect(try call(#"{"id":"d","op":"drop","layout":"feed","ifVersion":3}"#).result["version"] as? Int == 4)
        #expect(try call(#"{"id":"d","op":"drop","layout":"feed","ifVersion":4}"#).errorCode == "unknown_layout")

        // After a drop, the key is at the drop's version.
        expectConflict(try call(prepare(0)), "a first prepare after a drop")
        #expect(try call(prepare(4)).result["version"] as? Int == 5)

        let negative = try call(#"{"id":"n","op":"drop","layout":"feed","ifVersion":-1}"#)
        #expect(negative.errorCode == "invalid_request" && negative.errorPath == "ifVersion")
        #expect(try call(#"{"id":"q","op":"query","layout":"feed","rect":{"x":0,"y":0,"width":1,"height":1}}"#).result["version"] as? Int == 5)
    }
}
