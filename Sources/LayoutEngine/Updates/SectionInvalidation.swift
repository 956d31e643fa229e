/// What a batch changed in one section that must be laid out again.
struct SectionInvalidation: Sendable {
    /// The section's index after the batch.
    var section: Int
    /// Its frames before the batch; nil for a section given whole (inserted or reloaded).
    var previous: SectionFrames?
    /// Items below this index have the same sizing and order as before the batch.
    var firstAffectedItem: Int
}

/// A section laid out again, and how much of it was computed.
struct ResumedSection: Sendable {
    var frames: SectionFrames
    /// Cells below this index have the frames they had before the batch, bit for bit (the rect index
    /// keeps their boxes).
    var unchangedCells: Int
    /// Cells from this index on were computed; the ones before it were copied from the previous frames.
    var firstComputedCell: Int

    /// A section computed from `firstComputedCell` on, with the cells before it copied.
    init(frames: SectionFrames, resumingAt firstComputedCell: Int) {
        self.init(frames: frames, unchangedCells: firstComputedCell, firstComputedCell: firstComputedCell)
    }

    init(frames: SectionFrames, unchangedCells: Int, firstComputedCell: Int) {
        self.frames = frames
        self.unchangedCells = unchangedCells
        self.firstComputedCell = firstComputedCell
    }

    /// A section laid out from its top.
    static func whole(_ frames: SectionFrames) -> ResumedSection {
        ResumedSection(frames: frames, resumingAt: 0)
    }

    /// A section laid out from its top by a layout that places items in order, each from the items
    /// before it alone: the cells below the first affected item come out as they were.
    static func whole(_ frames: SectionFrames, keepingCellsBelow firstAffectedItem: Int, previous: SectionFrames) -> ResumedSection {
        let unchanged = Swift.max(0, Swift.min(firstAffectedItem, frames.cells.count, previous.cells.count))
        return ResumedSection(frames: frames, unchangedCells: unchanged, firstComputedCell: 0)
    }
}

/// A layout that can lay a section out again from part way through, keeping the frames before that point.
///
/// Given the section after a batch, its frames before the batch and the first item the batch affected
/// (every item below it has the same sizing and order), the result must be bit-identical to
/// `layOut(_:parameters:context:)` of the same section with the same context, checkpoints included.
/// A layout restarts at a point it can reproduce exactly (at or before the first affected item where
/// frames depend on the sizing; anywhere for mosaic and columnFlow, whose frames depend on the index) and
/// lays the section out whole when it has none. Either way it reports how many leading cells kept their
/// frames, which the rect index then keeps.
///
/// The previous frames must come from a layout with the same parameters, widths and segment size (as a
/// layout and its update always are).
protocol ResumableSectionLayout: SectionLayout {
    static func layOut(
        _ section: Section, parameters: Parameters, context: SectionContext,
        resumingFrom previous: SectionFrames, at firstAffectedItem: Int
    ) -> ResumedSection
}

extension PreparedLayout {
    /// The invalidated sections of `input` laid out again, in the order of `invalidations`; concurrently
    /// when `segments` allows.
    static func relayOut(_ invalidations: [SectionInvalidation], of input: LayoutInput, segments: Segments) -> [ResumedSection] {
        let results = ResultSlots<ResumedSection>(count: invalidations.count)
        segments.forEach(invalidations.count) { slot in
            results[slot] = relayOut(invalidations[slot], of: input, segments: segments)
        }
        return results.collect()
    }

    /// The section in the input's direction. A resumed right-to-left section copies its kept cells from
    /// the mirrored frames and computes the rest left to right; only those are mirrored, which gives the
    /// mirrored frames of a full prepare bit for bit.
    private static func relayOut(_ invalidation: SectionInvalidation, of input: LayoutInput, segments: Segments) -> ResumedSection {
        var section = relayOutLeftToRight(invalidation, of: input, segments: segments)
        if input.layoutDirection == .rightToLeft {
            section.frames.mirror(inWidth: input.mirrorWidth, fromCell: section.firstComputedCell, segments: segments)
        }
        return section
    }

    private static func relayOutLeftToRight(_ invalidation: SectionInvalidation, of input: LayoutInput, segments: Segments) -> ResumedSection {
        let index = invalidation.section
        guard let previous = invalidation.previous else {
            return .whole(layOutSectionLeftToRight(index, of: input, segments: segments, top: 0))
        }
        let section = input.sections[index]
        // A section that rounds against its top most often keeps it (the batch changed only this
        // section); when it moved, `settleRoundingTops` lays it out again.
        let context = SectionContext(section: index, of: input, segments: segments, top: previous.roundingTop ?? 0)
        let first = invalidation.firstAffectedItem
        switch input.parameters(forSection: index) {
        case .columnFlow(let p): return ColumnFlowLayout.layOut(section, parameters: p, context: context, resumingFrom: previous, at: first)
        case .mosaic(let p): return MosaicLayout.layOut(section, parameters: p, context: context, resumingFrom: previous, at: first)
        case .waterfall(let p): return WaterfallLayout.layOut(section, parameters: p, context: context, resumingFrom: previous, at: first)
        case .list(let p): return ListLayout.layOut(section, parameters: p, context: context, resumingFrom: previous, at: first)
        case .columns(let p): return ColumnsLayout.layOut(section, parameters: p, context: context, resumingFrom: previous, at: first)
        case .flow(let p): return FlowLayout.layOut(section, parameters: p, context: context, resumingFrom: previous, at: first)
        case .justified(let p): return JustifiedLayout.layOut(section, parameters: p, context: context, resumingFrom: previous, at: first)
        }
    }
}
