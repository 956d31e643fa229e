/// The Pinterest-style layout (LAYOUTS.md `waterfall`).
public struct WaterfallParameters: Hashable, Sendable {
    public var columns: Int = 2
    public var cellPadding: Double = 6
    /// The content height of an item with no sizing.
    public var itemHeight: Double = 100
    public var headerHeight: Double = 0
    public var footerHeight: Double = 0
    public init() {}
}
