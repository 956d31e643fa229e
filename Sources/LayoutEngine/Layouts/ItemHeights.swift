extension ItemSizes {
    /// Item `index`'s height at width `w` by the common sizing rule, read straight from the columns.
    @inlinable
    func height(at index: Int, forWidth w: Double, defaultHeight: Double) -> Double {
        let r = aspectRatio(at: index)
        let h = height(at: index)
        switch (r, h) {
        case let (r?, h?): return w / r + h
        case let (r?, nil): return w / r
        case let (nil, h?): return h
        case (nil, nil): return defaultHeight
        }
    }

    /// Whether every item has default sizing (no column set), so a layout can skip per-item lookups.
    var allDefault: Bool { heights.isEmpty && aspectRatios.isEmpty && widths.isEmpty && spans.isEmpty }
}
