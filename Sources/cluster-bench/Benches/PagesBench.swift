import Foundation
import LayoutServer
import LayoutTestKit
import ZeroMQ

/// Many small keys (issue 36): a `list` page of 1,000 keys, and a `stats` answer, on a single daemon and
/// through a broker with one worker, at growing key counts; and what a client's route lookup of one key
/// (its only route traffic after a `moved`) costs in bytes beside the whole table it used to fetch.
struct PagesBench {
    let plan: BenchPlan
    let context: Context
    let cores: Int

    private static let pageSize = 1_000
    private static let samples = 50

    private static func key(_ index: Int) -> String { String(format: "key-%07d", index) }

    /// A list layout of 20 items, as the issue's small keys.
    private static func prepareBody(_ index: Int) -> [UInt8] {
        Array(#"{"v":1,"id":\#(index),"op":"prepare","layout":"\#(key(index))","bounds":{"width":375,"height":800},"spec":{"type":"list"},"sections":[{"count":20}]}"#.utf8)
    }

    func run(goals: inout Goals) throws {
        try single(goals: &goals)
        try cluster(goals: &goals)
    }

    /// A daemon with the default journal (SQLite, async), in a folder of its own: stats then report the
    /// journal's keys, which they used to count by walking its index.
    private func single(goals: inout Goals) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pages-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = Nodes.configuration(workers: cores)
        configuration.journalURL = .sqlite(path: folder.appendingPathComponent("layoutd.db").path)
        let daemon = try LayoutDaemon(configuration: configuration, logger: Nodes.logger).start()
        defer { daemon.stop() }
        let front = try Client(endpoint: daemon.frontEndpoint, context: context)
        defer { front.close() }
        var prepared = 0
        for count in plan.pageKeyCounts {
            try prepare(from: prepared, to: count, through: front)
            prepared = count
            let page = try pageLatencies(front, keys: count)
            let stats = try statsLatencies(daemon.statsEndpoint)
            emit([
                "bench": "pages", "server": "daemon", "journal": "sqlite", "keys": .int(count), "pageSize": .int(Self.pageSize),
                "pageP50Millis": .figure(page.p50), "pageP99Millis": .figure(page.p99),
                "unpagedListMillis": .figure(try unpagedLatency(front)),
                "statsP50Millis": .figure(stats.p50), "statsMaxMillis": .figure(stats.max),
            ])
            goals.atMost("list page of 1,000 at \(count) keys, daemon (ms, p50)", page.p50, 5)
            goals.atMost("stats at \(count) keys, daemon (ms, p50)", stats.p50, 5)
        }
    }

    private func cluster(goals: inout Goals) throws {
        let broker = try Nodes.broker()
        defer { broker.stop() }
        let worker = try Nodes.worker(joining: broker, name: "pages-0", workers: cores)
        defer { worker.stop() }
        try Nodes.waitForWorkers(1, at: broker, context: context)
        let front = try Client(endpoint: broker.frontEndpoint, context: context)
        defer { front.close() }
        let count = plan.pageKeyCounts.last.map { Swift.min($0, plan.clusterPageKeys) } ?? 0
        try prepare(from: 0, to: count, through: front)
        let page = try pageLatencies(front, keys: count)
        let stats = try statsLatencies(broker.statsEndpoint)

        // After a `moved` a client looks that one key up: the request and its answer are all the route
        // data it moves. The whole table, which clients used to fetch then, for comparison.
        let probe = Self.key(count / 2)
        let lookupRequest = #"{"v":1,"id":"r","op":"route","layout":"\#(probe)"}"#
        let lookup = try front.call(lookupRequest)
        guard lookup.starts(with: Array(#"{"v":1,"id":"r","ok":true"#.utf8)) else { throw BenchFailure("route lookup failed") }
        let batch = (0..<100).map { "\"\(Self.key($0 * Swift.max(1, count / 100)))\"" }.joined(separator: ",")
        let batchReply = try front.call(#"{"v":1,"id":"b","op":"route","layouts":[\#(batch)]}"#)
        let lookupTimes = try (0..<Self.samples).map { index -> Double in
            let clock = ContinuousClock()
            let start = clock.now
            _ = try front.call(#"{"v":1,"id":"r","op":"route","layout":"\#(Self.key(index * Swift.max(1, count / Self.samples)))"}"#)
            return start.duration(to: clock.now).seconds * 1_000
        }.sorted()
        let clock = ContinuousClock()
        let start = clock.now
        let table = try front.call(#"{"v":1,"id":"t","op":"route"}"#)
        let tableMillis = start.duration(to: clock.now).seconds * 1_000
        let movedBytes = Double(lookupRequest.utf8.count + lookup.count)
        emit([
            "bench": "pages", "server": "broker+1", "keys": .int(count), "pageSize": .int(Self.pageSize),
            "pageP50Millis": .figure(page.p50), "pageP99Millis": .figure(page.p99),
            "statsP50Millis": .figure(stats.p50), "statsMaxMillis": .figure(stats.max),
        ])
        emit([
            "bench": "route-lookup", "keys": .int(count),
            "routeBytesPerMoved": .figure(movedBytes), "lookupP50Millis": .figure(Statistics.percentile(50, of: lookupTimes)),
            "batchOf100ReplyBytes": .int(batchReply.count),
            "wholeTableBytes": .int(table.count), "wholeTableMillis": .figure(tableMillis),
        ])
        goals.atMost("list page of 1,000 at \(count) keys, broker+1 (ms, p50)", page.p50, 5)
        goals.atMost("route data per moved at \(count) keys (bytes)", movedBytes, 4_096)
        goals.atMost("stats at \(count) keys, broker (ms, p50)", stats.p50, 5)
    }

    /// Prepares keys `first..<end`, 256 in flight.
    private func prepare(from first: Int, to end: Int, through front: Client) throws {
        var sent = first
        var received = first
        while sent < Swift.min(first + 256, end) {
            try front.send(Self.prepareBody(sent))
            sent += 1
        }
        while received < end {
            guard let reply = try front.receive() else { throw BenchFailure("no reply to a prepare") }
            guard reply.isSuccess else { throw BenchFailure("prepare failed: \(String(decoding: reply.bytes.prefix(200), as: UTF8.self))") }
            received += 1
            if sent < end {
                try front.send(Self.prepareBody(sent))
                sent += 1
            }
        }
    }

    /// Pages of 1,000 after cursors spread over the keys, one at a time: p50 and p99 in ms.
    private func pageLatencies(_ front: Client, keys: Int) throws -> (p50: Double, p99: Double) {
        let clock = ContinuousClock()
        var times: [Double] = []
        for sample in 0..<Self.samples {
            let after = Self.key(sample * Swift.max(1, keys / Self.samples))
            let start = clock.now
            let reply = try front.call(#"{"v":1,"id":"l","op":"list","after":"\#(after)","limit":\#(Self.pageSize)}"#)
            times.append(start.duration(to: clock.now).seconds * 1_000)
            guard reply.starts(with: Array(#"{"v":1,"id":"l","ok":true"#.utf8)) else { throw BenchFailure("list failed") }
        }
        times.sort()
        return (Statistics.percentile(50, of: times), Statistics.percentile(99, of: times))
    }

    /// A list without members (the first 10,000 keys), in ms.
    private func unpagedLatency(_ front: Client) throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        _ = try front.call(#"{"v":1,"id":"all","op":"list"}"#)
        return start.duration(to: clock.now).seconds * 1_000
    }

    /// `stats` on the stats socket: p50 and max in ms.
    private func statsLatencies(_ endpoint: String) throws -> (p50: Double, max: Double) {
        let socket = try Socket(.req, in: context)
        defer { socket.close() }
        try socket.set(.receiveTimeout, 30_000)
        try socket.connect(endpoint)
        let clock = ContinuousClock()
        var times: [Double] = []
        for _ in 0..<20 {
            let start = clock.now
            _ = try socket.send("stats")
            guard try socket.receiveBytes() != nil else { throw BenchFailure("no stats answer") }
            times.append(start.duration(to: clock.now).seconds * 1_000)
        }
        times.sort()
        return (Statistics.percentile(50, of: times), times.last ?? 0)
    }
}
