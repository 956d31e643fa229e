import Dispatch
import Foundation
import LayoutCluster
import LayoutServer
import LayoutTestKit
import Synchronization
import ZeroMQ

/// Direct reads (PROTOCOL.md §11): queries sent straight to the key's worker process against the same
/// queries sent to a single daemon and through the broker, in one run; then two worker processes, each
/// pinned to a CPU, read at once against one; then a kill -9 of the key's owner, and how long until the
/// key is read directly again at its new owner (beside how long until the broker answers it).
struct DirectReadBench {
    let plan: BenchPlan
    let context: Context
    let cores: Int

    private static let prepareMosaic = #"{"bounds":{"width":375,"height":812},"spec":{"type":"mosaic"},"sections":[{"count":10000}]}"#

    private func prepareBody(_ key: String) -> String {
        #"{"v":1,"id":"setup","op":"prepare","layout":"\#(key)","#
            + Self.prepareMosaic.dropFirst()
    }

    /// The hop bench's query, naming the key's epoch (a broker and a single daemon ignore it).
    private func queryBody(_ key: String, epoch: UInt64) -> [UInt8] {
        Array(#"{"v":1,"id":2,"op":"query","layout":"\#(key)","epoch":\#(epoch),"rect":{"x":100,"y":500000,"width":100,"height":100}}"#.utf8)
    }

    func run(goals: inout Goals) throws {
        try oneWorker(goals: &goals)
        try twoWorkers(goals: &goals)
        try failover()
    }

    private func oneWorker(goals: inout Goals) throws {
        let daemon = try Nodes.daemon(workers: cores)
        defer { daemon.stop() }
        let daemonProcess = try DaemonProcess(workers: cores, context: context)
        defer { daemonProcess.stop() }
        let broker = try Nodes.broker()
        defer { broker.stop() }
        let worker = try WorkerProcess(joining: broker, name: "direct-0", workers: cores, direct: "tcp://127.0.0.1:*")
        defer { worker.stop() }
        try Nodes.waitForWorkers(1, at: broker, context: context)
        let key = "direct-mosaic"
        let front = try Client(endpoint: broker.frontEndpoint, context: context)
        defer { front.close() }
        let single = try Client(endpoint: daemon.frontEndpoint, context: context)
        defer { single.close() }
        let singleProcess = try Client(endpoint: daemonProcess.frontEndpoint, context: context)
        defer { singleProcess.close() }
        for client in [front, single, singleProcess] {
            guard try client.call(prepareBody(key)).starts(with: Array(#"{"v":1,"id":"setup","ok":true"#.utf8)) else { throw BenchFailure("prepare failed") }
        }
        let route = try Client.waitForDirectRoute(of: key, through: front, context: context, query: { queryBody(key, epoch: $0.epoch) })
        let reader = try Client(endpoint: route.endpoint, context: context)
        defer { reader.close() }
        let body = queryBody(key, epoch: route.epoch)
        let targets: [(name: String, client: Client)] = [("daemon", single), ("daemon-process", singleProcess), ("broker+1", front), ("direct", reader)]
        for target in targets {
            _ = try target.client.sequential(body, count: plan.warmUpRoundTrips)
            _ = try target.client.pipelined(body, total: plan.warmUpRoundTrips, window: 100)
        }
        var latencies: [String: [Double]] = [:]
        var rates: [String: [Double]] = [:]
        var brokerMicrosPerDirectRead: [Double] = []
        for round in 0..<plan.rounds {
            for target in round % 2 == 0 ? targets : targets.reversed() {
                latencies[target.name, default: []] += try target.client.sequential(body, count: plan.sequentialRoundTrips)
                let before = try brokerCPU(broker)
                let seconds = try target.client.pipelined(body, total: plan.pipelinedRoundTrips, window: 100)
                if target.name == "direct" {
                    // Heartbeats and stats requests still cross the broker meanwhile: this is their cost.
                    brokerMicrosPerDirectRead.append((try brokerCPU(broker) - before) / Double(plan.pipelinedRoundTrips) * 1e6)
                }
                rates[target.name, default: []].append(Double(plan.pipelinedRoundTrips) / seconds)
            }
        }
        var rate: [String: Double] = [:]
        var p50: [String: Double] = [:]
        for target in targets {
            let sorted = (latencies[target.name] ?? []).sorted()
            rate[target.name] = Statistics.median(rates[target.name] ?? [])
            p50[target.name] = Statistics.percentile(50, of: sorted) * 1e6
            emit([
                "bench": "direct", "op": "query", "server": .string(target.name), "rounds": .int(plan.rounds),
                "p50Micros": .figure(p50[target.name]), "p99Micros": .figure(Statistics.percentile(99, of: sorted) * 1e6),
                "pipelinedRoundTripsPerSecond": .figure(rate[target.name]),
            ])
        }
        let directOverDaemon = rate["direct"].flatMap { d in rate["daemon"].map { d / $0 } }
        let directOverProcess = rate["direct"].flatMap { d in rate["daemon-process"].map { d / $0 } }
        let brokerMicros = Statistics.median(brokerMicrosPerDirectRead)
        emit([
            "bench": "direct-ratio", "throughputDirectOverDaemon": .figure(directOverDaemon),
            "throughputDirectOverDaemonProcess": .figure(directOverProcess),
            "p50DirectOverDaemonProcess": .figure(p50["direct"].flatMap { d in p50["daemon-process"].map { d / $0 } }),
            "throughputBrokerOverDaemon": .figure(rate["broker+1"].flatMap { b in rate["daemon"].map { b / $0 } }),
            "p50DirectOverDaemon": .figure(p50["direct"].flatMap { d in p50["daemon"].map { d / $0 } }),
            "brokerCPUMicrosPerDirectRead": .figure(brokerMicros),
        ])
        // Against a daemon that is a process of its own, as the worker is (and as a deployed daemon is).
        goals.atLeast("query pipelined 1x100: direct read at 1 worker process / single daemon process", directOverProcess, 0.9)
        goals.atMost("broker CPU per direct read (µs)", brokerMicros, 0.5)
    }

    /// Two clients, each reading its own key at once; keys placed so that with two workers each has one.
    /// Each worker process is pinned to a CPU of its own, as the scaling bench pins them; this process's
    /// two client threads share those same two CPUs.
    private func twoWorkers(goals: inout Goals) throws {
        let names = ["direct-pin-0", "direct-pin-1"]
        let keys = Rendezvous.balancedKeys(count: 2, over: names, prefix: "direct-key")
        var aggregate: [Int: Double] = [:]
        for workerCount in [1, 2] {
            let broker = try Nodes.broker()
            defer { broker.stop() }
            let workers = try (0..<workerCount).map {
                try WorkerProcess(joining: broker, name: names[$0], workers: 1, cpu: $0, direct: "tcp://127.0.0.1:*")
            }
            defer { workers.forEach { $0.stop() } }
            try Nodes.waitForWorkers(workerCount, at: broker, context: context)
            let front = try Client(endpoint: broker.frontEndpoint, context: context)
            defer { front.close() }
            var routes: [DirectRoute] = []
            for key in keys {
                guard try front.call(prepareBody(key)).starts(with: Array(#"{"v":1,"id":"setup","ok":true"#.utf8)) else { throw BenchFailure("prepare failed") }
                routes.append(try Client.waitForDirectRoute(of: key, through: front, context: context, query: { queryBody(key, epoch: $0.epoch) }))
            }
            if workerCount == 2, Set(routes.map(\.worker)).count != 2 { throw BenchFailure("the two keys did not land on two workers") }
            var samples: [Double] = []
            for _ in 0..<(1 + plan.rounds) {
                samples.append(try readAtOnce(keys: keys, routes: routes))
            }
            // The first round warms up.
            aggregate[workerCount] = Statistics.median(Array(samples.dropFirst()))
            emit([
                "bench": "direct-scaling", "workers": .int(workerCount), "pinned": "one CPU each", "clients": .int(keys.count),
                "pipelinedRoundTripsPerSecond": .figure(aggregate[workerCount]),
            ])
        }
        let speedup = aggregate[2].flatMap { two in aggregate[1].map { two / $0 } }
        emit(["bench": "direct-scaling-ratio", "throughputTwoOverOne": .figure(speedup), "cores": .int(cores)])
        goals.atLeast("direct reads pipelined: 2 worker processes / 1", speedup, 1.6)
    }

    /// Each key read pipelined on a thread of its own, its client made there (a socket stays on the
    /// thread that made it); the reads per second of all of them together.
    private func readAtOnce(keys: [String], routes: [DirectRoute]) throws -> Double {
        let total = plan.pipelinedRoundTrips
        let failures = Mutex<[String]>([])
        let clock = ContinuousClock()
        let start = clock.now
        DispatchQueue.concurrentPerform(iterations: keys.count) { index in
            do {
                let reader = try Client(endpoint: routes[index].endpoint, context: context)
                defer { reader.close() }
                _ = try reader.pipelined(queryBody(keys[index], epoch: routes[index].epoch), total: total, window: 100)
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        let seconds = start.duration(to: clock.now).seconds
        if let failure = failures.withLock({ $0.first }) { throw BenchFailure(failure) }
        return Double(total * keys.count) / seconds
    }

    /// Kill -9 of the key's owner: seconds until the broker answers a read of it, and, measured at the
    /// same time on another thread, until a client that refreshes its route table reads it directly at
    /// its new owner.
    private func failover() throws {
        var brokerSeconds: [Double] = []
        var directSeconds: [Double] = []
        for _ in 0..<max(1, plan.rounds) {
            let broker = try Nodes.broker()
            defer { broker.stop() }
            let workers = try (0..<2).map { try WorkerProcess(joining: broker, name: "direct-fail-\($0)", workers: cores, direct: "tcp://127.0.0.1:*") }
            defer { workers.forEach { $0.stop() } }
            try Nodes.waitForWorkers(2, at: broker, context: context)
            let key = "direct-failover"
            let front = try Client(endpoint: broker.frontEndpoint, context: context, timeoutMilliseconds: 60_000)
            defer { front.close() }
            guard try front.call(prepareBody(key)).starts(with: Array(#"{"v":1,"id":"setup","ok":true"#.utf8)) else { throw BenchFailure("prepare failed") }
            let route = try Client.waitForDirectRoute(of: key, through: front, context: context, query: { queryBody(key, epoch: $0.epoch) })
            guard let owner = workers.first(where: { $0.name == route.worker }) else { throw BenchFailure("no owner") }
            let clock = ContinuousClock()
            let start = clock.now
            owner.kill9()
            let failures = Mutex<[String]>([])
            // [kill to the broker's answer, kill to a direct answer]
            let seconds = Mutex<[Double]>([.nan, .nan])
            DispatchQueue.concurrentPerform(iterations: 2) { path in
                do {
                    let client = try Client(endpoint: broker.frontEndpoint, context: context, timeoutMilliseconds: 60_000)
                    defer { client.close() }
                    if path == 0 {
                        guard try client.call(String(decoding: queryBody(key, epoch: 0), as: UTF8.self)).starts(with: Array(#"{"v":1,"id":2,"ok":true"#.utf8)) else {
                            throw BenchFailure("the broker did not answer the key after the kill")
                        }
                        let elapsed = start.duration(to: clock.now).seconds
                        seconds.withLock { $0[0] = elapsed }
                    } else {
                        _ = try Client.waitForDirectRoute(of: key, through: client, context: context, query: { queryBody(key, epoch: $0.epoch) }, excluding: route.worker)
                        let elapsed = start.duration(to: clock.now).seconds
                        seconds.withLock { $0[1] = elapsed }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            if let failure = failures.withLock({ $0.first }) { throw BenchFailure(failure) }
            let measured = seconds.withLock { $0 }
            brokerSeconds.append(measured[0])
            directSeconds.append(measured[1])
        }
        emit([
            "bench": "direct-failover", "items": .int(10_000), "runs": .int(brokerSeconds.count),
            "secondsKillToBrokerAnswer": .figure(Statistics.median(brokerSeconds)),
            "secondsKillToDirectAnswer": .figure(Statistics.median(directSeconds)),
            "heartbeatTimesLivenessSeconds": .figure(Double(Nodes.heartbeatMilliseconds * ClusterConfiguration().liveness) / 1000),
        ])
    }

    private func brokerCPU(_ broker: RunningNode) throws -> Double {
        ((try Nodes.stats(of: broker, context: context)["cluster"] as? [String: Any])?["brokerThreadCPUSeconds"] as? Double) ?? .nan
    }
}

