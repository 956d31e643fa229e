extension PreparedLayout {
    /// Turns the layout's sections into `sections` by identity (`Diff.batch`) and applies that batch.
    ///
    /// `sections` are validated as `prepare` would validate them (errors at `sections[s]…`), so a bad
    /// request never reaches the batch. The new layout is built from `sections` themselves, not by
    /// replaying the batch: a diff's batch is valid by construction, so the batch checks `applying` runs
    /// for a client's batch are skipped, and the batch only decides which sections are laid out again
    /// (those it touches) and what subscribers are told.
    ///
    /// - Returns: the new layout, the batch as computed and the batch in normalized form.
    public func applyingDiff(to sections: [Section], options: PrepareOptions = PrepareOptions()) throws(LayoutError) -> (layout: PreparedLayout, update: BatchUpdate, batch: NormalizedBatch) {
        var newInput = input
        newInput.sections = sections
        try newInput.validate(limits: options.limits)
        let update = try Diff.batch(from: input.sections, to: sections)
        guard !update.isEmpty else { return (self, update, NormalizedBatch()) }
        let reuse = Self.reuse(by: update, oldSectionCount: input.sections.count, newSectionCount: sections.count)
        return (rebuilt(as: newInput, reuse: reuse, options: options).layout, update, NormalizedBatch(listing: update.operations))
    }

    /// What a diff's batch leaves of each section: sections are matched by position, so new section t
    /// continues old section t unless it is inserted or reloaded; item updates name their own section.
    private static func reuse(by update: BatchUpdate, oldSectionCount: Int, newSectionCount: Int) -> [SectionReuse] {
        var firstAffected = [Int?](repeating: nil, count: newSectionCount)
        var replaced = [Bool](repeating: false, count: newSectionCount)
        func affect(_ path: ItemPath) {
            firstAffected[path.section] = Swift.min(firstAffected[path.section] ?? path.item, path.item)
        }
        for operation in update.operations {
            switch operation {
            case .delete(let path), .insert(let path, _, _), .reload(let path, _, _): affect(path)
            case let .move(from, to):
                affect(from)
                affect(to)
            case .insertSection(let t, _), .reloadSection(let t, _): replaced[t] = true
            case .deleteSection, .moveSection: break
            }
        }
        return (0..<newSectionCount).map { t in
            if replaced[t] || t >= oldSectionCount { return .changed(previous: nil, firstAffectedItem: 0) }
            guard let first = firstAffected[t] else { return .unchanged(old: t) }
            return .changed(previous: t, firstAffectedItem: first)
        }
    }
}
