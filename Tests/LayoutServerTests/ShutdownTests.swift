import Foundation
import Testing
import ZeroMQ

/// The real `layoutd` executable: SIGTERM while a large job runs still answers it, then exits 0.
@Suite struct ShutdownTests {
    @Test func sigtermWhileALargeJobRunsAnswersItAndExitsZero() throws {
        let journalFolder = NSTemporaryDirectory() + "layoutd-shutdown-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: journalFolder) }
        let ports = try (0..<3).map { _ in try freePort() }
        let process = Process()
        process.executableURL = try layoutdExecutable()
        process.arguments = [
            "--front", "tcp://127.0.0.1:\(ports[0])", "--events", "tcp://127.0.0.1:\(ports[1])",
            "--stats", "tcp://127.0.0.1:\(ports[2])", "--http", "", "--log-level", "warning",
            // The default journal, in a folder of this test's own: a stop waits for it to close too.
            "--journal", "sqlite:\(journalFolder)/layoutd.db",
        ]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let context = try Context()
        defer { context.terminate() }
        let dealer = try Socket(.dealer, in: context)
        try dealer.set(.receiveTimeout, 30_000)
        try dealer.connect("tcp://127.0.0.1:\(ports[0])")
        // Wait until it serves.
        var up = false
        for _ in 0..<100 where !up {
            _ = try dealer.send(multipart: [[], Array(#"{"v":1,"id":"up","op":"ping"}"#.utf8)])
            try dealer.set(.receiveTimeout, 100)
            up = (try dealer.receiveMultipart()) != nil
        }
        #expect(up)
        try dealer.set(.receiveTimeout, 60_000)

        _ = try dealer.send(multipart: [[], Array(mosaicJob(key: "big", count: 4_000_000).utf8)])
        // SIGTERM only once the daemon has admitted the job (stats shows it in flight).
        let stats = try Socket(.req, in: context)
        try stats.set(.receiveTimeout, 5_000)
        try stats.connect("tcp://127.0.0.1:\(ports[2])")
        var admitted = false
        for _ in 0..<500 where !admitted {
            _ = try stats.send("stats")
            let snapshot = try TestDaemon.object(try #require(try stats.receiveBytes()))
            admitted = (snapshot["inFlight"] as? Int ?? 0) > 0 || (snapshot["itemsPrepared"] as? Int ?? 0) > 0
        }
        #expect(admitted)
        kill(process.processIdentifier, SIGTERM)

        // Late answers to the readiness pings may come first; skip them.
        var reply: [String: Any] = [:]
        while reply["id"] as? String != "prepare-1" {
            let frames = try #require(try dealer.receiveMultipart(), "the admitted job is answered")
            reply = try TestDaemon.object(frames[frames.count - 1])
        }
        #expect(reply.ok)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
