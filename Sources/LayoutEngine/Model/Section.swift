/// One section of a layout input.
public struct Section: Hashable, Sendable {
    public var items: ItemSizes
    /// Optional item identities (used by `diff`), one per item when present.
    public var ids: [ItemID]?
    /// The section's own header height; overrides `parameters` and the spec.
    public var headerHeight: Double?
    /// The section's own footer height; overrides `parameters` and the spec.
    public var footerHeight: Double?
    /// Per-section parameters: the spec's parameters with this section's overrides already merged in.
    /// Must be the same layout kind as the spec.
    public var parameters: LayoutParameters?

    public init(items: ItemSizes, ids: [ItemID]? = nil, headerHeight: Double? = nil, footerHeight: Double? = nil, parameters: LayoutParameters? = nil) {
        self.items = items
        self.ids = ids
        self.headerHeight = headerHeight
        self.footerHeight = footerHeight
        self.parameters = parameters
    }

    /// A section of `count` items with default sizing.
    public init(count: Int, headerHeight: Double? = nil, footerHeight: Double? = nil) {
        self.init(items: ItemSizes(count: count), headerHeight: headerHeight, footerHeight: footerHeight)
    }
}
