/// What a batch changed in one section that must be laid out again: the seam for re-laying out only
/// from the first affected item.
///
/// Today every invalidated section is laid out whole (`PreparedLayout.relayOut`). A layout that can
/// resume (list from the stack height at `firstAffectedItem`, column layouts from the column heights
/// there, flow from the start of the row holding it, mosaic from the segment holding it, counting from
/// the end where the item count changes the last segments' styles) will conform to
/// `ResumableSectionLayout` and be dispatched to from `relayOut`, keeping `previous` below that point.
struct SectionInvalidation: Sendable {
    /// The section's index after the batch.
    var section: Int
    /// Its frames before the batch; nil for a section given whole (inserted or reloaded).
    var previous: SectionFrames?
    /// Items below this index have the same sizing and order as before the batch.
    var firstAffectedItem: Int
}

/// A layout that can lay out a section again starting at an item, reusing the frames before it.
///
/// The result must be bit-identical to `layOut(_:parameters:context:)` on the same section.
/// No layout conforms yet.
protocol ResumableSectionLayout: SectionLayout {
    static func layOut(_ section: Section, parameters: Parameters, context: SectionContext, resumingFrom previous: SectionFrames, at firstAffectedItem: Int) -> SectionFrames
}

extension PreparedLayout {
    /// The frames of the invalidated sections of `input`, in the order of `invalidations`.
    static func relayOut(_ invalidations: [SectionInvalidation], of input: LayoutInput, segments: Segments) -> [SectionFrames] {
        // Resumption goes here: per layout kind, `ResumableSectionLayout.layOut(..., resumingFrom:at:)`
        // when `previous` is set and `firstAffectedItem > 0`.
        layOutSections(of: input, indices: invalidations.map(\.section), segments: segments)
    }
}
