extension JustifiedLayout: ResumableSectionLayout {
    /// Resumes at the last checkpoint below the first affected item. A checkpoint sits at a row start,
    /// every row before it placed; those rows were decided by the items up to that start at most (a row
    /// closed by rejecting an item looked at that item, the next row's first): all below the first
    /// affected item, so they, their frames and the state after them are as before the batch. (Not at the
    /// first affected item itself: a changed item there could have been rejected differently.) Past the
    /// checkpoint where `maxNumRows` stopped, every item is left out at the same place: those below the
    /// first affected item keep their frames. With no such checkpoint the section is laid out whole: the
    /// row holding the change may reach back to its top.
    static func layOut(
        _ section: Section, parameters p: JustifiedParameters, context: SectionContext,
        resumingFrom previous: SectionFrames, at firstAffectedItem: Int
    ) -> ResumedSection {
        let saved = previous.checkpoints
        let limit = Swift.min(firstAffectedItem, section.items.count, previous.cells.count)
        guard saved.width == RowStart.width, let n = saved.last(below: limit),
              let start = RowStart(item: saved.items[n], state: saved.state(at: n))
        else {
            return .whole(layOut(section, parameters: p, context: context))
        }
        let kept = start.rowCount >= (p.maxNumRows ?? Int.max) ? limit : start.item
        let restart = Restart(start: start, cells: previous.cells, keptCells: kept, checkpoints: saved.prefix(below: start.item))
        return ResumedSection(frames: layOut(section, parameters: p, context: context, from: restart), resumingAt: kept)
    }
}
