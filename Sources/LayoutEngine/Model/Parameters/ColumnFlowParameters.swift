/// Apple's ColumnFlowLayout (LAYOUTS.md `columnFlow`).
public struct ColumnFlowParameters: Hashable, Sendable {
    public var minColumnWidth: Double = 300
    public var cellHeight: Double = 70
    /// The collection view's layout margins.
    public var margins: Insets = .zero
    public var interitemSpacing: Double = 10
    public var lineSpacing: Double = 10
    public var headerHeight: Double = 0
    public var footerHeight: Double = 0
    public init() {}
}
