/// CollectionViewFlowLayout (LAYOUTS.md `flow`).
public struct FlowParameters: Hashable, Sendable {
    /// What happens to a flow row once it is filled.
    public enum RowTransform: String, Hashable, Sendable, CaseIterable {
        case none
        case center
        case fill
    }

    /// Between items of a row, and between flow rows.
    public var interitemSpacing: Double = 8
    /// Between two span rows; nil means `interitemSpacing`.
    public var interspanSpacing: Double?
    /// Before a span row that follows a flow row; nil means `interitemSpacing`.
    public var spanGroupSpacingBefore: Double?
    /// Before a flow row that follows a span row; nil means `interitemSpacing`.
    public var spanGroupSpacingAfter: Double?
    public var defaultItemSize: Size = Size(width: 60, height: 60)
    public var sectionInsets: Insets = .zero
    public var rowTransform: RowTransform = .none
    /// 0 means no cap.
    public var fillMaxScale: Double = 0
    public var headerHeight: Double = 0
    public var footerHeight: Double = 0
    public init() {}

    public var resolvedInterspanSpacing: Double { interspanSpacing ?? interitemSpacing }
    public var resolvedSpanGroupSpacingBefore: Double { spanGroupSpacingBefore ?? interitemSpacing }
    public var resolvedSpanGroupSpacingAfter: Double { spanGroupSpacingAfter ?? interitemSpacing }
}
