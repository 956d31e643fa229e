import LayoutCluster
import LayoutServer
import LayoutTestKit
import ZeroMQ

/// The broker's cost per request must not grow with the number of workers: two brokers in this process,
/// one with a single worker and one with `idleWorkers` registered (workers in this process too), measured
/// in alternating rounds. The figure that counts is the CPU time of the broker's routing thread per
/// request (from its stats: `cluster.brokerThreadCPUSeconds`), which no worker's load can blur; end-to-end
/// latency and throughput are printed beside it. A `query` goes to its key's owner (a table lookup): the
/// other workers stay idle whether the client waits for each reply or keeps 100 outstanding. A `ping` goes
/// to the least loaded worker: one at a time, the same warm worker serves them all and the others stay
/// idle, which is the case the goal is about; 100 outstanding spread over every worker (none is idle any
/// more), and the broker then pays libzmq's cost of waking many connections instead of one, printed beside
/// as `brokerCPUMicrosPerRequestPipelined`.
struct IdleWorkersBench {
    let plan: BenchPlan
    let context: Context

    private final class Setup {
        let count: Int
        let broker: RunningNode
        let workers: [RunningNode]
        let client: Client

        init(count: Int, context: Context) throws {
            self.count = count
            let broker = try Nodes.broker()
            self.broker = broker
            workers = try (0..<count).map { try Nodes.worker(joining: broker, name: "idle-\($0)", workers: 1) }
            try Nodes.waitForWorkers(count, at: broker, context: context)
            client = try Client(endpoint: broker.frontEndpoint, context: context)
        }

        func stop() {
            client.close()
            broker.stop()
            workers.forEach { $0.stop() }
        }
    }

    private func brokerCPU(_ setup: Setup) throws -> Double {
        ((try Nodes.stats(of: setup.broker, context: context)["cluster"] as? [String: Any])?["brokerThreadCPUSeconds"] as? Double) ?? .nan
    }

    func run(goals: inout Goals) throws {
        let setups = try [1, plan.idleWorkers].map { try Setup(count: $0, context: context) }
        defer { setups.forEach { $0.stop() } }
        let ops: [(String, [UInt8])] = [
            ("query", Array(#"{"v":1,"id":2,"op":"query","layout":"idle-mosaic","rect":{"x":100,"y":500000,"width":100,"height":100}}"#.utf8)),
            ("ping", Array(#"{"v":1,"id":1,"op":"ping"}"#.utf8)),
        ]
        for setup in setups {
            _ = try setup.client.call(#"{"v":1,"id":"setup","op":"prepare","layout":"idle-mosaic","bounds":{"width":375,"height":812},"spec":{"type":"mosaic"},"sections":[{"count":10000}]}"#)
            for (_, body) in ops {
                _ = try setup.client.sequential(body, count: plan.warmUpRoundTrips)
                _ = try setup.client.pipelined(body, total: plan.warmUpRoundTrips, window: 100)
            }
        }
        var latencies: [String: [Double]] = [:]
        var rates: [String: [Double]] = [:]
        var cpu: [String: [Double]] = [:]
        var sequentialCPU: [String: [Double]] = [:]
        for round in 0..<plan.shortRounds {
            for setup in round % 2 == 0 ? setups : setups.reversed() {
                for (name, body) in ops {
                    let key = "\(name) \(setup.count)"
                    let start = try brokerCPU(setup)
                    latencies[key, default: []] += try setup.client.sequential(body, count: plan.sequentialRoundTrips)
                    let before = try brokerCPU(setup)
                    let seconds = try setup.client.pipelined(body, total: plan.pipelinedRoundTrips, window: 100)
                    let after = try brokerCPU(setup)
                    rates[key, default: []].append(Double(plan.pipelinedRoundTrips) / seconds)
                    sequentialCPU[key, default: []].append((before - start) / Double(plan.sequentialRoundTrips) * 1e6)
                    cpu[key, default: []].append((after - before) / Double(plan.pipelinedRoundTrips) * 1e6)
                }
            }
        }
        for (name, _) in ops {
            var perRequest: [Int: Double] = [:]
            var throughput: [Int: Double] = [:]
            for setup in setups {
                let key = "\(name) \(setup.count)"
                let sorted = (latencies[key] ?? []).sorted()
                // Where the other workers stay idle (see above): pipelined queries, one ping at a time.
                let pipelinedCPU = Statistics.median(cpu[key] ?? [])
                let oneAtATimeCPU = Statistics.median(sequentialCPU[key] ?? [])
                perRequest[setup.count] = name == "ping" ? oneAtATimeCPU : pipelinedCPU
                throughput[setup.count] = Statistics.median(rates[key] ?? [])
                emit([
                    "bench": "idle", "workers": .int(setup.count), "op": .string(name), "rounds": .int(plan.shortRounds),
                    "brokerCPUMicrosPerRequest": .figure(perRequest[setup.count]),
                    "brokerCPUMicrosPerRequestOneAtATime": .figure(oneAtATimeCPU), "brokerCPUMicrosPerRequestPipelined": .figure(pipelinedCPU),
                    "p50Micros": .figure(Statistics.percentile(50, of: sorted) * 1e6), "p99Micros": .figure(Statistics.percentile(99, of: sorted) * 1e6),
                    "pipelinedRoundTripsPerSecond": .figure(throughput[setup.count]),
                ])
            }
            let ratio = perRequest[plan.idleWorkers].flatMap { many in perRequest[1].map { many / $0 } }
            emit([
                "bench": "idle-ratio", "op": .string(name), "workers": .int(plan.idleWorkers), "brokerCPUManyOverOne": .figure(ratio),
                "throughputManyOverOne": .figure(throughput[plan.idleWorkers].flatMap { many in throughput[1].map { many / $0 } }),
            ])
            let phase = name == "ping" ? "one at a time" : "pipelined 1x100"
            goals.atMost("\(name) (\(phase)): broker CPU per request with \(plan.idleWorkers) idle workers / with 1", ratio, 1.1)
        }
    }
}
