extension PreparedLayout {
    /// Applies a batch update (LAYOUTS.md, Batch updates) all-or-nothing.
    ///
    /// Only the sections whose items changed are laid out again, and those from the last point before
    /// their first change that the layout can resume from exactly (`ResumableSectionLayout`); the other
    /// sections keep their section-local frames, and the rect index keeps its boxes up to the first
    /// element that changed. The result is identical to `prepare` of the new input with the same options,
    /// given that this layout was prepared with the same segment size.
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
        var resumed: [Int: ResumedSection] = [:]
        for (invalidation, section) in zip(invalidations, relaidOut) {
            frames[invalidation.section] = section.frames
            resumed[invalidation.section] = section
        }
        let newFrames = frames.compactMap { $0 }
        let layout = PreparedLayout(
            input: newInput, sectionFrames: newFrames, backgroundWidth: Self.backgroundWidth(of: newInput),
            reusingIndexOf: index, unchangedElements: unchangedElements(before: plan, resumed: resumed, newFrames: newFrames)
        )
        return AppliedBatch(layout: layout, batch: plan.normalized, sections: resumed)
    }

    /// How many elements, in layout order, the new layout shares with this one, frames and section tops
    /// alike: every section up to the first one the batch moved, replaced or laid out again, and in that
    /// one (if it continues the same section at the same index) its header and its unchanged cells.
    private func unchangedElements(before plan: BatchPlan, resumed: [Int: ResumedSection], newFrames: [SectionFrames]) -> Int {
        for (t, source) in plan.sources.enumerated() {
            // Sections before `t` are the same, so section `t` starts at the same ordinal and top.
            guard case .continued(let s, let edit) = source, s == t else { return ordinalStarts[t] }
            guard edit != nil else { continue }
            let kept = resumed[t]?.unchangedCells ?? 0
            guard kept > 0 else { return ordinalStarts[t] }
            return ordinalStarts[t] + (newFrames[t].header == nil ? 0 : 1) + kept
        }
        return elementCount
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
