/// How a section after a batch relates to the layout before it.
enum SectionReuse: Sendable {
    /// The old section at this index, with the same items, sizing and frame: its frames are kept.
    case unchanged(old: Int)
    /// Laid out again; `previous` is the old section it continues (nil for one given whole), and items
    /// below `firstAffectedItem` are the same, in the same order, as before.
    case changed(previous: Int?, firstAffectedItem: Int)
}

extension PreparedLayout {
    /// The layout of `newInput`, keeping this layout's frames for the sections `reuse` marks unchanged
    /// and laying out the others again; identical to `prepare(newInput)`.
    func rebuilt(as newInput: LayoutInput, reuse: [SectionReuse], options: PrepareOptions) -> PreparedLayout {
        var frames: [SectionFrames?] = []
        frames.reserveCapacity(reuse.count)
        var invalidations: [SectionInvalidation] = []
        for (t, section) in reuse.enumerated() {
            switch section {
            case .unchanged(let s):
                frames.append(sectionFrames[s])
            case let .changed(previous, firstAffectedItem):
                frames.append(nil)
                invalidations.append(SectionInvalidation(section: t, previous: previous.map { sectionFrames[$0] }, firstAffectedItem: firstAffectedItem))
            }
        }
        var segments = options.segments
        let changedItems = invalidations.reduce(0) { $0 + newInput.sections[$1.section].items.count }
        if changedItems < options.parallelThreshold { segments.isParallel = false }
        let relaidOut = Self.relayOut(invalidations, of: newInput, segments: segments)
        for (invalidation, sectionFrames) in zip(invalidations, relaidOut) {
            frames[invalidation.section] = sectionFrames
        }
        return PreparedLayout(input: newInput, sectionFrames: frames.compactMap { $0 }, backgroundWidth: Self.backgroundWidth(of: newInput))
    }
}
