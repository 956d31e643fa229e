import LayoutTestKit
import ZeroMQ

/// A restart with many small journaled layouts: `restartKeys` lists of `restartKeyItems` items, each
/// prepared then changed `restartKeyUpdates` times (an item appended each time) by a daemon with
/// `sqlite async` that is then stopped. Each run starts a new daemon on the same journal file and times
/// from the start until every key has answered a `query` at its last version, asked by 4 clients with
/// 32 queries outstanding each (under the daemon's queue of 256, so none is refused `busy`).
struct RestartKeysBench {
    let plan: JournalPlan
    let folder: ScratchFolder
    let workers: Int
    let context: Context

    static let clients = 4
    static let window = 32

    func run() throws {
        let file = folder.file("restart-keys.db")
        let mode = JournalMode.sqlite(path: file, sync: false)
        let keys = (0..<plan.restartKeys).map { "journal-bench/keys/\($0)" }
        let heights = (0..<plan.restartKeyItems).map { String(40 + ($0 * 37) % 160) }.joined(separator: ",")
        let prepares = keys.enumerated().map { number, key in
            Array(#"{"v":1,"id":\#(number),"op":"prepare","layout":"\#(key)","bounds":{"width":375,"height":812},"spec":{"type":"list"},"sections":[{"heights":[\#(heights)]}]}"#.utf8)
        }
        let queries = keys.enumerated().map { number, key in
            Array(#"{"v":1,"id":\#(number),"op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":375,"height":812}}"#.utf8)
        }
        let version = Array(#""version":\#(1 + plan.restartKeyUpdates),"#.utf8)
        let isLastVersion: (borrowing Message) -> Bool = { $0.isSuccessReply && $0.headContains(version) }

        let first = try mode.start(workers: workers)
        do {
            let dealers = try (0..<Self.clients).map { _ in try BenchDealer(endpoint: first.endpoint, context: context) }
            defer { dealers.forEach { $0.close() } }
            try RequestBurst.send(prepares, over: dealers, window: Self.window) { $0.isSuccessReply }
            for update in 0..<plan.restartKeyUpdates {
                let item = plan.restartKeyItems + update
                let updates = keys.enumerated().map { number, key in
                    Array(#"{"v":1,"id":\#(number),"op":"update","layout":"\#(key)","updates":[{"insert":[0,\#(item)],"item":{"height":50}}]}"#.utf8)
                }
                try RequestBurst.send(updates, over: dealers, window: Self.window) { $0.isSuccessReply }
            }
            try RequestBurst.send(queries, over: dealers, window: Self.window, check: isLastVersion)
        } catch {
            first.stop()
            throw error
        }
        first.stop()

        let clock = ContinuousClock()
        var answered: [Double] = []
        var restoredBefore: [Int] = []
        for _ in 0..<plan.restartRuns {
            let start = clock.now
            let daemon = try mode.start(workers: workers)
            do {
                let dealers = try (0..<Self.clients).map { _ in try BenchDealer(endpoint: daemon.endpoint, context: context) }
                defer { dealers.forEach { $0.close() } }
                try RequestBurst.send(queries, over: dealers, window: Self.window, check: isLastVersion)
                answered.append(start.duration(to: clock.now).seconds)
            } catch {
                daemon.stop()
                throw error
            }
            if let counters = JournalCounters.read(from: daemon, context: context) { restoredBefore.append(counters.restored) }
            daemon.stop()
        }

        let seconds = Statistics.median(answered)
        emit([
            "bench": "journal-restart-keys", "journal": .string(mode.name), "layouts": .int(keys.count),
            "itemsPerLayout": .int(plan.restartKeyItems + plan.restartKeyUpdates), "updatesPerLayout": .int(plan.restartKeyUpdates),
            "clients": .int(Self.clients), "outstandingPerClient": .int(Self.window),
            "journalBytes": .int(BenchFile.size(file) + BenchFile.size(file + "-wal")),
            "runs": .int(answered.count),
            "milliseconds": .figure(seconds * 1000), "minMilliseconds": .figure(answered.min().map { $0 * 1000 }),
            "maxMilliseconds": .figure(answered.max().map { $0 * 1000 }),
            "layoutsPerSecond": .figure(Double(keys.count) / seconds),
            "restoredByTheEnd": .integer(restoredBefore.last),
        ])
    }
}
