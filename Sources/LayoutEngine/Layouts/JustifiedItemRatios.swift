/// The aspect ratio the justified layout gives each item (LAYOUTS.md `justified`, the item's ratio):
/// `forceAspectRatio` when set; else the item's `aspectRatio`; else `width / height` when both are > 0
/// (flickr's `{width, height}` input), kept within the accepted aspect ratios (1e-9 to 1e9: a ratio of 0
/// or infinity would give NaN frames); else 1.
///
/// The layout is generic over where the ratios come from, so that each common case (one ratio for all,
/// an `aspectRatio` column) compiles to its own loop without per-item branches on the others.
protocol JustifiedRatios {
    func ratio(at item: Int) -> Double
}

/// One ratio for every item: `forceAspectRatio`, or a section whose items carry no sizing at all.
struct UniformRatio: JustifiedRatios {
    let value: Double

    @inline(__always)
    func ratio(at item: Int) -> Double { value }
}

/// An `aspectRatio` column and no widths: the ratio, or 1 where it is not set (NaN).
struct AspectRatioColumn: JustifiedRatios {
    let column: UnsafeBufferPointer<Double>

    @inline(__always)
    func ratio(at item: Int) -> Double {
        let r = column[item]
        return r.isNaN ? 1 : r
    }
}

/// Every rule: the `aspectRatio` column (possibly empty), else `width / height`, else 1.
struct SizedRatios: JustifiedRatios {
    let aspectRatios: UnsafeBufferPointer<Double>
    let widths: UnsafeBufferPointer<Double>
    let heights: UnsafeBufferPointer<Double>

    @inline(__always)
    func ratio(at item: Int) -> Double {
        if !aspectRatios.isEmpty {
            let r = aspectRatios[item]
            if !r.isNaN { return r }
        }
        let w = widths[item]
        let h = heights[item]
        // flickr's `item.width && item.height`: both truthy, i.e. non-zero (and, here, set: NaN fails).
        if w > 0 && h > 0 {
            return Swift.min(Swift.max(w / h, LayoutInput.aspectRatioRange.lowerBound), LayoutInput.aspectRatioRange.upperBound)
        }
        return 1
    }
}

/// Something to run with the ratios of a section's items, whatever their source.
protocol JustifiedRatiosBody {
    associatedtype Result
    func run<Ratios: JustifiedRatios>(with ratios: Ratios) -> Result
}

extension ItemSizes {
    /// Runs `body` with these items' ratios, `forced` overriding every item's when set.
    func withJustifiedRatios<Body: JustifiedRatiosBody>(forced: Double?, _ body: Body) -> Body.Result {
        if let forced { return body.run(with: UniformRatio(value: forced)) }
        let hasWidthAndHeight = !widths.isEmpty && !heights.isEmpty
        if hasWidthAndHeight {
            return aspectRatios.withUnsafeBufferPointer { aspectRatios in
                widths.withUnsafeBufferPointer { widths in
                    heights.withUnsafeBufferPointer { heights in
                        body.run(with: SizedRatios(aspectRatios: aspectRatios, widths: widths, heights: heights))
                    }
                }
            }
        }
        if aspectRatios.isEmpty { return body.run(with: UniformRatio(value: 1)) }
        return aspectRatios.withUnsafeBufferPointer { body.run(with: AspectRatioColumn(column: $0)) }
    }
}
