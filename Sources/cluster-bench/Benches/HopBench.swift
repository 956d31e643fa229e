import LayoutCluster
import LayoutServer
import LayoutTestKit
import ZeroMQ

/// Small-op round trips through a broker and one worker process, against a single daemon in the same
/// run: sequential latency (p50, p99) and pipelined throughput (100 outstanding on one DEALER). Each
/// round measures both back to back, alternating which goes first. Beside them, the floor of any broker
/// hop here: a null server reached directly and through libzmq's own proxy (`NullServer`).
struct HopBench {
    let plan: BenchPlan
    let context: Context
    let cores: Int

    func run(goals: inout Goals) throws {
        let daemon = try Nodes.daemon(workers: cores)
        defer { daemon.stop() }
        let broker = try Nodes.broker()
        defer { broker.stop() }
        let worker = try WorkerProcess(joining: broker, name: "hop-0", workers: cores)
        defer { worker.stop() }
        try Nodes.waitForWorkers(1, at: broker, context: context)
        let nullServer = try NullServerProcess()
        defer { nullServer.stop() }
        let relay = try RelayProxy(to: nullServer.endpoint, context: context)
        defer { relay.stop() }

        let targets = [
            ("daemon", daemon.frontEndpoint), ("broker+1", broker.frontEndpoint),
            ("null", nullServer.endpoint), ("zmq_proxy+null", relay.frontEndpoint),
        ]
        var clients: [String: Client] = [:]
        for (name, endpoint) in targets { clients[name] = try Client(endpoint: endpoint, context: context) }
        defer { clients.values.forEach { $0.close() } }
        let prepare = #"{"v":1,"id":"setup","op":"prepare","layout":"hop-mosaic","bounds":{"width":375,"height":812},"spec":{"type":"mosaic"},"sections":[{"count":10000}]}"#
        let ops: [(name: String, body: [UInt8])] = [
            ("ping", Array(#"{"v":1,"id":1,"op":"ping"}"#.utf8)),
            ("query", Array(#"{"v":1,"id":2,"op":"query","layout":"hop-mosaic","rect":{"x":100,"y":500000,"width":100,"height":100}}"#.utf8)),
        ]
        for (name, _) in targets {
            guard let client = clients[name] else { continue }
            if !name.contains("null") { _ = try client.call(prepare) }
            for op in ops {
                _ = try client.sequential(op.body, count: plan.warmUpRoundTrips)
                _ = try client.pipelined(op.body, total: plan.warmUpRoundTrips, window: 100)
            }
        }

        var latencies: [String: [Double]] = [:]
        var rates: [String: [Double]] = [:]
        var brokerCPU: [String: [Double]] = [:]
        for round in 0..<plan.rounds {
            let order = round % 2 == 0 ? targets : targets.reversed()
            for op in ops {
                for (name, _) in order {
                    guard let client = clients[name] else { continue }
                    latencies["\(op.name) \(name)", default: []] += try client.sequential(op.body, count: plan.sequentialRoundTrips)
                    let before = try cpu(of: broker)
                    let seconds = try client.pipelined(op.body, total: plan.pipelinedRoundTrips, window: 100)
                    if name == "broker+1" {
                        brokerCPU[op.name, default: []].append((try cpu(of: broker) - before) / Double(plan.pipelinedRoundTrips) * 1e6)
                    }
                    rates["\(op.name) \(name)", default: []].append(Double(plan.pipelinedRoundTrips) / seconds)
                }
            }
        }
        for op in ops {
            var p50: [String: Double] = [:]
            var rate: [String: Double] = [:]
            for (name, _) in targets {
                let key = "\(op.name) \(name)"
                let sorted = (latencies[key] ?? []).sorted()
                p50[name] = Statistics.percentile(50, of: sorted) * 1e6
                rate[name] = Statistics.median(rates[key] ?? [])
                emit([
                    "bench": "hop", "op": .string(op.name), "server": .string(name), "rounds": .int(plan.rounds),
                    "p50Micros": .figure(p50[name]), "p99Micros": .figure(Statistics.percentile(99, of: sorted) * 1e6),
                    "pipelinedRoundTripsPerSecond": .figure(rate[name]),
                ])
            }
            let ratio = { (relayed: String, direct: String, figures: [String: Double]) -> Double? in
                figures[relayed].flatMap { r in figures[direct].map { r / $0 } }
            }
            let latencyRatio = ratio("broker+1", "daemon", p50)
            let rateRatio = ratio("broker+1", "daemon", rate)
            let addedMicros = p50["broker+1"].flatMap { b in p50["daemon"].map { b - $0 } }
            let floorAddedMicros = p50["zmq_proxy+null"].flatMap { r in p50["null"].map { r - $0 } }
            emit([
                "bench": "hop-ratio", "op": .string(op.name), "p50BrokerOverDirect": .figure(latencyRatio), "throughputBrokerOverDirect": .figure(rateRatio),
                "brokerCPUMicrosPerRequest": .figure(Statistics.median(brokerCPU[op.name] ?? [])),
                "p50AddedMicros": .figure(addedMicros),
                // The same figures for the null server and libzmq's proxy: the floor of a hop here.
                "floorP50ProxyOverDirect": .figure(ratio("zmq_proxy+null", "null", p50)),
                "floorThroughputProxyOverDirect": .figure(ratio("zmq_proxy+null", "null", rate)),
                "floorP50AddedMicros": .figure(floorAddedMicros),
                "addedOverFloorAdded": .figure(addedMicros.flatMap { a in floorAddedMicros.map { a / $0 } }),
            ])
            goals.atMost("\(op.name) sequential p50: broker+1 worker / single daemon", latencyRatio, 1.3)
            goals.atLeast("\(op.name) pipelined 1x100: broker+1 worker / single daemon", rateRatio, 0.7)
        }
    }

    private func cpu(of broker: RunningNode) throws -> Double {
        ((try Nodes.stats(of: broker, context: context)["cluster"] as? [String: Any])?["brokerThreadCPUSeconds"] as? Double) ?? .nan
    }
}
