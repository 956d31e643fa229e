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
    /// What a batch needs to resume laying the section out part way through (flow, waterfall and
    /// justified keep some).
    var checkpoints: SectionCheckpoints
    /// The section top (content coordinates) its frames were made integral against, for a layout that
    /// rounds where frames are drawn (flow's `center`); nil when the frames do not depend on the top.
    var roundingTop: Double?
    /// Counts a layout reports about its own placement (only `justified` has any).
    public var placement: PlacementCounts = PlacementCounts()

    public init(cells: FrameColumns, header: Rect?, footer: Rect?, height: Double) {
        self.init(cells: cells, header: header, footer: footer, height: height, checkpoints: .none)
    }

    init(
        cells: FrameColumns, header: Rect?, footer: Rect?, height: Double, checkpoints: SectionCheckpoints,
        roundingTop: Double? = nil, placement: PlacementCounts = PlacementCounts()
    ) {
        self.cells = cells
        self.header = header
        self.footer = footer
        self.height = height
        self.checkpoints = checkpoints
        self.roundingTop = roundingTop
        self.placement = placement
    }
}

extension SectionFrames {
    /// Mirrors the section inside `0...width` (LAYOUTS.md, Layout direction): its header, its footer, and
    /// its cells from `firstCell` on (the cells before it are already mirrored: copied from a mirrored
    /// layout). Heights and checkpoints hold no x and stay as they are.
    mutating func mirror(inWidth width: Double, fromCell firstCell: Int, segments: Segments) {
        header = header?.mirrored(inWidth: width)
        footer = footer?.mirrored(inWidth: width)
        cells.mirror(inWidth: width, from: firstCell, segments: segments)
    }
}

/// What a section's layout says about how its items were placed, for the reply's `counts`.
public struct PlacementCounts: Hashable, Sendable {
    /// Items on a last, unfilled row that was laid out (flickr's `widowCount`).
    public var widowCount: Int
    /// Items the layout left out: they keep a zero-size frame (justified's `maxNumRows`, `showWidows`).
    public var hiddenItemCount: Int

    public init(widowCount: Int = 0, hiddenItemCount: Int = 0) {
        self.widowCount = widowCount
        self.hiddenItemCount = hiddenItemCount
    }

    public static func + (a: PlacementCounts, b: PlacementCounts) -> PlacementCounts {
        PlacementCounts(widowCount: a.widowCount + b.widowCount, hiddenItemCount: a.hiddenItemCount + b.hiddenItemCount)
    }
}
