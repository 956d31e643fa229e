import Foundation
import LayoutJournal
import LayoutTestKit
import ZeroMQ

/// Kill -9 of the active broker of two sharing a PostgreSQL journal (a real server on loopback, started
/// by `scripts/postgres`): the time from the kill to the first answer from the standby that takes over,
/// and to its taking of the lease (read off the lease row), with the defaults and with tuned settings.
/// The terms of the bound are printed beside it: what was left of the lease, the standby's next try
/// (a fifth of the lease), reading the recipes, `cluster.rejoinMillis`.
struct TakeoverBench {
    let plan: BenchPlan
    let context: Context

    /// A case's settings, as the brokers' and the worker's environment.
    struct Settings {
        var name: String
        var environment: [String: String]
        var leaseMillis: Int
        var rejoinMillis: Int
        var goalSeconds: Double
    }

    static let cases = [
        Settings(name: "defaults", environment: [:], leaseMillis: 5000, rejoinMillis: 4000, goalSeconds: 5),
        Settings(
            name: "tuned",
            environment: [
                "LAYOUTD_CLUSTER_LEASE_MILLIS": "1500", "LAYOUTD_CLUSTER_REJOIN_MILLIS": "800", "LAYOUTD_CLUSTER_HEARTBEAT_MILLIS": "200",
                "LAYOUTD_CLUSTER_RECONNECT_MILLIS": "200", "LAYOUTD_CLUSTER_RECONNECT_MAX_MILLIS": "400",
            ],
            leaseMillis: 1500, rejoinMillis: 800, goalSeconds: 2
        ),
    ]

    func run(goals: inout Goals) throws {
        let postgres = try PostgresServer()
        let folder = NSTemporaryDirectory() + "layoutd-takeover-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for settings in Self.cases {
            var answers: [Double] = []
            var leases: [Double] = []
            for round in 0..<max(1, plan.rounds) {
                let (lease, answer) = try oneTakeover(settings, round: round, postgres: postgres, folder: folder)
                leases.append(lease)
                answers.append(answer)
            }
            let median = Statistics.median(answers)
            let leaseMedian = Statistics.median(leases)
            emit([
                "bench": "takeover", "case": .string(settings.name), "runs": .int(answers.count),
                "leaseMillis": .int(settings.leaseMillis), "rejoinMillis": .int(settings.rejoinMillis),
                "secondsKillToLeaseTaken": .figure(leaseMedian), "secondsLeaseTakenToFirstAnswer": .figure(median - leaseMedian),
                "secondsKillToFirstAnswer": .figure(median), "maxSeconds": .figure(answers.max()),
                // The bound, term by term: the lease left (at most all of it), the standby's next try (a
                // fifth of it), then the rejoin wait; reading the recipes is in the measured remainder.
                "boundSeconds": .figure(Double(settings.leaseMillis + settings.leaseMillis / 5 + settings.rejoinMillis) / 1000),
            ])
            goals.atMost("takeover (\(settings.name)): kill -9 of the active broker to the first answer from the new one (s)", median, settings.goalSeconds)
        }
    }

    /// One takeover: two brokers and a worker listing both; a key prepared through the first; the first
    /// killed; the seconds from the kill to the lease's taking and to the first answer on the key.
    private func oneTakeover(_ settings: Settings, round: Int, postgres: PostgresServer, folder: String) throws -> (Double, Double) {
        let environment = settings.environment.merging(["LAYOUTD_JOURNAL_URL": postgres.url, "LAYOUTD_JOURNAL_DURABILITY": "sync"]) { $1 }
        let first = try BrokerProcess(environment: environment, log: "\(folder)/\(settings.name)-\(round)-first.log")
        defer { first.stop() }
        let client = try Client(endpoint: first.front, context: context, timeoutMilliseconds: 30_000)
        defer { client.close() }
        // Active once it answers other than "standby" (the row may still hold the last round's lease).
        try waitUntil(seconds: 60, "the first broker never took the lease") { !Self.isStandby(try client.call(#"{"v":1,"id":"s","op":"ping"}"#)) }
        let second = try BrokerProcess(environment: environment, log: "\(folder)/\(settings.name)-\(round)-second.log")
        defer { second.stop() }
        let worker = try LayoutdChild(
            arguments: [
                "--role", "worker", "--join", "\(first.back),\(second.back)", "--join-events", "\(first.eventsIn),\(second.eventsIn)",
                "--worker-id", "takeover-\(round)", "--workers", "1", "--log-level", "error",
            ],
            environment: settings.environment, log: "\(folder)/\(settings.name)-\(round)-worker.log"
        )
        defer { worker.stop() }
        let key = "takeover-\(settings.name)-\(round)"
        let heights = (0..<100).map { String(20 + ($0 * 31) % 80) }.joined(separator: ",")
        let prepare = #"{"v":1,"id":"p","op":"prepare","layout":"\#(key)","bounds":{"width":375,"height":800},"spec":{"type":"waterfall","columns":2},"sections":[{"heights":[\#(heights)]}]}"#
        try waitUntil(seconds: 60, "the key was never prepared") { Self.isSuccess(try client.call(prepare)) }
        let query = #"{"v":1,"id":"q","op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":320,"height":800}}"#
        let before = try client.call(query)
        guard Self.isSuccess(before) else { throw BenchFailure("the key did not answer before the kill") }
        let standby = try Client(endpoint: second.front, context: context, timeoutMilliseconds: 30_000)
        defer { standby.close() }
        let watch = try LeaseWatch(url: postgres.url, ttlMillis: settings.leaseMillis)
        let clock = ContinuousClock()
        let killed = clock.now
        first.kill9()
        watch.start(from: killed)
        var answered: Duration?
        while answered == nil, killed.duration(to: clock.now) < .seconds(120) {
            let reply = try standby.call(query)
            if Self.isSuccess(reply) {
                answered = killed.duration(to: clock.now)
                guard reply == before else { throw BenchFailure("the new broker answered differently") }
            } else if Self.isStandby(reply) {
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
        let leaseTaken = watch.stop()
        guard let answered else { throw BenchFailure("the standby never answered: see \(second.log)") }
        return ((leaseTaken ?? answered).seconds, answered.seconds)
    }

    static func isSuccess(_ reply: [UInt8]) -> Bool {
        String(decoding: reply.prefix(96), as: UTF8.self).contains(#""ok":true"#)
    }

    /// A standby's answer: `unavailable`, saying it is one.
    static func isStandby(_ reply: [UInt8]) -> Bool {
        !isSuccess(reply) && String(decoding: reply.prefix(400), as: UTF8.self).contains("standby")
    }

    private func waitUntil(seconds: Int, _ what: String, _ condition: () throws -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw BenchFailure(what)
    }
}

