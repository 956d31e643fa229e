extension PreparedLayout {
    /// Applies a batch update (LAYOUTS.md, Batch updates) all-or-nothing.
    ///
    /// Only the sections whose items changed are laid out again, each from the last point before its
    /// first change that its layout can resume from exactly (`ResumableSectionLayout`); the others keep
    /// their section-local frames, and the rect index keeps its boxes up to the first element that
    /// changed. The result is identical to `prepare` of the new input with the same options, given that
    /// this layout was prepared with the same segment size.
    ///
    /// - Returns: the new layout, and the batch in normalized form (what the `batch` event carries).
    /// - Throws: `invalid_update` at `updates[N]` for the first offending update; `invalid_request` at the
    ///   offending field of an inserted item or section; `too_large` when the result breaks the limits.
    public func applying(_ batch: BatchUpdate, options: PrepareOptions = PrepareOptions()) throws(LayoutError) -> (layout: PreparedLayout, batch: NormalizedBatch) {
        let applied = try applyingBatch(batch, options: options)
        return (applied.layout, applied.batch)
    }

    /// `applying`, with what it laid out again.
    func applyingBatch(_ batch: BatchUpdate, options: PrepareOptions = PrepareOptions()) throws(LayoutError) -> AppliedBatch {
        guard !batch.isEmpty else { return AppliedBatch(layout: self, batch: NormalizedBatch(), sections: [:]) }
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
        let rebuilt = rebuilt(as: newInput, reuse: reuse, options: options)
        return AppliedBatch(layout: rebuilt.layout, batch: plan.normalized, sections: rebuilt.sections)
    }
}

/// What `applyingBatch` did.
struct AppliedBatch {
    let layout: PreparedLayout
    let batch: NormalizedBatch
    /// Each section laid out again, by its index after the batch.
    let sections: [Int: ResumedSection]

    /// For each section laid out again, the first cell it computed: the cells before it were copied.
    var firstComputedCells: [Int: Int] { sections.mapValues(\.firstComputedCell) }
    /// For each section laid out again, how many of its first cells kept their frames.
    var unchangedCells: [Int: Int] { sections.mapValues(\.unchangedCells) }
}
