#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LayoutEngine
import LayoutTestKit
import LayoutWire
import ZeroMQ

/// The large job of `JobBench`, sent as a `prepare` under a key, end to end against a daemon without a
/// journal and one with `sqlite async`, the two alternating run by run. A journaled `prepare` writes its
/// body to the log as it came, with its binary frames (`binaryHeights`), before its reply leaves. The
/// reply is the binary format, the cheapest to make, so the journal's share is the largest it can be.
///
/// A third step alternates with the two daemons: the same request's bytes appended to a file in the
/// journal's folder as the log appends them (`LogAppendFloor`), timed alone. `none`'s time plus that
/// append is the floor under the journaled job, whatever the rest of the journal costs: a
/// `journal-job-floor` line says how far above `none` it is.
struct JournalJobBench {
    let plan: JournalPlan
    let baseline: (mode: JournalMode, daemon: DaemonServer)
    let journaled: (mode: JournalMode, daemon: DaemonServer)
    /// Where the journal's files are: the floor's file goes there too, on the same disk.
    let folder: ScratchFolder
    let context: Context

    static let ratioGoal = 1.1
    static let secondsGoal = 0.3
    static let format = AttributesFormat.binary

    func run(goals: inout Goals) throws {
        for form in JobInputs.BodyForm.allCases {
            let inputs = JobInputs(items: plan.jobItems, form: form)
            let key = "journal-bench/job-\(form.rawValue)"
            let body = inputs.body(format: Self.format, operation: .prepare(key: key))
            let attachments = inputs.attachments
            let expected = JobReplyCheck(layout: try PreparedLayout.prepare(inputs.input), format: Self.format).expected
            let sides = [baseline, journaled]
            let dealers = try sides.map { try BenchDealer(endpoint: $0.daemon.endpoint, context: context) }
            defer { dealers.forEach { $0.close() } }

            // A segment of its own per body form, as the log's would be for the key (anonymous: "").
            let floor = try LogAppendFloor(path: folder.file("job-floor-\(form.rawValue).log"), namespace: "", key: key)
            defer { floor.remove() }
            var appendSeconds: [Double] = []

            let clock = ContinuousClock()
            var samples: [[Double]] = [[], []]
            let repetitions = plan.jobRepetitions
            for run in 0..<(repetitions.warmUps + repetitions.runs) {
                // The two daemons and the append, the order turning from run to run.
                for step in 0..<3 {
                    let side = (step + run) % 3
                    guard side < 2 else {
                        let seconds = try floor.append(body: body, attachments: attachments)
                        if run >= repetitions.warmUps { appendSeconds.append(seconds) }
                        continue
                    }
                    let start = clock.now
                    try dealers[side].send(body, attachments: attachments)
                    let reply = try dealers[side].receiveFrames()
                    let elapsed = start.duration(to: clock.now).seconds
                    if let problem = Self.problem(with: reply, expected: expected, whole: run == repetitions.warmUps) {
                        throw BenchFailure("\(sides[side].mode.name), \(form.rawValue) body: \(problem)")
                    }
                    if run >= repetitions.warmUps { samples[side].append(elapsed) }
                }
            }

            let seconds = samples.map { Statistics.median($0) }
            for (side, entry) in sides.enumerated() {
                emit([
                    "bench": "journal-job", "journal": .string(entry.mode.name), "op": "prepare", "items": .int(inputs.items),
                    "layout": .string(inputs.kind.rawValue), "body": .string(form.rawValue), "format": .string(Self.format.rawValue),
                    "requestBytes": .int(body.count + attachments.reduce(0) { $0 + $1.count }),
                    "replyBytes": .int(expected.reduce(0) { $0 + $1.count }),
                    "seconds": .figure(seconds[side]), "minSeconds": .figure(samples[side].min()), "runs": .int(samples[side].count),
                ])
            }
            // Each run's ratio (the two sides ran in the same run), then their median.
            let ratios = zip(samples[1], samples[0]).map { $0 / $1 }
            let ratio = Statistics.median(ratios)
            emit([
                "bench": "journal-job-ratio", "journal": .string(journaled.mode.name), "baseline": .string(baseline.mode.name),
                "items": .int(inputs.items), "body": .string(form.rawValue), "measure": "seconds",
                "journaledSeconds": .figure(seconds[1]), "baselineSeconds": .figure(seconds[0]),
                "ratio": .figure(ratio), "minRatio": .figure(ratios.min()), "maxRatio": .figure(ratios.max()),
                "goal": .string("<= \(Self.ratioGoal)"),
            ])
            // The floor: each run's `none` seconds with that run's append added, over the same `none`
            // seconds; then their median, as for the ratio. No goal: it says how much of the goal the
            // append alone takes.
            let floorRatios = zip(samples[0], appendSeconds).map { ($0 + $1) / $0 }
            emit([
                "bench": "journal-job-floor", "journal": .string(journaled.mode.name), "baseline": .string(baseline.mode.name),
                "items": .int(inputs.items), "body": .string(form.rawValue),
                "recordBytes": .int(floor.recordBytes(body: body, attachments: attachments)),
                "appendSeconds": .figure(Statistics.median(appendSeconds)), "minAppendSeconds": .figure(appendSeconds.min()),
                "maxAppendSeconds": .figure(appendSeconds.max()), "baselineSeconds": .figure(seconds[0]),
                "floorRatio": .figure(Statistics.median(floorRatios)), "minFloorRatio": .figure(floorRatios.min()),
                "maxFloorRatio": .figure(floorRatios.max()), "runs": .int(appendSeconds.count),
            ])
            let label = "journal job \(inputs.items) items, \(form.rawValue) body"
            goals.atMost("\(label): \(journaled.mode.name) / none", ratio, Self.ratioGoal)
            goals.atMost("\(label), \(journaled.mode.name): seconds", seconds[1], Self.secondsGoal)
        }
    }

    /// nil when `reply` is a success with the expected binary columns; checked byte for byte when `whole`.
    private static func problem(with reply: [ReceivedFrame], expected: [[UInt8]], whole: Bool) -> String? {
        guard reply.count == expected.count else { return "reply has \(reply.count) frames, expected \(expected.count)" }
        guard let head = reply.first, head.message.isSuccessReply else {
            return "not a success: \(reply.first?.message.preview ?? "nothing")"
        }
        for (index, (frame, mine)) in zip(reply, expected).enumerated().dropFirst() {
            guard frame.count == mine.count else { return "frame \(index) has \(frame.count) bytes, expected \(mine.count)" }
            if whole {
                let same = frame.message.withUnsafeBytes { bytes in
                    mine.withUnsafeBytes { mine in
                        guard let a = bytes.baseAddress, let b = mine.baseAddress else { return bytes.count == mine.count }
                        return memcmp(a, b, bytes.count) == 0
                    }
                }
                guard same else { return "frame \(index) differs from the locally encoded one" }
            }
        }
        return nil
    }
}
