import LayoutEngine
import LayoutTestKit
import ZeroMQ

/// A restart with one large journaled layout: a waterfall of `restartItems` items, a height per item in
/// its `prepare` body (the body the journal keeps), prepared by a daemon with `sqlite async` that is
/// then stopped. Each run starts a new daemon on the same journal file and times from the start until
/// a viewport `query` halfway down the layout is answered, byte for byte as before the restart.
struct RestartLayoutBench {
    let plan: JournalPlan
    let folder: ScratchFolder
    let workers: Int
    let context: Context

    static let itemsPerSecondGoal = 5e6

    func run(goals: inout Goals) throws {
        let mode = JournalMode.sqlite(path: folder.file("restart-layout.db"), sync: false)
        let inputs = JobInputs(items: plan.restartItems, form: .heights, kind: .waterfall)
        let key = "journal-bench/restart-layout"
        let local = try PreparedLayout.prepare(inputs.input)
        let y = Int((local.contentSize.height / 2).rounded())
        let query = Array(#"{"v":1,"id":"restart","op":"query","layout":"\#(key)","rect":{"x":0,"y":\#(y),"width":375,"height":812}}"#.utf8)

        // The journal is written by a first daemon, and its answer to the query kept.
        let clock = ContinuousClock()
        let first = try mode.start(workers: workers)
        let expected: [UInt8]
        do {
            let dealer = try BenchDealer(endpoint: first.endpoint, context: context)
            defer { dealer.close() }
            try dealer.send(inputs.body(format: .binary, operation: .prepare(key: key)))
            guard let head = try dealer.receiveFrames().first, head.message.isSuccessReply else { throw BenchFailure("the prepare failed") }
            try dealer.send(query)
            guard let reply = try dealer.receive(), reply.isSuccessReply else { throw BenchFailure("the query failed before the restart") }
            expected = reply.withUnsafeBytes { Array($0) }
        } catch {
            first.stop()
            throw error
        }
        let stopStart = clock.now
        first.stop()
        let stopSeconds = stopStart.duration(to: clock.now).seconds

        var answered: [Double] = []
        var started: [Double] = []
        var rebuildMicros: [Double] = []
        for _ in 0..<plan.restartRuns {
            let start = clock.now
            let daemon = try mode.start(workers: workers)
            started.append(start.duration(to: clock.now).seconds)
            do {
                let dealer = try BenchDealer(endpoint: daemon.endpoint, context: context)
                defer { dealer.close() }
                try dealer.send(query)
                guard let reply = try dealer.receive() else { throw BenchFailure("no answer after the restart") }
                answered.append(start.duration(to: clock.now).seconds)
                guard reply.withUnsafeBytes({ $0.elementsEqual(expected) }) else {
                    throw BenchFailure("the restarted daemon answers otherwise: \(reply.preview)")
                }
            } catch {
                daemon.stop()
                throw error
            }
            if let counters = JournalCounters.read(from: daemon, context: context) { rebuildMicros.append(Double(counters.restoreMicros)) }
            daemon.stop()
        }

        let seconds = Statistics.median(answered)
        let itemsPerSecond = Double(inputs.items) / seconds
        emit([
            "bench": "journal-restart", "journal": .string(mode.name), "layouts": .int(1), "items": .int(inputs.items),
            "layout": .string(inputs.kind.rawValue), "body": .string(inputs.form.rawValue),
            "journalBytes": .int(BenchFile.size(folder.file("restart-layout.db")) + BenchFile.size(folder.file("restart-layout.db-wal"))),
            "runs": .int(answered.count),
            "milliseconds": .figure(seconds * 1000), "minMilliseconds": .figure(answered.min().map { $0 * 1000 }),
            "startMilliseconds": .figure(Statistics.median(started) * 1000),
            "daemonRebuildMilliseconds": .figure(rebuildMicros.isEmpty ? nil : Statistics.median(rebuildMicros) / 1000),
            "stopMilliseconds": .figure(stopSeconds * 1000),
            "itemsPerSecond": .figure(itemsPerSecond), "goalItemsPerSecond": .figure(Self.itemsPerSecondGoal),
        ])
        goals.atLeast("journal restart, \(inputs.items)-item layout: items/s until it answers", itemsPerSecond, Self.itemsPerSecondGoal)
    }
}
