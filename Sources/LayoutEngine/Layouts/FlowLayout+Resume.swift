extension FlowLayout: ResumableSectionLayout {
    /// Resumes at the last checkpoint before the first affected item. A checkpoint sits at a row start
    /// with the row before it finished; below the first affected item the same items make the same rows,
    /// so that item still starts a row after the batch, with the same state before it. (Not at the first
    /// affected item itself: a changed item there may join the row before.) With no such checkpoint the
    /// section is laid out whole.
    static func layOut(
        _ section: Section, parameters p: FlowParameters, context: SectionContext,
        resumingFrom previous: SectionFrames, at firstAffectedItem: Int
    ) -> ResumedSection {
        let saved = previous.checkpoints
        let limit = Swift.min(firstAffectedItem, section.items.count, previous.cells.count)
        guard saved.width == RowStart.width, let n = saved.last(below: limit),
              let start = RowStart(item: saved.items[n], state: saved.state(at: n))
        else {
            return .whole(layOut(section, parameters: p, context: context))
        }
        let restart = Restart(start: start, cells: previous.cells, checkpoints: saved.prefix(below: start.item))
        return ResumedSection(frames: layOut(section, parameters: p, context: context, from: restart), resumingAt: start.item)
    }
}
