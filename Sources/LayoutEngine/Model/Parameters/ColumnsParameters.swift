/// CollectionViewColumnLayout (LAYOUTS.md `columns`).
public struct ColumnsParameters: Hashable, Sendable {
    /// Which column an item goes to.
    public enum Placement: String, Hashable, Sendable, CaseIterable {
        case leftToRight
        case rightToLeft
        case shortestFirst
    }

    /// Values below 1 are clamped to 1, as the framework does.
    public var columnCount: Int = 2
    public var columnSpacing: Double = 8
    public var interitemSpacing: Double = 8
    public var itemHeight: Double = 50
    public var sectionInsets: Insets = Insets(all: 8)
    public var headerHeight: Double = 0
    public var footerHeight: Double = 0
    public var insetSupplementaryViews: Bool = false
    public var placement: Placement = .leftToRight
    public init() {}
}
