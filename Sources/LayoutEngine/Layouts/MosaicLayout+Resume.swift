extension MosaicLayout: ResumableSectionLayout {
    /// A cell's frame depends on its index and, through the style of the last segment only, on the item
    /// count; never on the sizing (`MosaicSegmentPattern`). So every cell outside the last segment of both
    /// the old and the new count keeps its frame whatever the batch did: only the segments from the
    /// earlier of the two last segments on are computed (a reload or a same-count move computes just the
    /// last segment).
    static func layOut(
        _ section: Section, parameters p: MosaicParameters, context: SectionContext,
        resumingFrom previous: SectionFrames, at firstAffectedItem: Int
    ) -> ResumedSection {
        let count = section.items.count
        let oldCount = previous.cells.count
        guard count > 0, oldCount > 0 else { return .whole(layOut(section, parameters: p, context: context)) }
        let lastSegment = Swift.min(
            MosaicSegmentPattern(itemCount: oldCount).segmentCount,
            MosaicSegmentPattern(itemCount: count).segmentCount
        ) - 1
        let kept = MosaicSegmentPattern.firstItem(ofSegment: lastSegment)
        let frames = layOut(section, parameters: p, context: context, keeping: kept, of: previous.cells)
        return ResumedSection(frames: frames, firstRecomputedItem: kept)
    }
}
