import Foundation
import LayoutJournal
import LayoutTestKit
import Testing
import ZeroMQ
@testable import LayoutServer

/// The real `layoutd` killed with SIGKILL at random points of a stream of acknowledged updates: after a
/// restart on the same journal every acknowledged change is there, and each layout's frames are those a
/// replay of the changes it reports through the engine gives, bit for bit.
@Suite struct JournalCrashTests {
    private static let keys = ["a", "b", "c", "d"]

    private static func prepareBody(_ key: String) -> String {
        let heights = (0..<80).map { String(20 + ($0 * 53) % 110) }.joined(separator: ",")
        return #"{"op":"prepare","layout":"\#(key)","bounds":{"width":375,"height":800},"spec":{"type":"waterfall","columns":3},"sections":[{"count":80,"heights":[\#(heights)]}]}"#
    }

    /// The `index`th update of a key: inserts, deletes and moves that keep the section between 70 and 90 items.
    private static func updateBody(_ key: String, _ index: Int, _ random: inout SeededGenerator) -> String {
        let height = Int.random(in: 10...150, using: &random)
        let at = Int.random(in: 0...60, using: &random)
        switch index % 3 {
        case 0: return #"{"op":"update","layout":"\#(key)","updates":[{"insert":[0,\#(at)],"item":{"height":\#(height)}}]}"#
        case 1: return #"{"op":"update","layout":"\#(key)","updates":[{"delete":[0,\#(at)]}]}"#
        default: return #"{"op":"update","layout":"\#(key)","updates":[{"move":[[0,\#(at)],[0,\#(at + 5)]]},{"reload":[0,\#(at + 1)],"item":{"height":\#(height)}}]}"#
        }
    }

    private static let whole = #""rect":{"x":0,"y":0,"width":100000,"height":100000000}"#

    @Test(arguments: [(JournalDurability.sync, UInt64(1)), (.sync, 2), (.async, 3), (.async, 4)])
    func aKillAtARandomPointLosesNoAcknowledgedChange(durability: JournalDurability, seed: UInt64) throws {
        let folder = TemporaryFolder("layoutd-crash")
        var random = SeededGenerator(seed: seed)
        let arguments = ["--journal", folder.journalURL, "--journal-durability", durability.rawValue]
        let first = try LayoutdProcess(arguments: arguments)
        let context = try Context()
        defer { context.terminate() }
        let client = try Self.connect(to: first, in: context)

        for key in Self.keys { #expect(try Self.call(Self.prepareBody(key), on: client)["ok"] as? Bool == true) }
        // Every key's updates as sent, and the version last acknowledged for each.
        var sent: [String: [String]] = [:]
        var acknowledged: [String: Int] = Dictionary(uniqueKeysWithValues: Self.keys.map { ($0, 1) })
        let killAfter = Int.random(in: 8...80, using: &random)
        var acks = 0
        // One request in flight per key, as clients pipelining on several keys do; the kill comes with
        // requests in flight.
        for key in Self.keys { try Self.send(Self.next(key, &sent, &random), id: key, on: client) }
        while acks < killAfter {
            guard let frames = try client.receiveMultipart(), let reply = try? TestDaemon.object(frames[frames.count - 1]) else {
                throw TestFailure("no reply from the daemon")
            }
            // A late answer to a ping sent while the daemon was starting.
            if reply["id"] as? String == "up" { continue }
            guard let key = reply["id"] as? String, reply["ok"] as? Bool == true, let version = (reply["result"] as? [String: Any])?["version"] as? Int else {
                throw TestFailure("a failed update: \(reply)")
            }
            acknowledged[key] = version
            acks += 1
            try Self.send(Self.next(key, &sent, &random), id: key, on: client)
        }
        first.signal(SIGKILL)
        first.process.waitUntilExit()
        client.close()

        let second = try LayoutdProcess(arguments: arguments)
        defer { second.signal(SIGTERM) }
        let reader = try Self.connect(to: second, in: context)
        let reference = try TestDaemon(.single)
        for key in Self.keys {
            let reply = try Self.call(#"{"op":"query","layout":"\#(key)",\#(Self.whole)}"#, on: reader)
            let result = try #require(reply["result"] as? [String: Any], "\(key): \(reply)")
            let version = try #require(result["version"] as? Int)
            let changes = sent[key] ?? []
            #expect(version >= acknowledged[key] ?? 1, "\(key): acknowledged \(acknowledged[key] ?? 1), answered \(version) after the restart")
            #expect(version <= changes.count + 1, "\(key): a version no change gave")
            // The reference: the same prepare and the first version-1 changes, on a daemon that never crashed.
            #expect(try reference.call(Self.prepareBody(key)).ok)
            for change in changes.prefix(max(0, version - 1)) { #expect(try reference.call(change).ok) }
            let expected = try reference.call(#"{"op":"query","layout":"\#(key)",\#(Self.whole)}"#).result
            #expect(expected["version"] as? Int == version)
            #expect(result["attributes"] as? NSArray == expected["attributes"] as? NSArray, "\(key) at version \(version): frames differ from a replay")
        }
    }

    private static func next(_ key: String, _ sent: inout [String: [String]], _ random: inout SeededGenerator) -> String {
        let body = updateBody(key, sent[key, default: []].count, &random)
        sent[key, default: []].append(body)
        return body
    }

    private static func connect(to daemon: LayoutdProcess, in context: Context) throws -> Socket {
        let socket = try Socket(.dealer, in: context)
        try socket.set(.linger, 0)
        try socket.connect(daemon.frontEndpoint)
        // The process may still be starting: ping until it answers (bounded).
        try socket.set(.receiveTimeout, 200)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            _ = try socket.send(multipart: [[], Array(#"{"op":"ping","id":"up"}"#.utf8)])
            if try socket.receiveMultipart() != nil {
                try socket.set(.receiveTimeout, 20_000)
                return socket
            }
        }
        throw TestFailure("layoutd did not answer within 30 s")
    }

    private static func send(_ body: String, id: String, on socket: Socket) throws {
        // The id names the key, so replies (which may come in any order across keys) are matched to it.
        let withID = "{\"id\":\"\(id)\"," + body.dropFirst()
        _ = try socket.send(multipart: [[], Array(withID.utf8)])
    }

    private static func call(_ body: String, on socket: Socket) throws -> [String: Any] {
        try send(body, id: "call", on: socket)
        while true {
            guard let frames = try socket.receiveMultipart() else { throw TestFailure("no reply to \(body.prefix(100))") }
            let reply = try TestDaemon.object(frames[frames.count - 1])
            // Late answers to the pings sent while the daemon was starting are passed over.
            if reply["id"] as? String == "call" { return reply }
        }
    }
}
