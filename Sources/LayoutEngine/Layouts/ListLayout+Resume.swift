extension ListLayout: ResumableSectionLayout {
    /// Restarts at the segment holding the first affected item.
    ///
    /// A cell's y is `local + start` of its segment (see `layOut`), so a cell depends on the items of its
    /// own segment before it and on the extents of the segments before that: every segment before the
    /// restarted one is the same as before, and so is the restarted segment's start. That start is read
    /// back from the segment's first cell, written as `0 + start`, which is `start` itself (`start` is
    /// never -0 past segment 0: it adds an extent summed from +0).
    static func layOut(
        _ section: Section, parameters p: ListParameters, context: SectionContext,
        resumingFrom previous: SectionFrames, at firstAffectedItem: Int
    ) -> ResumedSection {
        let count = section.items.count
        let segments = context.segments
        // The restarted segment's first cell must have existed before, to read its start from.
        let anchor = Swift.min(firstAffectedItem, count, previous.cells.count - 1)
        let firstSegment = anchor < 0 ? 0 : anchor / segments.segmentSize
        guard firstSegment > 0 else {
            // Segment 0 starts at the items' top: its cells before the first affected one are as they were.
            return .whole(layOut(section, parameters: p, context: context), keepingCellsBelow: firstAffectedItem, previous: previous)
        }
        let first = firstSegment * segments.segmentSize
        let start = previous.cells.ys[first]
        let geometry = ListSectionGeometry(parameters: p, context: context)
        let cells = FrameColumns(count: count, copying: first, of: previous.cells, segments: context.segments) { frames in
            placeSegments(from: firstSegment, start: start, of: section.items, geometry: geometry, segments: segments, into: frames)
        }
        return ResumedSection(frames: finish(cells, geometry: geometry, context: context), resumingAt: first)
    }
}
