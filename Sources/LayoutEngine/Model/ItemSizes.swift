/// The sizing of a section's items, stored by column so that 10^7 items cost a few flat arrays
/// rather than an object each.
///
/// A column is either empty (no item sets that field) or holds exactly `count` values. Inside a column,
/// NaN marks "not set for this item": input validation rejects NaN at the edge, so it can never be a
/// real value here, and a sentinel keeps a column at 8 bytes per item where `Double?` would take 16.
public struct ItemSizes: Hashable, Sendable {
    public private(set) var count: Int
    public private(set) var heights: [Double]
    public private(set) var aspectRatios: [Double]
    public private(set) var widths: [Double]
    public private(set) var spans: [Bool]

    /// `count` items with default sizing.
    public init(count: Int) {
        self.count = count
        heights = []
        aspectRatios = []
        widths = []
        spans = []
    }

    /// Columns given whole; each must be empty or `count` long, NaN meaning "not set".
    /// Returns nil when a column's length disagrees with `count`.
    public init?(count: Int, heights: [Double] = [], aspectRatios: [Double] = [], widths: [Double] = [], spans: [Bool] = []) {
        for length in [heights.count, aspectRatios.count, widths.count, spans.count] where length != 0 && length != count {
            return nil
        }
        self.count = count
        self.heights = heights
        self.aspectRatios = aspectRatios
        self.widths = widths
        self.spans = spans
    }

    /// One entry per item.
    public init<S: Sequence>(_ items: S) where S.Element == ItemSizing {
        self.init(count: 0)
        for item in items { append(item) }
    }

    public var isEmpty: Bool { count == 0 }

    public subscript(index: Int) -> ItemSizing {
        get {
            ItemSizing(
                height: Self.value(heights, index),
                aspectRatio: Self.value(aspectRatios, index),
                width: Self.value(widths, index),
                isSpan: spans.isEmpty ? false : spans[index]
            )
        }
        set {
            ensureColumns(for: newValue)
            if !heights.isEmpty { heights[index] = newValue.height ?? .nan }
            if !aspectRatios.isEmpty { aspectRatios[index] = newValue.aspectRatio ?? .nan }
            if !widths.isEmpty { widths[index] = newValue.width ?? .nan }
            if !spans.isEmpty { spans[index] = newValue.isSpan }
        }
    }

    /// The height set on item `index`, if any, without building an `ItemSizing`.
    @inlinable public func height(at index: Int) -> Double? { Self.value(heights, index) }
    @inlinable public func aspectRatio(at index: Int) -> Double? { Self.value(aspectRatios, index) }
    @inlinable public func width(at index: Int) -> Double? { Self.value(widths, index) }
    @inlinable public func isSpan(at index: Int) -> Bool { spans.isEmpty ? false : spans[index] }

    public mutating func append(_ item: ItemSizing) {
        insert(item, at: count)
    }

    public mutating func insert(_ item: ItemSizing, at index: Int) {
        ensureColumns(for: item)
        // With no items yet a materialised column is still empty, so a field the item sets must be
        // written even though its column looks absent.
        if !heights.isEmpty || item.height != nil { heights.insert(item.height ?? .nan, at: index) }
        if !aspectRatios.isEmpty || item.aspectRatio != nil { aspectRatios.insert(item.aspectRatio ?? .nan, at: index) }
        if !widths.isEmpty || item.width != nil { widths.insert(item.width ?? .nan, at: index) }
        if !spans.isEmpty || item.isSpan { spans.insert(item.isSpan, at: index) }
        count += 1
    }

    @discardableResult
    public mutating func remove(at index: Int) -> ItemSizing {
        let item = self[index]
        if !heights.isEmpty { heights.remove(at: index) }
        if !aspectRatios.isEmpty { aspectRatios.remove(at: index) }
        if !widths.isEmpty { widths.remove(at: index) }
        if !spans.isEmpty { spans.remove(at: index) }
        count -= 1
        return item
    }

    @inlinable
    static func value(_ column: [Double], _ index: Int) -> Double? {
        if column.isEmpty { return nil }
        let value = column[index]
        return value.isNaN ? nil : value
    }

    /// Materialises a column the first time an item sets that field.
    private mutating func ensureColumns(for item: ItemSizing) {
        if item.height != nil, heights.isEmpty { heights = Array(repeating: .nan, count: count) }
        if item.aspectRatio != nil, aspectRatios.isEmpty { aspectRatios = Array(repeating: .nan, count: count) }
        if item.width != nil, widths.isEmpty { widths = Array(repeating: .nan, count: count) }
        if item.isSpan, spans.isEmpty { spans = Array(repeating: false, count: count) }
    }
}
