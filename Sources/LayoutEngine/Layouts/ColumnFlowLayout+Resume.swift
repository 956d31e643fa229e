extension ColumnFlowLayout: ResumableSectionLayout {
    /// A cell's frame is a closed form of its index alone (the sizing is not read), so every cell the
    /// section had before the batch and still has keeps its frame whatever the batch did; only the cells
    /// past the old count are computed.
    static func layOut(
        _ section: Section, parameters p: ColumnFlowParameters, context: SectionContext,
        resumingFrom previous: SectionFrames, at firstAffectedItem: Int
    ) -> ResumedSection {
        let kept = Swift.min(previous.cells.count, section.items.count)
        let frames = layOut(section, parameters: p, context: context, keeping: kept, of: previous.cells)
        return ResumedSection(frames: frames, firstRecomputedItem: kept)
    }
}
