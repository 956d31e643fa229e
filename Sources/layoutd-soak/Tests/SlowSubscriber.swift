import Dispatch
import Foundation
import LayoutTestKit
import Synchronization
import ZeroMQ

/// Events published fast, twice: once with only a reading subscriber, once with a second subscriber that
/// never reads. A ping client measures the front's latency in both phases; the reading subscriber (small
/// queues, pausing now and then so that it falls behind) must account for every event it missed by the
/// gaps in the versions it saw.
struct SlowSubscriber {
    let plan: SoakPlan
    let executable: URL
    let context: Context

    /// Keys each publisher replaces in turn; every `prepare` after a key's first publishes one event.
    private static let keysPerPublisher = 8
    private static let publishers = 2

    private struct ReaderResult: Sendable {
        var received = 0
        var missing = 0
        var notIncreasing = 0
        var lastSeen: [String: Int] = [:]
    }

    private struct PublisherResult: Sendable {
        var finalVersions: [String: Int] = [:]
        var failures = 0
        var failure: String?
    }

    func run(into report: inout TestReport) throws {
        // Queues of 1,000 messages per peer (10,000 by default), so that the reader's pauses overflow them.
        let daemon = try ChildDaemon(executable: executable, settings: ["LAYOUTD_SEND_HIGH_WATER_MARK": "1000"])
        let context = self.context
        let stopReading = Flag()
        let events = daemon.events
        let reader = BackgroundThread(name: "reader") { Self.read(endpoint: events, context: context, until: stopReading) }
        try waitForSubscribers(1, daemon)

        let eventsPerPhase = plan.events / 2
        let without = try phase(daemon, events: eventsPerPhase, round: 0)
        // The subscriber that never reads: a queue of 100 messages, full at once; ZeroMQ then drops what
        // the daemon publishes for it, and nothing may wait on it.
        let stalled = try Socket(.sub, in: context)
        try stalled.set(.receiveHighWaterMark, 100)
        try stalled.subscribe("")
        try stalled.connect(daemon.events)
        defer { stalled.close() }
        try waitForSubscribers(2, daemon)
        let with = try phase(daemon, events: eventsPerPhase, round: 1)

        // Let the reader drain, then account for every event.
        Thread.sleep(forTimeInterval: 0.5)
        stopReading.set()
        guard let read = reader.join() else { throw SoakFailure("the reader did not finish") }
        var finals: [String: Int] = [:]
        for result in without.publishers + with.publishers {
            finals.merge(result.finalVersions) { max($0, $1) }
            if let failure = result.failure { report.fail(failure) }
        }
        // Version 1 of a key published nothing; every later version published one event.
        let published = finals.values.reduce(0) { $0 + ($1 - 1) }
        let tail = finals.reduce(0) { $0 + max(0, $1.value - (read.lastSeen[$1.key] ?? 1)) }
        let daemonCount = Int(try daemon.metric("layoutd_events_published_total"))

        report.add("eventsPublished", published)
        report.add("eventsPerSecondWithout", figure: without.eventsPerSecond)
        report.add("eventsPerSecondWithStalled", figure: with.eventsPerSecond)
        report.add("daemonEventsPublished", daemonCount)
        report.add("received", read.received)
        report.add("gapsDetected", read.missing)
        report.add("missedAtTheEnd", tail)
        report.add("pingP50MicrosWithout", figure: without.pings.p50)
        report.add("pingP99MicrosWithout", figure: without.pings.p99)
        report.add("pingP50MicrosWithStalled", figure: with.pings.p50)
        report.add("pingP99MicrosWithStalled", figure: with.pings.p99)
        report.add("pingMaxMicrosWithStalled", figure: with.pings.max)
        report.add("pings", without.pings.count + with.pings.count)
        report.add("pingsLost", without.lost + with.lost)
        report.add("daemonRSSMiB", mebibytes: daemon.usage?.residentBytes)
        report.expect(published >= plan.events, "only \(published) events published")
        report.expect(daemonCount == published, "the daemon counts \(daemonCount) events, the replies \(published)")
        report.expect(read.notIncreasing == 0, "\(read.notIncreasing) events went back in version")
        report.expect(read.received + read.missing + tail == published,
                      "received \(read.received) + gaps \(read.missing) + tail \(tail) != published \(published)")
        report.expect(without.lost + with.lost == 0, "\(without.lost + with.lost) pings got no reply")
        let status = daemon.terminate(waitingUpTo: .seconds(30))
        report.expect(status == 0, "layoutd exited with \(status.map(String.init) ?? "no exit") after SIGTERM")
    }

    private func waitForSubscribers(_ count: Int, _ daemon: ChildDaemon) throws {
        for _ in 0..<500 {
            if try daemon.metric("layoutd_subscribers") >= Double(count) { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw SoakFailure("the subscription never reached the daemon")
    }

    /// Publishers make `events` events while a client pings.
    private func phase(_ daemon: ChildDaemon, events: Int, round: Int) throws -> (publishers: [PublisherResult], pings: LatencySummary, lost: Int, eventsPerSecond: Double) {
        let done = Flag()
        let context = self.context
        let front = daemon.front
        let pinger = BackgroundThread(name: "pinger") { () -> (latencies: [Double], lost: Int) in
            var latencies: [Double] = []
            var lost = 0
            guard let dealer = try? SoakDealer(endpoint: front, context: context, receiveTimeoutMilliseconds: 10_000) else { return ([], 1) }
            defer { dealer.close() }
            var id = 0
            while !done.isSet {
                id += 1
                let sent = DispatchTime.now().uptimeNanoseconds
                guard (try? dealer.send(Bodies.ping(id: id))) != nil else { return (latencies, lost + 1) }
                var answered = false
                while !answered {
                    guard let reply = (try? dealer.receive()) ?? nil else {
                        lost += 1
                        break
                    }
                    answered = reply.id == id
                }
                if answered { latencies.append(Double(DispatchTime.now().uptimeNanoseconds - sent) / 1000) }
            }
            return (latencies, lost)
        }
        let perPublisher = events / Self.publishers + Self.keysPerPublisher
        let started = ContinuousClock.now
        let publishers = concurrently(Self.publishers, name: "publisher") { index in
            Self.publish(index: index, round: round, count: perPublisher, endpoint: front, context: context)
        }
        let seconds = (ContinuousClock.now - started).seconds
        done.set()
        let pings = pinger.join() ?? ([], 1)
        return (publishers, LatencySummary(pings.latencies), pings.lost, Double(events) / seconds)
    }

    /// `count` prepares of tiny layouts over this publisher's keys, 64 in flight.
    private static func publish(index: Int, round: Int, count: Int, endpoint: String, context: Context) -> PublisherResult {
        var result = PublisherResult()
        do {
            let dealer = try SoakDealer(endpoint: endpoint, context: context)
            defer { dealer.close() }
            var sent = 0
            var answered = 0
            var keys: [Int: String] = [:]
            while answered < count {
                while sent < count, sent - answered < 64 {
                    let key = "e\(index)-\(sent % keysPerPublisher)"
                    keys[sent] = key
                    try dealer.send(Bodies.mosaic(id: sent, key: key, count: 5))
                    sent += 1
                }
                guard let reply = try dealer.receive() else { throw SoakFailure("publisher \(index): no reply") }
                answered += 1
                guard reply.ok, let id = reply.id, let key = keys.removeValue(forKey: id), let version = reply.version else {
                    result.failures += 1
                    continue
                }
                result.finalVersions[key] = max(result.finalVersions[key] ?? 0, version)
            }
            if result.failures > 0 { result.failure = "publisher \(index): \(result.failures) prepares failed" }
        } catch {
            result.failure = "publisher \(index) (round \(round)): \(error)"
        }
        return result
    }

    /// Reads `invalidated:` events with a queue of 100 messages and a 4 KiB socket buffer, pausing 300 ms every 1,000 events so it
    /// falls behind (and ZeroMQ drops events for it), and counts the versions it missed.
    private static func read(endpoint: String, context: Context, until stop: Flag) -> ReaderResult {
        var result = ReaderResult()
        guard let socket = try? Socket(.sub, in: context) else { return result }
        defer { socket.close() }
        do {
            try socket.set(.receiveHighWaterMark, 100)
            // A small kernel buffer too, or the TCP connection alone would hold thousands of events.
            try socket.set(.receiveBufferSize, 4096)
            try socket.set(.receiveTimeout, 100)
            try socket.subscribe("invalidated:")
            try socket.connect(endpoint)
            while true {
                guard let frames = try socket.receiveMultipart() else {
                    if stop.isSet { break }
                    continue
                }
                guard frames.count == 2 else { continue }
                let key = String(decoding: frames[0].dropFirst("invalidated:".count), as: UTF8.self)
                let version = frames[1].withUnsafeBytes { ByteReader.integer(after: #""version":"#, in: $0) } ?? 0
                let last = result.lastSeen[key] ?? 1
                if version > last {
                    result.missing += version - last - 1
                    result.lastSeen[key] = version
                } else {
                    result.notIncreasing += 1
                }
                result.received += 1
                if result.received % 1_000 == 0 { Thread.sleep(forTimeInterval: 0.3) }
            }
        } catch {
            return result
        }
        return result
    }
}
