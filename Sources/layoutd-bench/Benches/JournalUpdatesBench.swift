import LayoutTestKit
import ZeroMQ

/// Small updates per second from many clients (`UpdateLoad`: 64 clients, one request outstanding each)
/// against daemons that differ only in their journal, measured in rounds: every daemon once per round,
/// the order turning from round to round, so machine load hits all alike and each journal's ratio is
/// taken against `none` in the same round.
struct JournalUpdatesBench {
    let plan: JournalPlan
    /// `none` first: the baseline.
    let daemons: [(mode: JournalMode, daemon: DaemonServer)]
    let context: Context

    static let asyncGoal = 0.9
    static let syncGoal = 0.6

    func run(goals: inout Goals) throws {
        guard let baseline = daemons.first, baseline.mode.backend == "none" else { throw BenchFailure("no daemon without a journal") }
        // Keys of the same length on every daemon (the daemon's number, not its journal's name), so the
        // bodies are the same size; distinct, for daemons that share a PostgreSQL journal.
        let loads = daemons.enumerated().map {
            UpdateLoad(endpoint: $1.daemon.endpoint, context: context, keyPrefix: "journal-bench/\($0)", clients: plan.clients, threads: plan.clientThreads)
        }
        for load in loads { _ = try load.run(for: plan.updateWarmUp) }
        let before = daemons.map { JournalCounters.read(from: $0.daemon, context: context) }

        var rates = [[Double]](repeating: [], count: daemons.count)
        var latencies = [[Double]](repeating: [], count: daemons.count)
        var updates = [Int](repeating: 0, count: daemons.count)
        var cpuSeconds = [Double](repeating: 0, count: daemons.count)
        var requestBytes = [Int](repeating: 0, count: daemons.count)
        for round in 0..<plan.updateRounds {
            for step in daemons.indices {
                let which = (step + round) % daemons.count
                let outcome = try loads[which].run(for: plan.updateRound)
                rates[which].append(outcome.updatesPerSecond)
                latencies[which] += outcome.latencies
                updates[which] += outcome.updates
                cpuSeconds[which] += outcome.cpuSeconds
                requestBytes[which] = outcome.requestBytes
            }
        }
        let after = daemons.map { JournalCounters.read(from: $0.daemon, context: context) }

        for (which, entry) in daemons.enumerated() {
            let sorted = latencies[which].sorted()
            let commits = after[which].flatMap { a in before[which].map { a.commits - $0.commits } }
            let records = after[which].flatMap { a in before[which].map { a.records - $0.records } }
            emit([
                "bench": "journal-updates", "journal": .string(entry.mode.name), "backend": .string(entry.mode.backend),
                "durability": .string(entry.mode.durability ?? "none"),
                "clients": .int(plan.clients), "clientThreads": .int(plan.clientThreads), "outstandingPerClient": .int(1),
                "requestBytes": .int(requestBytes[which]), "rounds": .int(plan.updateRounds), "roundSeconds": .figure(plan.updateRound.seconds),
                "updates": .int(updates[which]),
                "updatesPerSecond": .figure(Statistics.median(rates[which])),
                "minUpdatesPerSecond": .figure(rates[which].min()), "maxUpdatesPerSecond": .figure(rates[which].max()),
                "p50Micros": .figure(Statistics.percentile(50, of: sorted) * 1e6),
                "p99Micros": .figure(Statistics.percentile(99, of: sorted) * 1e6),
                "cpuMicrosPerUpdate": .figure(cpuSeconds[which] / Double(max(1, updates[which])) * 1e6),
                "commits": .integer(commits), "records": .integer(records),
                "recordsPerCommit": .figure(commits.flatMap { c in records.map { c > 0 ? Double($0) / Double(c) : .nan } }),
                "commitP50Micros": .figure(after[which]?.commitP50Micros), "commitP99Micros": .figure(after[which]?.commitP99Micros),
                "syncP50Micros": .figure(after[which]?.syncP50Micros), "syncP99Micros": .figure(after[which]?.syncP99Micros),
            ])
        }

        for (which, entry) in daemons.enumerated() where which > 0 {
            // Each round's ratio against `none` in that round, then their median.
            let ratios = zip(rates[which], rates[0]).map { $0 / $1 }
            let ratio = Statistics.median(ratios)
            let goal = entry.mode.durability == "sync" ? Self.syncGoal : Self.asyncGoal
            emit([
                "bench": "journal-updates-ratio", "journal": .string(entry.mode.name), "baseline": .string(baseline.mode.name),
                "measure": "updatesPerSecond", "ratio": .figure(ratio), "minRatio": .figure(ratios.min()), "maxRatio": .figure(ratios.max()),
                "goal": .string(">= \(goal)"),
            ])
            goals.atLeast("journal updates, 64 clients: \(entry.mode.name) / none", ratio, goal)
        }
        emit([
            "bench": "journal-note",
            "note": "the issue's anchor: Redis 7 with appendfsync everysec serves 1.0x and with always 0.85x of its throughput without persistence",
        ])
    }
}
