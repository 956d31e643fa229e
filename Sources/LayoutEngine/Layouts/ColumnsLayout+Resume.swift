extension ColumnsLayout: ResumableSectionLayout {
    /// leftToRight and rightToLeft resume at the first affected item: an item's slot is its index mod n,
    /// so the items before it keep their slots and frames, and each slot's running bottom there is its
    /// last earlier item's `y + height`, read back from that frame exactly as it was summed.
    /// shortestFirst lays the section out whole: its next column depends on every column's bottom and on
    /// which columns are in use, which the frames do not give back cheaply. (Its cells before the first
    /// affected item still come out as they were, and the rect index keeps their boxes.)
    static func layOut(
        _ section: Section, parameters p: ColumnsParameters, context: SectionContext,
        resumingFrom previous: SectionFrames, at firstAffectedItem: Int
    ) -> ResumedSection {
        let count = section.items.count
        let first = Swift.min(firstAffectedItem, count, previous.cells.count)
        guard first > 0, p.placement != .shortestFirst else {
            // Placed in order, each item from the ones before it: the cells before the first affected one
            // are as they were.
            return .whole(layOut(section, parameters: p, context: context), keepingCellsBelow: first, previous: previous)
        }
        let geometry = ColumnsSectionGeometry(parameters: p, context: context, items: section.items)
        let top = geometry.top
        let placement = InTurnPlacement(grid: geometry.grid, count: count, rightToLeft: p.placement == .rightToLeft)
        let n = placement.columnCount
        let old = previous.cells
        let bottoms = (0..<placement.slotXs.count).map { slot -> Double in
            guard slot < first else { return top }
            // The slot's last item before `first`.
            let last = slot + (first - 1 - slot) / n * n
            return old.ys[last] + old.heights[last]
        }
        var tallest = top
        let cells = FrameColumns(count: count, copying: first, of: old, segments: context.segments) { frames in
            tallest = placeInTurn(
                into: frames, from: first, bottoms: bottoms, placement: placement,
                heights: geometry.heights, top: top, spacing: p.interitemSpacing
            )
        }
        return ResumedSection(frames: finish(cells, tallest: tallest, parameters: p, context: context), resumingAt: first)
    }
}
