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

        var frames: [SectionFrames?] = []
        frames.reserveCapacity(plan.sources.count)
        var invalidations: [SectionInvalidation] = []
        for (t, source) in plan.sources.enumerated() {
            switch source {
            case .continued(let s, nil):
                frames.append(sectionFrames[s])
            case .continued(let s, let edit?):
                frames.append(nil)
                invalidations.append(SectionInvalidation(section: t, previous: sectionFrames[s], firstAffectedItem: edit.firstAffectedItem))
            case .replaced:
                frames.append(nil)
                invalidations.append(SectionInvalidation(section: t, previous: nil, firstAffectedItem: 0))
            }
        }
        var segments = options.segments
        let changedItems = invalidations.reduce(0) { $0 + newInput.sections[$1.section].items.count }
        if changedItems < options.parallelThreshold { segments.isParallel = false }
        let relaidOut = Self.relayOut(invalidations, of: newInput, segments: segments)
        for (invalidation, sectionFrames) in zip(invalidations, relaidOut) {
            frames[invalidation.section] = sectionFrames
        }
        let layout = PreparedLayout(input: newInput, sectionFrames: frames.compactMap { $0 }, backgroundWidth: Self.backgroundWidth(of: newInput))
        return (layout, plan.normalized)
    }
}
