import Foundation
import LayoutTestKit
import Testing
import ZeroMQ

/// A real `layoutd` with the SQLite journal, restarted on a few thousand small layouts: it serves while
/// its keys are read and its layouts restored in the background, and a client that keeps 256 reads in
/// flight gets every key at its journaled version, none refused `busy`; a `list` sent at once answers
/// every key.
@Suite(.serialized) struct RestartEveryKeyTests {
    static let keys = 3_000
    static let window = 256

    @Test func everyKeyReadsAtItsVersionWith256InFlightAfterARestart() throws {
        let folder = TemporaryFolder("layoutd-restart-keys")
        let arguments = ["--journal", folder.journalURL, "--journal-durability", "async", "--workers", "2"]
        let context = try Context()
        defer { context.terminate() }
        let heights = (0..<20).map { String(30 + ($0 * 13) % 50) }.joined(separator: ",")
        do {
            let first = try LayoutdProcess(arguments: arguments)
            let dealer = try Self.connect(to: first, in: context)
            defer { dealer.close() }
            try Self.pipeline(Self.keys, on: dealer) { number in
                #"{"v":1,"id":\#(number),"op":"prepare","layout":"k\#(number)","bounds":{"width":375,"height":812},"spec":{"type":"list"},"sections":[{"heights":[\#(heights)]}]}"#
            } check: { number, reply in
                #expect(reply.ok, "prepare k\(number): \(reply)")
            }
            // Every third key one change further: the versions a restart must give back differ.
            let changed = Array(stride(from: 0, to: Self.keys, by: 3))
            try Self.pipeline(changed.count, on: dealer) { index in
                #"{"v":1,"id":\#(changed[index]),"op":"update","layout":"k\#(changed[index])","updates":[{"insert":[0,0],"item":{"height":44}}]}"#
            } check: { number, reply in
                #expect(reply.ok, "update k\(number): \(reply)")
            }
            first.signal(SIGTERM)
            first.process.waitUntilExit()
        }

        let second = try LayoutdProcess(arguments: arguments)
        defer {
            second.signal(SIGTERM)
            second.process.waitUntilExit()
        }
        let dealer = try Self.connect(to: second, in: context)
        defer { dealer.close() }
        // Sent at once, likely while the keys are still being read: answered once they all are, in full.
        _ = try dealer.send(multipart: [[], Array(#"{"v":1,"id":"all","op":"list","limit":10000}"#.utf8)])
        let frames = try #require(try dealer.receiveMultipart(), "the list was never answered")
        let listed = try #require(try TestDaemon.object(frames[frames.count - 1]).result["layouts"] as? [[String: Any]])
        #expect(listed.count == Self.keys, "a list after the restart answers every key")

        var busy = 0
        var wrong: [String] = []
        try Self.pipeline(Self.keys, on: dealer) { number in
            #"{"v":1,"id":\#(number),"op":"query","layout":"k\#(number)","rect":{"x":0,"y":0,"width":375,"height":812}}"#
        } check: { number, reply in
            let code = (reply["error"] as? [String: Any])?["code"] as? String
            if code == "busy" { busy += 1 }
            let expected = number % 3 == 0 ? 2 : 1
            if !reply.ok || reply.result["version"] as? Int != expected {
                wrong.append("k\(number): \(reply)")
            }
        }
        #expect(busy == 0, "reads refused busy with \(Self.window) in flight")
        #expect(wrong.isEmpty, "\(wrong.count) reads not ok at their version, first: \(wrong.prefix(3))")

        let stats = try Self.stats(of: second, in: context)
        let journal = try #require(stats["journal"] as? [String: Any])
        #expect(journal["loadingKeys"] as? Bool == false && journal["keys"] as? Int == Self.keys, "\(journal)")
    }

    /// Sends `count` requests made by `body`, keeping `window` in flight; `check` sees each reply with
    /// the number of its request (its id).
    private static func pipeline(_ count: Int, on dealer: Socket, body: (Int) -> String, check: (Int, [String: Any]) throws -> Void) throws {
        var sent = 0
        var answered = 0
        func sendNext() throws {
            guard sent < count else { return }
            _ = try dealer.send(multipart: [[], Array(body(sent).utf8)])
            sent += 1
        }
        for _ in 0..<window { try sendNext() }
        while answered < count {
            let frames = try #require(try dealer.receiveMultipart(), "no reply after \(answered) of \(count)")
            let reply = try TestDaemon.object(frames[frames.count - 1])
            try check(reply["id"] as? Int ?? -1, reply)
            answered += 1
            try sendNext()
        }
    }

    /// A DEALER to `daemon`'s front, once it answers a ping (polled: a start takes what it takes).
    private static func connect(to daemon: LayoutdProcess, in context: Context) throws -> Socket {
        let dealer = try Socket(.dealer, in: context)
        try dealer.set(.receiveTimeout, 60_000)
        try dealer.set(.linger, 0)
        try dealer.connect(daemon.frontEndpoint)
        _ = try dealer.send(multipart: [[], Array(#"{"v":1,"id":"up","op":"ping"}"#.utf8)])
        let frames = try #require(try dealer.receiveMultipart(), "the daemon did not answer a ping")
        try #require(try TestDaemon.object(frames[frames.count - 1]).ok)
        return dealer
    }

    private static func stats(of daemon: LayoutdProcess, in context: Context) throws -> [String: Any] {
        let socket = try Socket(.dealer, in: context)
        defer { socket.close() }
        try socket.set(.receiveTimeout, 30_000)
        try socket.connect(daemon.statsEndpoint)
        _ = try socket.send(multipart: [[], Array("stats".utf8)])
        let frames = try #require(try socket.receiveMultipart(), "no stats answer")
        return try TestDaemon.object(frames[frames.count - 1])
    }
}
