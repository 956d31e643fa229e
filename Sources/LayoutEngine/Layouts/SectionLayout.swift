/// One layout algorithm (one file per layout, named after it).
///
/// A layout places one section at a time in section-local coordinates (y 0 is the section's top,
/// where its header goes); the preparer stacks sections and may run them in parallel. A layout may
/// split a large section into segments and run them through `Segments`, provided the result is
/// bit-identical to running the same segments one after another.
protocol SectionLayout {
    associatedtype Parameters: Sendable
    static func layOut(_ section: Section, parameters: Parameters, context: SectionContext) -> SectionFrames
}

/// What a section layout needs beyond its section and parameters.
struct SectionContext: Sendable {
    /// `bounds.width`.
    var boundsWidth: Double
    /// `W = bounds.width - contentInsets.left - contentInsets.right`.
    var contentWidth: Double
    /// The resolved header height; the header exists iff > 0.
    var headerHeight: Double
    /// The resolved footer height; the footer exists iff > 0.
    var footerHeight: Double
    /// How a layout may split large item ranges.
    var segments: Segments
    /// The section's top in content coordinates. Frames are stored section-local, but a layout that
    /// makes frames integral (flow's `center`) must round them where they are drawn, in content
    /// coordinates; such a layout records this top in `SectionFrames.roundingTop`.
    var top: Double = 0

    var hasHeader: Bool { headerHeight > 0 }
    var hasFooter: Bool { footerHeight > 0 }
}

extension SectionContext {
    /// The context of section `index` of `input`, as `PreparedLayout.layOutSection` builds it.
    init(section index: Int, of input: LayoutInput, segments: Segments, top: Double = 0) {
        self.init(
            boundsWidth: input.bounds.width,
            contentWidth: input.contentWidth,
            headerHeight: input.headerHeight(forSection: index),
            footerHeight: input.footerHeight(forSection: index),
            segments: segments,
            top: top
        )
    }
}
