import Foundation
import LayoutCluster
import LayoutServer
import LayoutTestKit
import ZeroMQ

/// CPU-bound work spread over worker processes: `scalingKeys` prepares of `scalingItems` items (a height
/// each) sent at once, through a broker to one worker process and then to two, each worker pinned to a CPU of its own
/// (`taskset`) so that it stands for a one-core machine. Keys are chosen so that rendezvous hashing
/// gives the two workers half each.
struct ScalingBench {
    let plan: BenchPlan
    let context: Context

    func run(goals: inout Goals) throws {
        let names = ["scale-0", "scale-1"]
        let keys = Rendezvous.balancedKeys(count: plan.scalingKeys, over: names, prefix: "scale-key")
        var seconds: [Int: Double] = [:]
        for workerCount in [1, 2] {
            let broker = try Nodes.broker()
            defer { broker.stop() }
            let workers = try (0..<workerCount).map { try WorkerProcess(joining: broker, name: names[$0], workers: 1, cpu: $0) }
            defer { workers.forEach { $0.stop() } }
            try Nodes.waitForWorkers(workerCount, at: broker, context: context)
            let client = try Client(endpoint: broker.frontEndpoint, context: context, timeoutMilliseconds: 600_000)
            defer { client.close() }
            var samples: [Double] = []
            let bodies = keys.map(body(for:))
            let cpuBefore = try brokerCPU(broker)
            for round in 0..<(1 + plan.shortRounds) {
                let clock = ContinuousClock()
                let start = clock.now
                for body in bodies { try client.send(body) }
                for _ in keys {
                    guard let reply = try client.receive(), reply.isSuccess else { throw BenchFailure("a prepare failed") }
                }
                // The first round warms up (allocator, page faults).
                if round > 0 { samples.append(start.duration(to: clock.now).seconds) }
            }
            let brokerSecondsPerRound = (try brokerCPU(broker) - cpuBefore) / Double(1 + plan.shortRounds)
            seconds[workerCount] = Statistics.median(samples)
            emit([
                "bench": "scaling", "workers": .int(workerCount), "pinned": "one CPU each", "prepares": .int(keys.count),
                "itemsPerPrepare": .int(plan.scalingItems), "seconds": .figure(seconds[workerCount]),
                "itemsPerSecond": .figure(Double(keys.count * plan.scalingItems) / (seconds[workerCount] ?? .nan)),
                "bodyBytes": .int(bodies.first?.count ?? 0), "brokerCPUSecondsPerRound": .figure(brokerSecondsPerRound),
            ])
        }
        let speedup = seconds[1].flatMap { one in seconds[2].map { one / $0 } }
        emit(["bench": "scaling-ratio", "speedupTwoOverOne": .figure(speedup)])
        goals.atLeast("CPU-bound prepares: 2 worker processes / 1 (speed-up)", speedup, 1.6)
    }

    /// A waterfall with a height per item: decoding and placing every item is real work (a count-only
    /// section of uniform items would mostly measure memory).
    private func body(for key: String) -> [UInt8] {
        let heights = (0..<plan.scalingItems).map { String(40 + ($0 &* 7919) % 233) }.joined(separator: ",")
        return Array(#"{"v":1,"id":"\#(key)","op":"prepare","layout":"\#(key)","bounds":{"width":1024,"height":800},"spec":{"type":"waterfall","columns":4},"sections":[{"heights":[\#(heights)]}]}"#.utf8)
    }

    private func brokerCPU(_ broker: RunningNode) throws -> Double {
        ((try Nodes.stats(of: broker, context: context)["cluster"] as? [String: Any])?["brokerThreadCPUSeconds"] as? Double) ?? .nan
    }
}
