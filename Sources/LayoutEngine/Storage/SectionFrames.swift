/// One laid-out section in section-local coordinates: y 0 is the section's top.
///
/// Sections are laid out apart and placed by a per-section offset, so they can run in parallel,
/// and a change inside one section moves later sections without touching their frames.
public struct SectionFrames: Hashable, Sendable {
    public var cells: FrameColumns
    public var header: Rect?
    public var footer: Rect?
    /// Where the next section starts, relative to this one's top; never less than any element's maxY.
    public var height: Double

    public init(cells: FrameColumns, header: Rect?, footer: Rect?, height: Double) {
        self.cells = cells
        self.header = header
        self.footer = footer
        self.height = height
    }
}
