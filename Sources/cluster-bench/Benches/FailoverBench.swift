import Foundation
import LayoutCluster
import LayoutServer
import LayoutTestKit
import ZeroMQ

/// Kill -9 of a worker process: the time from the kill to the first answer on a `failoverItems`-item
/// key it kept (detected by the broker's socket monitor, rebuilt from the recipe on the other worker),
/// and the rebuild throughput when it kept many keys.
struct FailoverBench {
    let plan: BenchPlan
    let context: Context
    let cores: Int

    func run(goals: inout Goals) throws {
        var firstAnswers: [Double] = []
        for _ in 0..<max(1, plan.rounds) {
            firstAnswers.append(try oneBigKey())
        }
        let median = Statistics.median(firstAnswers)
        emit([
            "bench": "failover", "case": "one key", "items": .int(plan.failoverItems), "runs": .int(firstAnswers.count),
            "secondsKillToFirstAnswer": .figure(median), "maxSeconds": .figure(firstAnswers.max()),
            "rebuildItemsPerSecond": .figure(Double(plan.failoverItems) / median),
        ])
        goals.atMost("failover: kill -9 to first answer on a moved \(plan.failoverItems)-item key (s)", median, 1.0)
        try manyKeys()
    }

    /// A body with a height per item: the recipe carries what a real feed sends.
    private func prepareBody(_ key: String, items: Int) -> String {
        let heights = (0..<items).map { String(40 + ($0 * 37) % 211) }.joined(separator: ",")
        return #"{"v":1,"id":"p","op":"prepare","layout":"\#(key)","bounds":{"width":1024,"height":800},"spec":{"type":"waterfall","columns":4},"sections":[{"heights":[\#(heights)]}]}"#
    }

    private func queryBody(_ key: String) -> [UInt8] {
        Array(#"{"v":1,"id":"q","op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":1024,"height":2000}}"#.utf8)
    }

    private func start() throws -> (RunningNode, [WorkerProcess]) {
        let broker = try Nodes.broker()
        let workers = try (0..<2).map { try WorkerProcess(joining: broker, name: "failover-\($0)", workers: cores) }
        try Nodes.waitForWorkers(2, at: broker, context: context)
        return (broker, workers)
    }

    /// The worker that owns the most keys, by the broker's stats.
    private func busiest(_ workers: [WorkerProcess], at broker: RunningNode) throws -> (WorkerProcess, Int) {
        let entries = ((try Nodes.stats(of: broker, context: context)["cluster"] as? [String: Any])?["workers"] as? [[String: Any]]) ?? []
        guard let top = entries.max(by: { ($0["keys"] as? Int ?? 0) < ($1["keys"] as? Int ?? 0) }),
              let worker = workers.first(where: { $0.name == top["id"] as? String }) else { throw BenchFailure("no worker owns a key") }
        return (worker, top["keys"] as? Int ?? 0)
    }

    private func oneBigKey() throws -> Double {
        let (broker, workers) = try start()
        defer {
            workers.forEach { $0.stop() }
            broker.stop()
        }
        let client = try Client(endpoint: broker.frontEndpoint, context: context, timeoutMilliseconds: 120_000)
        defer { client.close() }
        guard try client.call(prepareBody("big", items: plan.failoverItems)).starts(with: Array(#"{"v":1,"id":"p","ok":true"#.utf8)) else {
            throw BenchFailure("the big prepare failed")
        }
        let before = try client.call(String(decoding: queryBody("big"), as: UTF8.self))
        let (owner, _) = try busiest(workers, at: broker)
        let clock = ContinuousClock()
        let start = clock.now
        owner.kill9()
        try client.send(queryBody("big"))
        guard let reply = try client.receive() else { throw BenchFailure("no answer after the kill") }
        let seconds = start.duration(to: clock.now).seconds
        guard reply.bytes == before else { throw BenchFailure("the rebuilt key answered differently: \(String(decoding: reply.bytes.prefix(200), as: UTF8.self))") }
        return seconds
    }

    private func manyKeys() throws {
        let (broker, workers) = try start()
        defer {
            workers.forEach { $0.stop() }
            broker.stop()
        }
        let client = try Client(endpoint: broker.frontEndpoint, context: context, timeoutMilliseconds: 300_000)
        defer { client.close() }
        let keys = (0..<plan.failoverKeys).map { "many-\($0)" }
        for key in keys { try client.send(Array(prepareBody(key, items: plan.failoverItemsPerKey).utf8)) }
        for _ in keys { guard let reply = try client.receive(), reply.isSuccess else { throw BenchFailure("a prepare failed") } }
        let (owner, owned) = try busiest(workers, at: broker)
        let clock = ContinuousClock()
        let start = clock.now
        owner.kill9()
        // Every key answers; the dead worker's ones after their rebuild.
        for key in keys { try client.send(queryBody(key)) }
        for _ in keys { guard let reply = try client.receive(), reply.isSuccess else { throw BenchFailure("a key did not answer after the kill") } }
        let seconds = start.duration(to: clock.now).seconds
        emit([
            "bench": "failover", "case": "many keys", "keys": .int(keys.count), "itemsPerKey": .int(plan.failoverItemsPerKey),
            "keysRebuilt": .int(owned), "secondsKillToAllAnswered": .figure(seconds),
            "rebuildItemsPerSecond": .figure(Double(owned * plan.failoverItemsPerKey) / seconds),
            "restoresPerWorker": .int(ClusterConfiguration().restoresPerWorker),
        ])
    }
}
