import LayoutTestKit
import LayoutEngine
import LayoutWire
import ZeroMQ

/// A large mosaic `layout` job end to end: the body is built once, then each run times sending it to
/// the daemon until the last byte of the reply is in and checked (length, head, tail). Beside it, in
/// the same run, the parts that can be timed from outside: LayoutWire's decode and encode and the
/// engine's prepare on the same body, and the raw libzmq transfer of the same bytes through the echo
/// server. `otherSeconds` is what is left: copies, queueing and thread hand-offs inside the daemon.
struct JobBench {
    let plan: BenchPlan
    let daemon: DaemonServer
    let echo: EchoServer
    let context: Context

    static let goalSeconds = 0.3

    func run(goals: inout Goals) -> Bool {
        var allGood = true
        var figures: [String: Figures] = [:]
        for form in JobInputs.BodyForm.allCases {
            let inputs = JobInputs(items: plan.jobItems, form: form)
            for format in AttributesFormat.allCases {
                do {
                    let measured = try measure(inputs, format: format)
                    figures["\(form.rawValue) \(format.rawValue)"] = measured
                    goals.atMost("job \(plan.jobItems) items, \(form.rawValue) body, \(format.rawValue): seconds", measured.seconds, Self.goalSeconds)
                } catch {
                    allGood = false
                    emit([
                        "bench": "job", "items": .int(plan.jobItems), "body": .string(form.rawValue), "format": .string(format.rawValue),
                        "error": .string("\(error)"),
                    ])
                }
            }
        }
        // Issue 13's ratios, each between figures of this run.
        if let binary = figures["count binary"], let columns = figures["count columns"] {
            goals.atMost(
                "job binary / (prepare + raw transfer of its bytes)", binary.seconds / (binary.parts.prepare + binary.parts.transfer), 3
            )
            goals.atLeast("job columns / binary: times faster", columns.seconds / binary.seconds, 3)
        }
        if let json = figures["heights columns"], let binary = figures["binaryHeights columns"] {
            goals.atLeast("decode of JSON heights / binary heights: times faster", json.parts.decode / binary.parts.decode, 3)
        }
        return allGood
    }

    /// A job's median end-to-end seconds and the parts timed beside it.
    struct Figures {
        var seconds: Double
        var parts: Parts
    }

    /// Emits the job's line and returns its median end-to-end seconds and parts.
    private func measure(_ inputs: JobInputs, format: AttributesFormat) throws -> Figures {
        let layout = try PreparedLayout.prepare(inputs.input)
        let body = inputs.body(format: format)
        let attachments = inputs.attachments
        let check = JobReplyCheck(layout: layout, format: format)
        let dealer = try BenchDealer(endpoint: daemon.endpoint, context: context)
        defer { dealer.close() }

        let clock = ContinuousClock()
        var samples: [Double] = []
        for run in 0..<(plan.jobRepetitions.warmUps + plan.jobRepetitions.runs) {
            let start = clock.now
            try dealer.send(body, attachments: attachments)
            let reply = try dealer.receiveFrames()
            guard check.quickCheck(reply) else {
                let preview = reply.first?.message.preview ?? "nothing"
                throw BenchFailure("reply of \(reply.count) frames (expected \(check.expected.count)) does not match: \(preview)")
            }
            let elapsed = start.duration(to: clock.now).seconds
            // The whole reply is checked once, after the clock has stopped.
            if run == plan.jobRepetitions.warmUps, let problem = check.fullCheck(reply) {
                throw BenchFailure(problem)
            }
            if run >= plan.jobRepetitions.warmUps { samples.append(elapsed) }
        }

        let parts = try breakdown(body: body, attachments: attachments, expectedReply: check.expected)
        let seconds = Statistics.median(samples)
        let other = seconds - parts.decode - parts.prepare - parts.encode - parts.transfer
        emit([
            "bench": "job", "items": .int(inputs.items), "layout": "mosaic", "body": .string(inputs.form.rawValue),
            "format": .string(format.rawValue),
            "requestBytes": .int(body.count + attachments.reduce(0) { $0 + $1.count }), "replyBytes": .int(check.byteCount),
            "seconds": .figure(seconds), "minSeconds": .figure(samples.min()), "runs": .int(samples.count),
            "decodeSeconds": .figure(parts.decode), "prepareSeconds": .figure(parts.prepare),
            "encodeSeconds": .figure(parts.encode), "transferSeconds": .figure(parts.transfer),
            "otherSeconds": .figure(other), "check": "ok", "goalSeconds": .figure(Self.goalSeconds),
        ])
        return Figures(seconds: seconds, parts: parts)
    }

    struct Parts {
        var decode: Double
        var prepare: Double
        var encode: Double
        /// Request and reply through libzmq alone: half the echo round trip of each.
        var transfer: Double
    }

    /// The daemon's steps, each timed alone on the same body (medians over the job's runs), while the
    /// daemon is idle.
    private func breakdown(body: [UInt8], attachments: [[UInt8]], expectedReply: [[UInt8]]) throws -> Parts {
        let repetitions = plan.jobRepetitions
        let decoder = RequestDecoder()
        var decoded: Request?
        let decode = try Self.median(repetitions) {
            decoded = try body.withUnsafeBytes { bytes in
                try Self.withViews(of: attachments) { try decoder.decode(bytes, frames: AttachedFrames($0)) }
            }
        }
        guard case .layout(let job)? = decoded?.operation else { throw BenchFailure("the body did not decode as a layout job") }
        var prepared: PreparedLayout?
        let prepare = try Self.median(repetitions) { prepared = try PreparedLayout.prepare(job.input) }
        guard let prepared else { throw BenchFailure("the layout did not prepare") }
        let encode = try Self.median(repetitions) {
            // The binary columns are made with the result, as the daemon does.
            let result = LayoutResult(layout: prepared, selection: job.attributes, format: job.format)
            blackHole(ReplyEncoder.success(id: decoded?.id, result: result))
        }

        let dealer = try BenchDealer(endpoint: echo.endpoint, context: context)
        defer { dealer.close() }
        func echoRoundTrip(_ bytes: [UInt8]) throws -> Double {
            try Self.median(repetitions) {
                try dealer.send(bytes)
                guard let reply = try dealer.receive(), reply.count == bytes.count else { throw BenchFailure("echo lost bytes") }
            }
        }
        // The same bytes as one message each way (frames joined): libzmq's cost per byte.
        let transfer = (try echoRoundTrip(body + attachments.joined()) + echoRoundTrip(Array(expectedReply.joined()))) / 2
        return Parts(decode: decode, prepare: prepare, encode: encode, transfer: transfer)
    }

    /// Views of `frames`' bytes, valid inside `body`.
    private static func withViews<Result>(of frames: [[UInt8]], _ body: ([UnsafeRawBufferPointer]) throws -> Result) rethrows -> Result {
        guard let first = frames.first else { return try body([]) }
        return try first.withUnsafeBytes { view in
            try withViews(of: Array(frames.dropFirst())) { try body([view] + $0) }
        }
    }

    /// The median seconds of `repetitions.runs` timed calls after the warm-ups.
    private static func median(_ repetitions: Repetitions, _ body: () throws -> Void) throws -> Double {
        let clock = ContinuousClock()
        for _ in 0..<repetitions.warmUps { try body() }
        var samples: [Double] = []
        for _ in 0..<Swift.max(1, repetitions.runs) {
            let start = clock.now
            try body()
            samples.append(start.duration(to: clock.now).seconds)
        }
        return Statistics.median(samples)
    }
}
