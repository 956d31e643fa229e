import LayoutEngine
import LayoutWire

/// Runs one body the way the daemon's worker does: decode, then the op against the engine, then encode
/// the reply; checking on the way what must hold for every input (`Invariants`).
///
/// What a request does to a kept layout runs against a small base layout from examples/jobs, chosen by
/// its `layout` key, so fuzzed `query`, `bounds`, `update` and `diff` bodies reach the engine.
struct Harness: Sendable {
    /// Small enough that no input takes long: the fuzzer explores shapes, not sizes.
    static let limits = InputLimits(maxItems: 2_000, maxSections: 64)
    /// Serial (no threads under the fuzzer), with small segments so that the segment and resume paths,
    /// which the daemon takes only above 65 536 items, run on small inputs too.
    static let options = PrepareOptions(limits: limits, segments: Segments(segmentSize: 16, isParallel: false), parallelThreshold: .max)

    let decoder = RequestDecoder()
    let bases = BaseLayouts(options: options)

    func run(_ body: UnsafeRawBufferPointer) {
        let request: Request
        do {
            request = try decoder.decode(body)
        } catch {
            Invariants.checkJSON(ReplyEncoder.failure(id: RequestDecoder.requestID(in: body), error: error), what: "the error reply")
            return
        }
        Invariants.checkStrictJSON(body)
        // The id an error reply would echo is the id the request carries.
        Invariants.check(RequestDecoder.requestID(in: body) == request.id, "requestID(in:) reads \(String(describing: RequestDecoder.requestID(in: body))), the decoder \(String(describing: request.id))")
        do {
            try perform(request)
        } catch {
            Invariants.checkJSON(ReplyEncoder.failure(id: request.id, error: error), what: "the error reply")
        }
    }

    private func perform(_ request: Request) throws(WireError) {
        let id = request.id
        switch request.operation {
        case .ping:
            Invariants.checkJSON(ReplyEncoder.success(id: id, result: PingResult(version: "0", uptimeSeconds: 1)), what: "the ping reply")

        case .layout(let job):
            let layout = try prepare(job.input)
            Invariants.checkQueries(on: layout, selection: job.attributes)
            Invariants.checkSelection(on: layout, job.attributes)
            Invariants.checkJSON(ReplyEncoder.success(id: id, result: LayoutResult(layout: layout, selection: job.attributes, format: job.format)), what: "the layout reply")

        case .prepare(let job):
            let layout = try prepare(job.input)
            Invariants.checkQueries(on: layout, selection: job.attributes)
            Invariants.checkSelection(on: layout, job.attributes)
            Invariants.checkJSON(ReplyEncoder.success(id: id, result: PrepareResult(key: job.layout, version: 1, layout: layout, selection: job.attributes, format: job.format)), what: "the prepare reply")

        case .query(let query):
            let base = bases.layout(forKey: query.layout)
            Invariants.checkQueries(on: base, selection: query.selection)
            Invariants.checkSelection(on: base, query.selection)
            Invariants.checkJSON(ReplyEncoder.success(id: id, result: QueryResult(version: 1, layout: base, selection: query.selection, format: query.format)), what: "the query reply")

        case .bounds(let change):
            let base = bases.layout(forKey: change.layout)
            guard base.isInvalidated(byBoundsChangeTo: change.bounds) else { return }
            var input = base.input
            input.bounds = change.bounds
            let layout = try prepare(input)
            Invariants.checkQueries(on: layout, selection: nil)
            Invariants.checkJSON(ReplyEncoder.success(id: id, result: BoundsResult(invalidated: true, version: 2, contentSize: layout.contentSize)), what: "the bounds reply")

        case .update(let update):
            let base = bases.layout(forKey: update.layout)
            let batch = try update.batch(over: base.input.parameters)
            let applied = try engine { () throws(LayoutError) in try base.applying(batch, options: Self.options) }
            try checkChange(id: id, key: update.layout, layout: applied.layout, batch: applied.batch)

        case .diff(let diff):
            let base = bases.layout(forKey: diff.layout)
            let sections = try diff.sections(over: base.input.parameters)
            let applied = try engine { () throws(LayoutError) in try base.applyingDiff(to: sections, options: Self.options) }
            // The batch a diff reports must be the one its update describes.
            let replayed = try engine { () throws(LayoutError) in try base.applying(applied.update, options: Self.options) }
            Invariants.check(replayed.batch == applied.batch, "the diff's update, applied, gives another batch than the diff")
            Invariants.checkDiffResult(applied.layout, sections: sections)
            try checkChange(id: id, key: diff.layout, layout: applied.layout, batch: applied.batch)

        case .drop(let drop):
            Invariants.checkJSON(ReplyEncoder.success(id: id, result: DropResult(layout: drop.layout, version: 1)), what: "the drop reply")

        case .list:
            break
        }
    }

    /// A batch's result must be what a full prepare of its input gives, and must encode.
    private func checkChange(id: RequestID?, key: String, layout: PreparedLayout, batch: NormalizedBatch) throws(WireError) {
        let full = try prepare(layout.input)
        Invariants.checkIdentical(layout, full)
        Invariants.checkQueries(on: layout, selection: nil)
        Invariants.checkJSON(ReplyEncoder.success(id: id, result: BatchResult(layout: key, version: 2, batch: batch, contentSize: layout.contentSize)), what: "the batch reply")
        let event = EventEncoder.batch(layout: key, version: 2, members: BatchEncoding.members(of: batch), contentSize: layout.contentSize)
        Invariants.checkJSON(event.body, what: "the batch event")
    }

    private func prepare(_ input: LayoutInput) throws(WireError) -> PreparedLayout {
        let layout = try engine { () throws(LayoutError) in try PreparedLayout.prepare(input, options: Self.options) }
        Invariants.checkFrames(of: layout)
        return layout
    }

    /// An engine call with its error turned into the wire error the daemon would answer.
    private func engine<Result>(_ body: () throws(LayoutError) -> Result) throws(WireError) -> Result {
        do {
            return try body()
        } catch {
            throw WireError(error)
        }
    }
}
