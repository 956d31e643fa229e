/// The `columns` height rule, read straight from the sizing columns without building an `ItemSizing`.
///
/// Unlike the common rule, the aspect-ratio part is floored (seed 003 floors `colW / r`).
struct ColumnsItemHeights {
    let items: ItemSizes
    let columnWidth: Double
    let defaultHeight: Double
    /// Hoisted once per section so the all-default case costs one predictable branch per item.
    let allDefault: Bool

    init(items: ItemSizes, columnWidth: Double, defaultHeight: Double) {
        self.items = items
        self.columnWidth = columnWidth
        self.defaultHeight = defaultHeight
        self.allDefault = items.allDefault
    }

    /// aspectRatio r → `floor(colW / r)` (`+ height` when both are given); else height; else the default.
    @inline(__always)
    func height(at index: Int) -> Double {
        if allDefault { return defaultHeight }
        let h = items.height(at: index)
        if let r = items.aspectRatio(at: index) {
            let fromRatio = (columnWidth / r).floored
            if let h { return fromRatio + h }
            return fromRatio
        }
        return h ?? defaultHeight
    }
}
