/// How a section after a batch relates to the layout before it.
enum SectionReuse: Sendable {
    /// The old section at this index, with the same items, sizing and frame: its frames are kept.
    case unchanged(old: Int)
    /// Laid out again; `previous` is the old section it continues (nil for one given whole), and items
    /// below `firstAffectedItem` are the same, in the same order, as before.
    case changed(previous: Int?, firstAffectedItem: Int)
}

extension PreparedLayout {
    /// The layout of `newInput`, keeping this layout's frames for the sections `reuse` marks unchanged,
    /// laying out the others again (from part way through where their layout can resume), and keeping
    /// the rect index's boxes up to the first element that changed; identical to `prepare(newInput)`.
    ///
    /// - Returns: the layout, and each section laid out again by its index in `newInput`.
    func rebuilt(as newInput: LayoutInput, reuse: [SectionReuse], options: PrepareOptions) -> (layout: PreparedLayout, sections: [Int: ResumedSection]) {
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
        var resumed: [Int: ResumedSection] = [:]
        for (invalidation, section) in zip(invalidations, Self.relayOut(invalidations, of: newInput, segments: segments)) {
            frames[invalidation.section] = section.frames
            resumed[invalidation.section] = section
        }
        var newFrames = frames.compactMap { $0 }
        for index in Self.settleRoundingTops(of: &newFrames, in: newInput, segments: segments) {
            resumed[index] = .whole(newFrames[index])
        }
        let layout = PreparedLayout(
            input: newInput, sectionFrames: newFrames, backgroundWidth: Self.backgroundWidth(of: newInput),
            reusingIndexOf: index, unchangedElements: unchangedElements(reuse: reuse, resumed: resumed, newFrames: newFrames)
        )
        return (layout, resumed)
    }

    /// How many elements, in layout order, the new layout shares with this one, frames and section tops
    /// alike: every section up to the first one that moved or was laid out again, and in that one (if it
    /// continues the old section at the same index) its header and its unchanged cells.
    private func unchangedElements(reuse: [SectionReuse], resumed: [Int: ResumedSection], newFrames: [SectionFrames]) -> Int {
        for (t, section) in reuse.enumerated() {
            // Sections before `t` are the same, so section `t` starts at the same ordinal and top.
            switch section {
            case .unchanged(let s) where s == t:
                continue
            case .changed(let previous?, _) where previous == t:
                let kept = resumed[t]?.unchangedCells ?? 0
                guard kept > 0 else { return ordinalStarts[t] }
                // A continued section keeps its header (its parameters and heights are the old ones).
                return ordinalStarts[t] + (newFrames[t].header == nil ? 0 : 1) + kept
            default:
                return ordinalStarts[t]
            }
        }
        // Every section kept its place: the new layout ends where its last section did.
        return reuse.count < ordinalStarts.count ? ordinalStarts[reuse.count] : elementCount
    }
}
