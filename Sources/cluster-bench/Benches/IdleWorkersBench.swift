import LayoutCluster
import LayoutServer
import LayoutTestKit
import ZeroMQ

/// The broker's cost per request must not grow with the number of workers: the same small requests
/// through a broker with one worker, then with `idleWorkers` registered (workers in this process). A
/// `query` goes to its key's owner (a table lookup); a `ping` to the least loaded worker.
struct IdleWorkersBench {
    let plan: BenchPlan
    let context: Context

    func run(goals: inout Goals) throws {
        var p50: [Int: [String: Double]] = [:]
        var rate: [Int: [String: Double]] = [:]
        for count in [1, plan.idleWorkers] {
            let broker = try Nodes.broker()
            defer { broker.stop() }
            let workers = try (0..<count).map { try Nodes.worker(joining: broker, name: "idle-\($0)", workers: 1) }
            defer { workers.forEach { $0.stop() } }
            try Nodes.waitForWorkers(count, at: broker, context: context)
            let client = try Client(endpoint: broker.frontEndpoint, context: context)
            defer { client.close() }
            _ = try client.call(#"{"v":1,"id":"setup","op":"prepare","layout":"idle-mosaic","bounds":{"width":375,"height":812},"spec":{"type":"mosaic"},"sections":[{"count":10000}]}"#)
            let ops: [(String, [UInt8])] = [
                ("query", Array(#"{"v":1,"id":2,"op":"query","layout":"idle-mosaic","rect":{"x":100,"y":500000,"width":100,"height":100}}"#.utf8)),
                ("ping", Array(#"{"v":1,"id":1,"op":"ping"}"#.utf8)),
            ]
            for (name, body) in ops {
                _ = try client.sequential(body, count: plan.warmUpRoundTrips)
                var latencies: [Double] = []
                var rates: [Double] = []
                for _ in 0..<plan.rounds {
                    latencies += try client.sequential(body, count: plan.sequentialRoundTrips)
                    rates.append(Double(plan.pipelinedRoundTrips) / (try client.pipelined(body, total: plan.pipelinedRoundTrips, window: 100)))
                }
                let sorted = latencies.sorted()
                p50[count, default: [:]][name] = Statistics.percentile(50, of: sorted) * 1e6
                rate[count, default: [:]][name] = Statistics.median(rates)
                emit([
                    "bench": "idle", "workers": .int(count), "op": .string(name),
                    "p50Micros": .figure(p50[count]?[name]), "p99Micros": .figure(Statistics.percentile(99, of: sorted) * 1e6),
                    "pipelinedRoundTripsPerSecond": .figure(rate[count]?[name]),
                ])
            }
        }
        for name in ["query", "ping"] {
            let latency = p50[plan.idleWorkers]?[name].flatMap { many in p50[1]?[name].map { many / $0 } }
            let throughput = rate[plan.idleWorkers]?[name].flatMap { many in rate[1]?[name].map { many / $0 } }
            emit(["bench": "idle-ratio", "op": .string(name), "workers": .int(plan.idleWorkers), "p50ManyOverOne": .figure(latency), "throughputManyOverOne": .figure(throughput)])
            goals.atMost("\(name) p50 with \(plan.idleWorkers) workers / with 1", latency, 1.1)
            goals.atLeast("\(name) pipelined with \(plan.idleWorkers) workers / with 1", throughput, 0.9)
        }
    }
}
