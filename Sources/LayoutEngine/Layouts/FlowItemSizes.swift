/// The `flow` sizing of a section's items, read straight from the sizing columns.
struct FlowItemSizes {
    let items: ItemSizes
    let defaultSize: Size
    /// `Wr`, the row width available.
    let rowWidth: Double
    /// Hoisted once per section: then there are no spans and every item has the default size.
    let allDefault: Bool

    init(items: ItemSizes, defaultSize: Size, rowWidth: Double) {
        self.items = items
        self.defaultSize = defaultSize
        self.rowWidth = rowWidth
        self.allDefault = items.allDefault
    }

    @inline(__always)
    func isSpan(at index: Int) -> Bool {
        !allDefault && items.isSpan(at: index)
    }

    /// A flow item's placed size: its width (else the default width), its height by the common rule
    /// at that width (else the default height), scaled down proportionally when wider than `Wr`.
    @inline(__always)
    func flowSize(at index: Int) -> (width: Double, height: Double) {
        if allDefault { return scaledToFit(width: defaultSize.width, height: defaultSize.height) }
        let w = items.width(at: index) ?? defaultSize.width
        let h = items.height(at: index, forWidth: w, defaultHeight: defaultSize.height)
        return scaledToFit(width: w, height: h)
    }

    /// A span's height: the common rule at width `Wr`, else the default height.
    @inline(__always)
    func spanHeight(at index: Int) -> Double {
        items.height(at: index, forWidth: rowWidth, defaultHeight: defaultSize.height)
    }

    @inline(__always)
    private func scaledToFit(width w: Double, height h: Double) -> (width: Double, height: Double) {
        guard w > rowWidth else { return (w, h) }
        return (rowWidth, h * (rowWidth / w))
    }
}
