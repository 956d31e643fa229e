/// A section's item heights at one width by the common sizing rule (LAYOUTS.md, Common model), read
/// straight from the `ItemSizes` columns.
///
/// The same arithmetic as `ItemSizes.height(at:forWidth:defaultHeight:)`, without building optionals or
/// checking array bounds per item: what the layouts' hot loops call. Valid only inside
/// `ItemSizes.withHeightColumns`.
///
/// `@unchecked Sendable`: segments running concurrently only read the columns, which outlive them.
struct ItemHeightColumns: @unchecked Sendable {
    /// One height per item (NaN: not set), or empty when no item sets one.
    let heights: UnsafeBufferPointer<Double>
    /// One aspect ratio per item (NaN: not set), or empty when no item sets one.
    let aspectRatios: UnsafeBufferPointer<Double>
    /// The width heights are computed for.
    let width: Double
    /// The height of an item that sets neither field.
    let defaultHeight: Double

    /// Whether every item takes `defaultHeight`.
    var isUniform: Bool { heights.isEmpty && aspectRatios.isEmpty }

    /// r and h → w / r + h; r → w / r; h → h; neither → `defaultHeight`.
    @inline(__always)
    func height(at index: Int) -> Double {
        if !aspectRatios.isEmpty {
            let r = aspectRatios[index]
            if !r.isNaN {
                if !heights.isEmpty {
                    let h = heights[index]
                    if !h.isNaN { return width / r + h }
                }
                return width / r
            }
        }
        if !heights.isEmpty {
            let h = heights[index]
            if !h.isNaN { return h }
        }
        return defaultHeight
    }
}

extension ItemSizes {
    /// Runs `body` with the item heights at width `w` (see `ItemHeightColumns`).
    func withHeightColumns<Result>(forWidth w: Double, defaultHeight: Double, _ body: (ItemHeightColumns) -> Result) -> Result {
        heights.withUnsafeBufferPointer { heights in
            aspectRatios.withUnsafeBufferPointer { aspectRatios in
                body(ItemHeightColumns(heights: heights, aspectRatios: aspectRatios, width: w, defaultHeight: defaultHeight))
            }
        }
    }
}
