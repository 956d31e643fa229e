/// How one item asks to be sized; every field is optional (LAYOUTS.md, Common model).
public struct ItemSizing: Hashable, Sendable {
    /// `h`: a fixed height, or the additive part when `aspectRatio` is also given.
    public var height: Double?
    /// `r = width / height` (photo convention); must be > 0.
    public var aspectRatio: Double?
    /// The width of a flow item.
    public var width: Double?
    /// A flow span item: alone on its row, full row width.
    public var isSpan: Bool

    public init(height: Double? = nil, aspectRatio: Double? = nil, width: Double? = nil, isSpan: Bool = false) {
        self.height = height
        self.aspectRatio = aspectRatio
        self.width = width
        self.isSpan = isSpan
    }

    /// An item with default sizing.
    public static let unspecified = ItemSizing()

    /// The height of an item given width `w`: r and h → w / r + h; r → w / r; h → h; neither → `defaultHeight`.
    @inlinable
    public func height(forWidth w: Double, defaultHeight: Double) -> Double {
        switch (aspectRatio, height) {
        case let (r?, h?): return w / r + h
        case let (r?, nil): return w / r
        case let (nil, h?): return h
        case (nil, nil): return defaultHeight
        }
    }
}
