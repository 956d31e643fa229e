import LayoutEngine
import LayoutWire

/// `update` and `diff`: batch changes to a kept layout, applied all-or-nothing, re-laid out
/// incrementally by the engine, published as one `batch` event.
struct BatchOps {
    let handler: RequestHandler
    /// The layout the batch changes, in the caller's namespace.
    let key: LayoutKey

    func update(id: RequestID?, request: UpdateRequest) throws(WireError) -> (ReplyBody, KeptChange?) {
        let entry = try handler.existing(key)
        try check(request.ifVersion, against: entry)
        let batch = try request.batch(over: entry.layout.input.parameters)
        let applied: (layout: PreparedLayout, batch: NormalizedBatch)
        do {
            applied = try entry.layout.applying(batch, options: handler.options)
        } catch {
            throw WireError(error)
        }
        return try publish(id: id, from: entry, layout: applied.layout, batch: applied.batch)
    }

    func diff(id: RequestID?, request: DiffRequest) throws(WireError) -> (ReplyBody, KeptChange?) {
        let entry = try handler.existing(key)
        try check(request.ifVersion, against: entry)
        let sections = try request.sections(over: entry.layout.input.parameters)
        let applied: (layout: PreparedLayout, update: BatchUpdate, batch: NormalizedBatch)
        do {
            applied = try entry.layout.applyingDiff(to: sections, options: handler.options)
        } catch {
            throw WireError(error)
        }
        return try publish(id: id, from: entry, layout: applied.layout, batch: applied.batch)
    }

    private func check(_ ifVersion: Int?, against entry: LayoutStore.Entry) throws(WireError) {
        guard let ifVersion else { return }
        try RequestHandler.check(ifVersion, against: entry.version)
    }

    /// Keeps the new layout and publishes the batch (even an empty one: it still bumps the version,
    /// so that versions stay one per change a client asked for).
    private func publish(id: RequestID?, from entry: LayoutStore.Entry, layout: PreparedLayout, batch: NormalizedBatch) throws(WireError) -> (ReplyBody, KeptChange?) {
        handler.stats.recordItemsPrepared(layout.itemCount)
        // The event's members only when someone may receive them: encoding them is a good part of an
        // update's cost (docs/BENCHMARKS.md, "Where the daemon's time goes").
        let members = handler.audience?.isListening ?? true ? BatchEncoding.members(of: batch) : nil
        let version = try handler.keep(layout, key: key, cause: .batch(members), expectedVersion: entry.version)
        let body = ReplyBody.success(id: id, result: BatchResult(layout: key.name, version: version, batch: batch, contentSize: layout.contentSize))
        return (body, .changed(key, version: version, layout: layout))
    }
}
