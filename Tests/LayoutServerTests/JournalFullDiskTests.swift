import Foundation
import LayoutTestKit
import Testing
import ZeroMQ

/// The real `layoutd` whose journal cannot write (a file size limit, as a full disk): nothing is
/// acknowledged that is not journaled (with `sync` durability, on the disk), queries go on, `/readyz` says why, and
/// writing resumes by itself once there is room again; what was acknowledged survives a restart.
@Suite struct JournalFullDiskTests {
    /// Which of the journal's files meets the limit first: its append-only log (never rotated, the sync
    /// a minute away), or its SQLite database (changes never compacted, while the log is rotated every
    /// 20 ms), which leaves acknowledged changes in the log alone until SQLite takes them.
    enum FullFile: String, CaseIterable, CustomTestStringConvertible {
        case log
        case database

        var environment: [String: String] {
            switch self {
            case .log: return ["LAYOUTD_JOURNAL_SYNC_MILLIS": "60000"]
            case .database:
                return ["LAYOUTD_JOURNAL_SYNC_MILLIS": "20", "LAYOUTD_JOURNAL_COMPACT_AFTER_BYTES": "0", "LAYOUTD_JOURNAL_COMPACT_AFTER_CHANGES": "0"]
            }
        }

        var testDescription: String { rawValue }
    }

    /// With `async` as with `sync`: an `async` change is answered once it is in the log, so a log
    /// that cannot take it is refused as well, and SQLite failing behind the log refuses the next ones.
    @Test(arguments: FullFile.allCases, ["sync", "async"])
    func aFullDiskRefusesChangesServesQueriesAndRecoversByItself(full: FullFile, durability: String) throws {
        let folder = TemporaryFolder("layoutd-full")
        let http = "127.0.0.1:\(try LayoutdProcess.freePort())"
        let arguments = ["--journal", folder.journalURL, "--journal-durability", durability, "--http", http]
        let daemon = try LayoutdProcess(arguments: arguments, fileSizeLimit: 600_000, environment: full.environment)
        defer { daemon.signal(SIGKILL) }
        let context = try Context()
        defer { context.terminate() }
        let client = try JournalClient(daemon.frontEndpoint, in: context)

        #expect(try client.call(#"{"op":"prepare","layout":"feed","bounds":{"width":375,"height":800},"spec":{"type":"waterfall","columns":2},"sections":[{"count":50,"heights":[\#((0..<50).map { String(20 + $0 % 40) }.joined(separator: ","))]}]}"#).ok)
        var acknowledged = 1
        var refusal: [String: Any]?
        // Each update grows the journal; the limit is met within a few hundred.
        for index in 0..<5_000 where refusal == nil {
            let reply = try client.call(#"{"op":"update","layout":"feed","updates":[{"insert":[0,0],"item":{"height":\#(10 + index % 90)}}]}"#)
            if reply.ok {
                acknowledged = reply.result["version"] as? Int ?? -1
            } else {
                refusal = reply
            }
        }
        let error = try #require(refusal?["error"] as? [String: Any], "the journal never filled")
        // The files as a crash now would leave them: with SQLite full, the last acknowledged changes
        // are in the log alone.
        let crashed = TemporaryFolder("layoutd-full-crash")
        // The log's segments first, then SQLite's WAL, then its file (SQLite rebuilds its -shm): what
        // moves on meanwhile moves forward, so each copy holds what the earlier ones let go of (a segment
        // is deleted once SQLite has its records on the disk; a checkpoint copies the WAL into the file).
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("layoutd.db") }
        for file in files.filter({ $0.contains("-log.") }) + ["layoutd.db-wal", "layoutd.db"] {
            guard let bytes = FileManager.default.contents(atPath: folder.file(file)) else { continue }
            try bytes.write(to: URL(fileURLWithPath: crashed.file(file)))
        }
        let acknowledgedBeforeTheCrash = acknowledged
        #expect(error["code"] as? String == "unavailable")
        #expect(String(describing: error["message"] ?? "").contains("journal"), "the message says why: \(error)")
        #expect(String(describing: error["message"] ?? "").contains("-log.") == (full == .log), "the file that filled: \(error)")
        // Refused before it is applied now, while the journal cannot write.
        let next = try client.call(#"{"op":"update","layout":"feed","updates":[{"delete":[0,0]}]}"#)
        let nextError = next["error"] as? [String: Any] ?? [:]
        #expect(nextError["code"] as? String == "unavailable")
        #expect(String(describing: nextError["message"] ?? "").contains("refused"), "\(nextError)")
        // Queries are still served.
        #expect(try client.call(#"{"op":"query","layout":"feed","rect":{"x":0,"y":0,"width":375,"height":500}}"#).ok)
        #expect(try HTTPProbe.request("GET", "/readyz", at: http, timeoutSeconds: 5).status == 503)

        // Room again: writing resumes by itself.
        let raise = Process()
        raise.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        raise.arguments = ["--pid", "\(daemon.process.processIdentifier)", "--fsize=unlimited"]
        try raise.run()
        raise.waitUntilExit()
        #expect(raise.terminationStatus == 0)
        var resumed = false
        let deadline = ContinuousClock.now + .seconds(30)
        while !resumed && ContinuousClock.now < deadline {
            let reply = try client.call(#"{"op":"update","layout":"feed","updates":[{"insert":[0,1],"item":{"height":44}}]}"#)
            if reply.ok {
                resumed = true
                acknowledged = reply.result["version"] as? Int ?? -1
            } else {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        #expect(resumed, "changes are accepted again once the journal can write")
        #expect(try HTTPProbe.request("GET", "/readyz", at: http, timeoutSeconds: 5).status == 200)
        let before = try client.call(#"{"op":"query","layout":"feed","rect":{"x":0,"y":0,"width":375,"height":100000}}"#).result

        // What was acknowledged is what a restart answers.
        daemon.signal(SIGKILL)
        daemon.process.waitUntilExit()
        let restarted = try LayoutdProcess(arguments: ["--journal", folder.journalURL])
        defer { restarted.signal(SIGTERM) }
        let reader = try JournalClient(restarted.frontEndpoint, in: context)
        let after = try reader.call(#"{"op":"query","layout":"feed","rect":{"x":0,"y":0,"width":375,"height":100000}}"#).result
        #expect(after["version"] as? Int == acknowledged)
        #expect(after["attributes"] as? NSArray == before["attributes"] as? NSArray)

        // And a crash while the disk was full loses nothing acknowledged either.
        let fromTheCrash = try LayoutdProcess(arguments: ["--journal", crashed.journalURL])
        defer { fromTheCrash.signal(SIGTERM) }
        let crashReader = try JournalClient(fromTheCrash.frontEndpoint, in: context)
        let recovered = try crashReader.call(#"{"op":"query","layout":"feed","rect":{"x":0,"y":0,"width":375,"height":100}}"#).result
        #expect(recovered["version"] as? Int == acknowledgedBeforeTheCrash)
    }
}

/// A DEALER to a daemon that may still be starting: pings until it answers (bounded), then calls.
struct JournalClient {
    let socket: Socket

    init(_ endpoint: String, in context: Context) throws {
        socket = try Socket(.dealer, in: context)
        try socket.set(.linger, 0)
        try socket.connect(endpoint)
        try socket.set(.receiveTimeout, 200)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            _ = try socket.send(multipart: [[], Array(#"{"op":"ping","id":"up"}"#.utf8)])
            if try socket.receiveMultipart() != nil {
                try socket.set(.receiveTimeout, 20_000)
                return
            }
        }
        throw TestFailure("layoutd did not answer within 30 s")
    }

    func call(_ body: String) throws -> [String: Any] {
        let withID = "{\"id\":\"call\"," + body.dropFirst()
        _ = try socket.send(multipart: [[], Array(withID.utf8)])
        while true {
            guard let frames = try socket.receiveMultipart() else { throw TestFailure("no reply to \(body.prefix(100))") }
            let reply = try TestDaemon.object(frames[frames.count - 1])
            // Late answers to the pings sent while the daemon was starting are passed over.
            if reply["id"] as? String == "call" { return reply }
        }
    }
}
