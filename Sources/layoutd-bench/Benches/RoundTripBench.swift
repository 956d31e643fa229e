import LayoutTestKit
import LayoutEngine
import LayoutServer
import ZeroMQ

/// Small-op round trips per second and their latency, against the daemon and, beside it in the same
/// run, against a raw libzmq echo (`EchoServer`) and the work floor (`WorkFloorServer`: the echo's
/// thread doing each request's own work with the daemon's code), all driven by the same client code with
/// the same bodies.
///
/// Each round measures every (op, pattern) on the three servers back to back, reversing their order
/// every other round, so machine load shifts hit all alike. Throughput is the median over rounds; latency
/// percentiles pool the samples of every round.
///
/// The goals weigh the daemon against the echo. The floor explains them: floor/raw is what the work
/// costs (the ceiling of any one-thread daemon on this machine), layoutd/floor what the daemon's own
/// machinery costs (`roundtrip-floor-ratio` lines, without goals).
struct RoundTripBench {
    let plan: BenchPlan
    let daemon: DaemonServer
    let echo: EchoServer
    let floor: WorkFloorServer
    let context: Context

    enum Server: String, CaseIterable {
        case layoutd
        case rawEcho = "raw-echo"
        case workFloor = "work-floor"
    }

    struct Pattern {
        var name: String
        var dealers: Int
        var outstanding: Int

        static let all = [
            Pattern(name: "sequential", dealers: 1, outstanding: 1),
            Pattern(name: "pipelined", dealers: 1, outstanding: 100),
            Pattern(name: "pipelined", dealers: 4, outstanding: 100),
        ]

        var isSequential: Bool { outstanding == 1 }
        var label: String { isSequential ? name : "\(name) \(dealers)x\(outstanding / dealers)" }
    }

    private struct Op {
        var name: String
        var body: [UInt8]
        var detail: String
    }

    private struct Key: Hashable {
        var op: String
        var pattern: String
        var server: Server
    }

    /// One server's client sockets: one for sequential runs, one and four for pipelined ones.
    private struct Clients {
        var single: BenchDealer
        var four: [BenchDealer]

        init(endpoint: String, context: Context) throws {
            single = try BenchDealer(endpoint: endpoint, context: context)
            four = try (0..<4).map { _ in try BenchDealer(endpoint: endpoint, context: context) }
        }

        func dealers(for pattern: Pattern) -> [BenchDealer] {
            pattern.dealers == 1 ? [single] : four
        }

        func close() {
            single.close()
            four.forEach { $0.close() }
        }
    }

    func run(goals: inout Goals) -> Bool {
        do {
            try measure(goals: &goals)
            return true
        } catch {
            emit(["bench": "roundtrip", "error": .string("\(error)")])
            return false
        }
    }

    private func measure(goals: inout Goals) throws {
        let clients: [Server: Clients] = [
            .layoutd: try Clients(endpoint: daemon.endpoint, context: context),
            .rawEcho: try Clients(endpoint: echo.endpoint, context: context),
            .workFloor: try Clients(endpoint: floor.endpoint, context: context),
        ]
        defer { clients.values.forEach { $0.close() } }
        let ops = [ping(), try query(on: clients[.layoutd]?.single, floor: floor.answerer)]

        var replyBytes: [Key: Int] = [:]
        for op in ops {
            for server in Server.allCases {
                guard let clients = clients[server] else { continue }
                try clients.single.send(op.body)
                guard let reply = try clients.single.receive(), check(for: server, op)(reply) else {
                    throw BenchFailure("\(server.rawValue) did not answer \(op.name) as expected")
                }
                replyBytes[Key(op: op.name, pattern: "", server: server)] = reply.count
                // Warm-up: code paths, allocator, TCP buffers, Dispatch threads.
                _ = try RoundTripPatterns.sequential(on: clients.single, body: op.body, count: plan.warmUpRoundTrips, check: check(for: server, op))
                _ = try RoundTripPatterns.pipelined(on: clients.four, body: op.body, total: plan.warmUpRoundTrips, window: 100, check: check(for: server, op))
            }
        }

        var latencies: [Key: [Double]] = [:]
        var rates: [Key: [Double]] = [:]
        for round in 0..<plan.rounds {
            let servers = round % 2 == 0 ? Server.allCases : Server.allCases.reversed()
            for op in ops {
                for pattern in Pattern.all {
                    for server in servers {
                        guard let clients = clients[server] else { continue }
                        let key = Key(op: op.name, pattern: pattern.label, server: server)
                        let check = check(for: server, op)
                        if pattern.isSequential {
                            let samples = try RoundTripPatterns.sequential(on: clients.single, body: op.body, count: plan.sequentialRoundTrips, check: check)
                            latencies[key, default: []] += samples
                            rates[key, default: []].append(Double(samples.count) / samples.reduce(0, +))
                        } else {
                            let seconds = try RoundTripPatterns.pipelined(
                                on: clients.dealers(for: pattern), body: op.body, total: plan.pipelinedRoundTrips,
                                window: pattern.outstanding, check: check
                            )
                            rates[key, default: []].append(Double(plan.pipelinedRoundTrips) / seconds)
                        }
                    }
                }
            }
        }

        for op in ops {
            for pattern in Pattern.all {
                var figures: [Server: (rate: Double, p50: Double?)] = [:]
                for server in Server.allCases {
                    let key = Key(op: op.name, pattern: pattern.label, server: server)
                    let sorted = (latencies[key] ?? []).sorted()
                    let rate = Statistics.median(rates[key] ?? [])
                    let p50 = sorted.isEmpty ? nil : Statistics.percentile(50, of: sorted) * 1e6
                    let p99 = sorted.isEmpty ? nil : Statistics.percentile(99, of: sorted) * 1e6
                    figures[server] = (rate, p50)
                    emit([
                        "bench": "roundtrip", "op": .string(op.name), "detail": .string(op.detail),
                        "pattern": .string(pattern.name), "dealers": .int(pattern.dealers), "outstanding": .int(pattern.outstanding),
                        "server": .string(server.rawValue),
                        "requestBytes": .int(op.body.count),
                        "replyBytes": .integer(replyBytes[Key(op: op.name, pattern: "", server: server)]),
                        "roundTrips": .int((pattern.isSequential ? plan.sequentialRoundTrips : plan.pipelinedRoundTrips) * plan.rounds),
                        "rounds": .int(plan.rounds),
                        "roundTripsPerSecond": .figure(rate),
                        "p50Micros": .figure(p50), "p99Micros": .figure(p99),
                    ])
                }
                guard let ours = figures[.layoutd], let raw = figures[.rawEcho], let floor = figures[.workFloor] else { continue }
                if pattern.isSequential {
                    let ratio = ours.p50.flatMap { o in raw.p50.map { o / $0 } }
                    emitRatio(op: op.name, pattern: pattern, measure: "p50Micros", ours: ours.p50, raw: raw.p50, ratio: ratio, goal: "<= 1.3")
                    goals.atMost("\(op.name) \(pattern.label): p50 latency ours/raw", ratio, 1.3)
                    emitFloorRatios(op: op.name, pattern: pattern, measure: "p50Micros", ours: ours.p50, floor: floor.p50, raw: raw.p50)
                } else {
                    let ratio = ours.rate / raw.rate
                    emitRatio(op: op.name, pattern: pattern, measure: "roundTripsPerSecond", ours: ours.rate, raw: raw.rate, ratio: ratio, goal: ">= 0.6")
                    goals.atLeast("\(op.name) \(pattern.label): throughput ours/raw", ratio, 0.6)
                    emitFloorRatios(op: op.name, pattern: pattern, measure: "roundTripsPerSecond", ours: ours.rate, floor: floor.rate, raw: raw.rate)
                }
            }
        }
    }

    /// floor/raw and layoutd/floor of one measure (p50 latency sequentially, throughput pipelined, as the
    /// goals' ratios): explanations, without goals.
    private func emitFloorRatios(op: String, pattern: Pattern, measure: String, ours: Double?, floor: Double?, raw: Double?) {
        func ratio(_ a: Double?, _ b: Double?) -> Double? { a.flatMap { a in b.map { a / $0 } } }
        emit([
            "bench": "roundtrip-floor-ratio", "op": .string(op), "pattern": .string(pattern.name),
            "dealers": .int(pattern.dealers), "outstanding": .int(pattern.outstanding),
            "measure": .string(measure), "layoutd": .figure(ours), "workFloor": .figure(floor), "rawEcho": .figure(raw),
            "floorOverRaw": .figure(ratio(floor, raw)), "layoutdOverFloor": .figure(ratio(ours, floor)),
        ])
    }

    private func emitRatio(op: String, pattern: Pattern, measure: String, ours: Double?, raw: Double?, ratio: Double?, goal: String) {
        emit([
            "bench": "roundtrip-ratio", "op": .string(op), "pattern": .string(pattern.name),
            "dealers": .int(pattern.dealers), "outstanding": .int(pattern.outstanding),
            "measure": .string(measure), "layoutd": .figure(ours), "rawEcho": .figure(raw),
            "ratio": .figure(ratio), "goal": .string(goal),
        ])
    }

    /// The daemon and the floor must answer with a success; the echo must return the request whole.
    private func check(for server: Server, _ op: Op) -> RoundTripPatterns.ReplyCheck {
        switch server {
        case .layoutd, .workFloor: return { $0.isSuccessReply }
        case .rawEcho:
            let count = op.body.count
            return { $0.count == count }
        }
    }

    private func ping() -> Op {
        Op(name: "ping", body: Array(#"{"v":1,"id":1,"op":"ping"}"#.utf8), detail: "ping")
    }

    /// A `query` of a 100 × 100 rect halfway down a mosaic of `plan.queryMosaicItems` items, which it
    /// first prepares in the daemon and, with the same request, in the floor's store under the same key
    /// (the echo server needs nothing prepared).
    private func query(on dealer: BenchDealer?, floor: InlineAnswerer) throws -> Op {
        guard let dealer else { throw BenchFailure("no client for the daemon") }
        let items = plan.queryMosaicItems
        let bounds = Size(width: 375, height: 812)
        let prepare = #"{"v":1,"id":"setup","op":"prepare","layout":"bench-mosaic","bounds":{"width":375,"height":812},"spec":{"type":"mosaic"},"sections":[{"count":\#(items)}]}"#
        try dealer.send(Array(prepare.utf8))
        guard let reply = try dealer.receive(), reply.isSuccessReply else {
            throw BenchFailure("the daemon did not prepare the query's mosaic")
        }
        // Run on this thread, not the floor's: setting up is not measured, and the store is safe to share.
        guard try Message(floor.run(RequestBody(Array(prepare.utf8))).bytes).isSuccessReply else {
            throw BenchFailure("the work floor did not prepare the query's mosaic")
        }
        // The same layout prepared here, to place the rect and count what it hits.
        let local = try PreparedLayout.prepare(LayoutInput(bounds: bounds, parameters: .defaults(for: .mosaic), sections: [Section(items: ItemSizes(count: items))]))
        let rect = Rect(x: 100, y: (local.contentSize.height / 2).rounded(), width: 100, height: 100)
        let hits = local.elements(in: rect).count
        let body = #"{"v":1,"id":2,"op":"query","layout":"bench-mosaic","rect":{"x":\#(Int(rect.x)),"y":\#(Int(rect.y)),"width":100,"height":100}}"#
        return Op(name: "query", body: Array(body.utf8), detail: "100x100 rect, \(hits) hits, mosaic of \(items) items")
    }
}
