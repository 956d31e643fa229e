import Foundation
import LayoutTestKit
import ZeroMQ

/// The journal's cost, each journal against `none` in the same run: small updates from 64 clients
/// (`JournalUpdatesBench`), the large `prepare` end to end (`JournalJobBench`), and restarts
/// (`RestartLayoutBench`, `RestartKeysBench`). The SQLite files live in a temporary folder removed at
/// the end; with `LAYOUTD_BENCH_POSTGRES_URL` set, the updates also run against that PostgreSQL.
struct JournalBench {
    let plan: JournalPlan
    let workers: Int
    let context: Context

    static let postgresVariable = "LAYOUTD_BENCH_POSTGRES_URL"

    func run(goals: inout Goals) -> Bool {
        let folder: ScratchFolder
        do {
            folder = try ScratchFolder(prefix: "layoutd-bench-journal")
        } catch {
            emit(["bench": "journal", "error": .string("\(error)")])
            return false
        }
        defer { folder.remove() }
        var allGood = true
        func attempt(_ bench: String, _ body: () throws -> Void) {
            do {
                try body()
            } catch {
                allGood = false
                emit(["bench": .string(bench), "error": .string("\(error)")])
            }
        }

        attempt("journal-fsync") { try measureFsync(in: folder) }
        var daemons: [(mode: JournalMode, daemon: DaemonServer)] = []
        defer { daemons.forEach { $0.daemon.stop() } }
        attempt("journal-updates") {
            let modes: [JournalMode] = [.none, .sqlite(path: folder.file("updates-async.db"), sync: false), .sqlite(path: folder.file("updates-sync.db"), sync: true)]
            for mode in modes { daemons.append((mode, try mode.start(workers: workers))) }
            daemons += startPostgres(logFolder: folder)
            try JournalUpdatesBench(plan: plan, daemons: daemons, context: context).run(goals: &goals)
        }
        attempt("journal-job") {
            guard daemons.count >= 2 else { throw BenchFailure("the daemons did not start") }
            try JournalJobBench(plan: plan, baseline: daemons[0], journaled: daemons[1], folder: folder, context: context).run(goals: &goals)
        }
        daemons.forEach { $0.daemon.stop() }
        daemons = []
        attempt("journal-restart") { try RestartLayoutBench(plan: plan, folder: folder, workers: workers, context: context).run(goals: &goals) }
        attempt("journal-restart-keys") { try RestartKeysBench(plan: plan, folder: folder, workers: workers, context: context).run() }
        return allGood
    }

    /// The disk's fsync latency where the SQLite files are: the floor of a `sync` commit.
    private func measureFsync(in folder: ScratchFolder) throws {
        let sorted = try FsyncProbe.measure(in: folder.path, samples: plan.fsyncSamples)
        emit([
            "bench": "journal-fsync", "folder": .string(folder.path), "bytesPerWrite": .int(4096), "samples": .int(sorted.count),
            "p50Micros": .figure(Statistics.percentile(50, of: sorted) * 1e6),
            "p99Micros": .figure(Statistics.percentile(99, of: sorted) * 1e6),
            "maxMicros": .figure(sorted.last.map { $0 * 1e6 }),
        ])
    }

    /// Daemons on the PostgreSQL of `LAYOUTD_BENCH_POSTGRES_URL`, `async` and `sync`; none when it is not
    /// set, or when the daemon cannot open it (a `skipped` line says why).
    private func startPostgres(logFolder folder: ScratchFolder) -> [(mode: JournalMode, daemon: DaemonServer)] {
        guard let url = ProcessInfo.processInfo.environment[Self.postgresVariable], !url.isEmpty else { return [] }
        var started: [(mode: JournalMode, daemon: DaemonServer)] = []
        for mode in [JournalMode.postgres(url: url, sync: false, logPath: folder.file("postgres-async.log")), .postgres(url: url, sync: true)] {
            do {
                started.append((mode, try mode.start(workers: workers)))
            } catch {
                emit(["bench": "journal-updates", "journal": .string(mode.name), "skipped": .string("\(error)")])
            }
        }
        return started
    }
}
