extension WaterfallLayout: ResumableSectionLayout {
    /// Resumes at the last checkpoint at or before the first affected item: the column heights and the
    /// lowest slot bottom there depend on the items before it alone, and the checkpoint saved them exactly. A section without a
    /// usable checkpoint (none that early, too many columns, or fewer columns in use than before, which
    /// happens only below `columns` items) is laid out whole.
    static func layOut(
        _ section: Section, parameters p: WaterfallParameters, context: SectionContext,
        resumingFrom previous: SectionFrames, at firstAffectedItem: Int
    ) -> ResumedSection {
        let count = section.items.count
        let saved = previous.checkpoints
        let limit = Swift.min(firstAffectedItem, count, previous.cells.count)
        guard saved.width == columnsInUse(parameters: p, itemCount: count) + 1, let n = saved.last(below: limit + 1) else {
            // Placed in order, each item from the ones before it: the cells before the first affected one
            // are as they were.
            return .whole(layOut(section, parameters: p, context: context), keepingCellsBelow: firstAffectedItem, previous: previous)
        }
        let item = saved.items[n]
        // A full prepare saves no checkpoint at the item count itself.
        let restart = Restart(item: item, cells: previous.cells, state: saved.state(at: n), checkpoints: saved.prefix(below: Swift.min(item + 1, count)))
        return ResumedSection(frames: layOut(section, parameters: p, context: context, from: restart), resumingAt: item)
    }
}
