extension PreparedLayout {
    /// Applies a batch update (LAYOUTS.md, Batch updates) all-or-nothing.
    ///
    /// Only the sections whose items changed are laid out again; the others keep their section-local
    /// frames, and the new section tops and rect index come from the rebuilt layout. The result is
    /// identical to `prepare` of the new input.
    ///
    /// - Returns: the new layout, and the batch in normalized form (what the `batch` event carries).
    /// - Throws: `invalid_update` at `updates[N]` for the first offending update; `invalid_request` at the
    ///   offending field of an inserted item or section; `too_large` when the result breaks the limits.
    public func applying(_ batch: BatchUpdate, options: PrepareOptions = PrepareOptions()) throws(LayoutError) -> (layout: PreparedLayout, batch: NormalizedBatch) {
        guard !batch.isEmpty else { return (self, NormalizedBatch()) }
        let plan = try BatchPlan(batch, for: input, limits: options.limits)
        var newInput = input
        newInput.sections = plan.sections(applyingTo: input.sections)
        let reuse = plan.sources.map { source -> SectionReuse in
            switch source {
            case .continued(let s, nil): return .unchanged(old: s)
            case .continued(let s, let edit?): return .changed(previous: s, firstAffectedItem: edit.firstAffectedItem)
            case .replaced: return .changed(previous: nil, firstAffectedItem: 0)
            }
        }
        return (rebuilt(as: newInput, reuse: reuse, options: options), plan.normalized)
    }
}
