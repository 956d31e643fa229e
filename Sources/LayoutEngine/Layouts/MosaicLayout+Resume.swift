extension MosaicLayout: ResumableSectionLayout {
    /// A cell's frame depends on its index and, through the style of the last segment only, on the item
    /// count; never on the sizing (`MosaicSegmentPattern`). So every cell outside the last segment of both
    /// the old and the new count keeps its frame whatever the batch did, and the rect index keeps their
    /// boxes. The cells themselves are all computed again: a closed form written once costs less than
    /// reading the old frame and writing it (a copy moves twice the bytes).
    static func layOut(
        _ section: Section, parameters p: MosaicParameters, context: SectionContext,
        resumingFrom previous: SectionFrames, at firstAffectedItem: Int
    ) -> ResumedSection {
        let count = section.items.count
        let oldCount = previous.cells.count
        let frames = layOut(section, parameters: p, context: context)
        guard count > 0, oldCount > 0 else { return .whole(frames) }
        let lastSegment = Swift.min(
            MosaicSegmentPattern(itemCount: oldCount).segmentCount,
            MosaicSegmentPattern(itemCount: count).segmentCount
        ) - 1
        return ResumedSection(frames: frames, unchangedCells: MosaicSegmentPattern.firstItem(ofSegment: lastSegment), firstComputedCell: 0)
    }
}
