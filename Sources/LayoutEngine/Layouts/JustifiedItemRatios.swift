/// The aspect ratio the justified layout gives each item (LAYOUTS.md `justified`, Items):
/// `forceAspectRatio` when set; else the item's `aspectRatio`; else `width / height` when both are > 0
/// (flickr's `{width, height}` input), kept within the accepted aspect ratios (1e-9 to 1e9: a ratio of 0
/// or infinity would give NaN frames); else 1.
///
/// Reads the sizing columns in place: a section of 10^6 items is read twice (once to fill rows, once
/// to size them), and a copy of its ratios would cost more than computing one.
struct JustifiedItemRatios {
    private let forced: Double
    private let isForced: Bool
    private let aspectRatios: UnsafeBufferPointer<Double>
    private let widths: UnsafeBufferPointer<Double>
    private let heights: UnsafeBufferPointer<Double>
    private let hasWidthAndHeight: Bool

    @inline(__always)
    func ratio(at item: Int) -> Double {
        if isForced { return forced }
        if !aspectRatios.isEmpty {
            let r = aspectRatios[item]
            if !r.isNaN { return r }
        }
        if hasWidthAndHeight {
            let w = widths[item]
            let h = heights[item]
            // flickr's `item.width && item.height`: both truthy, i.e. non-zero (and, here, set: NaN fails).
            if w > 0 && h > 0 {
                return Swift.min(Swift.max(w / h, LayoutInput.aspectRatioRange.lowerBound), LayoutInput.aspectRatioRange.upperBound)
            }
        }
        return 1
    }

    /// Calls `body` with the ratios of `items`, `forced` overriding every item's when set.
    static func with<Result>(_ items: ItemSizes, forced: Double?, _ body: (JustifiedItemRatios) -> Result) -> Result {
        items.aspectRatios.withUnsafeBufferPointer { aspectRatios in
            items.widths.withUnsafeBufferPointer { widths in
                items.heights.withUnsafeBufferPointer { heights in
                    body(JustifiedItemRatios(
                        forced: forced ?? 1, isForced: forced != nil,
                        aspectRatios: aspectRatios, widths: widths, heights: heights,
                        hasWidthAndHeight: !widths.isEmpty && !heights.isEmpty
                    ))
                }
            }
        }
    }
}
