import LayoutEngine

/// Collects item objects (`{"height":…}`) straight into `ItemSizes` columns.
///
/// A column appears the first time an item sets that field (earlier items get NaN, "not set"), so a
/// section of plain heights costs one flat array, exactly as its columnar form does.
struct ItemColumnsBuilder: ~Copyable {
    private(set) var count = 0
    private var heights = ColumnBuffer<Double>()
    private var aspectRatios = ColumnBuffer<Double>()
    private var widths = ColumnBuffer<Double>()
    private var spans = ColumnBuffer<Bool>()
    /// Which columns exist: bit 0 heights, 1 aspect ratios, 2 widths, 3 spans.
    private var present: UInt8 = 0

    /// Appends one item; NaN means the field is not set.
    @inline(__always)
    mutating func append(height: Double, aspectRatio: Double, width: Double, isSpan: Bool) {
        var fields: UInt8 = height.isNaN ? 0 : 1
        if !aspectRatio.isNaN { fields |= 2 }
        if !width.isNaN { fields |= 4 }
        if isSpan { fields |= 8 }
        if fields & ~present != 0 { addColumns(fields & ~present) }
        if present & 1 != 0 { heights.append(height) }
        if present & 2 != 0 { aspectRatios.append(aspectRatio) }
        if present & 4 != 0 { widths.append(width) }
        if present & 8 != 0 { spans.append(isSpan) }
        count += 1
    }

    /// Starts the columns in `fields`, "not set" for every earlier item.
    private mutating func addColumns(_ fields: UInt8) {
        if fields & 1 != 0 { heights.append(repeating: .nan, count: count) }
        if fields & 2 != 0 { aspectRatios.append(repeating: .nan, count: count) }
        if fields & 4 != 0 { widths.append(repeating: .nan, count: count) }
        if fields & 8 != 0 { spans.append(repeating: false, count: count) }
        present |= fields
    }

    /// The columns as `ItemSizes`; a column no item set stays empty.
    consuming func sizes() -> ItemSizes {
        let count = self.count
        let built = ItemSizes(
            count: count, heights: heights.array(), aspectRatios: aspectRatios.array(), widths: widths.array(), spans: spans.array()
        )
        // Every column holds either no value or one per item, so this never falls back.
        return built ?? ItemSizes(count: count)
    }
}
