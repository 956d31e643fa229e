/// CollectionViewListLayout (LAYOUTS.md `list`).
public struct ListParameters: Hashable, Sendable {
    public var itemHeight: Double = 36
    /// Between items only.
    public var spacing: Double = 0
    public var sectionInsets: Insets = .zero
    public var headerHeight: Double = 0
    public var footerHeight: Double = 0
    public var insetSupplementaryViews: Bool = false
    public init() {}
}
