extension ColumnFlowLayout: ResumableSectionLayout {
    /// A cell's frame is a closed form of its index alone (the sizing is not read), so every cell the
    /// section had before the batch and still has keeps its frame whatever the batch did, and the rect
    /// index keeps their boxes. The cells themselves are all computed again: a closed form written once
    /// costs less than reading the old frame and writing it (a copy moves twice the bytes).
    static func layOut(
        _ section: Section, parameters p: ColumnFlowParameters, context: SectionContext,
        resumingFrom previous: SectionFrames, at firstAffectedItem: Int
    ) -> ResumedSection {
        let unchanged = Swift.min(previous.cells.count, section.items.count)
        return ResumedSection(frames: layOut(section, parameters: p, context: context), unchangedCells: unchanged, firstComputedCell: 0)
    }
}
