/// The row rules of flickr's justified layout (its `Row`): when a row is full, how tall it is, and where
/// its items go. Every expression keeps flickr's operands and order of operations, so that the doubles
/// come out bit for bit as its JavaScript computes them (LAYOUTS.md `justified` lists each one).
struct JustifiedRows {
    /// The container's left padding: where a row starts.
    let left: Double
    /// flickr's row `width`: `W - sectionInsets.left - sectionInsets.right`.
    let width: Double
    let spacing: Double
    let targetRowHeight: Double
    /// A row closes once the sum of its ratios reaches this (`width / targetRowHeight * (1 - tolerance)`).
    let minAspectRatio: Double
    /// … and is full past this (`width / targetRowHeight * (1 + tolerance)`).
    let maxAspectRatio: Double
    /// flickr's edge-case clamp of a row's height: `0.5 * targetRowHeight` …
    let minRowHeight: Double
    /// … to `2 * targetRowHeight`.
    let maxRowHeight: Double
    /// Added to every y: the header above the container.
    let headerOffset: Double

    init(parameters p: JustifiedParameters, contentWidth W: Double, headerOffset: Double) {
        left = p.sectionInsets.left
        width = W - p.sectionInsets.left - p.sectionInsets.right
        spacing = p.boxSpacing.horizontal
        targetRowHeight = p.targetRowHeight
        minAspectRatio = width / p.targetRowHeight * (1 - p.targetRowHeightTolerance)
        maxAspectRatio = width / p.targetRowHeight * (1 + p.targetRowHeightTolerance)
        minRowHeight = 0.5 * p.targetRowHeight
        maxRowHeight = 2 * p.targetRowHeight
        self.headerOffset = headerOffset
    }

    /// flickr's `rowWidthWithoutSpacing` for a row of `count` items.
    @inline(__always)
    func widthWithoutSpacing(forCount count: Int) -> Double {
        width - Double(count - 1) * spacing
    }

    /// Places a completed row (flickr's `completeLayout(newHeight, 'justify')`) at container y `top`;
    /// returns its height.
    ///
    /// A height outside `[minRowHeight, maxRowHeight]` is clamped, and the widths scaled so the row still
    /// fills its width. A row whose spacing alone fills the width (`widthWithoutSpacing <= 0`, which takes
    /// a spacing wide against W and very narrow items) has no width for its items: flickr's arithmetic
    /// gives them negative widths or NaN there, layoutd gives them width 0 (a documented deviation).
    @inline(__always)
    func placeCompletedRow<Ratios: JustifiedRatios>(
        _ range: Range<Int>, height newHeight: Double, top: Double,
        ratios: Ratios, into frames: MutableFrameColumns
    ) -> Double {
        let rowWidth = widthWithoutSpacing(forCount: range.count)
        let height = Swift.max(minRowHeight, Swift.min(newHeight, maxRowHeight))
        let y = top + headerOffset
        guard rowWidth > 0 else {
            var x = left
            for item in range {
                frames.set(item, x: x, y: y, width: 0, height: height)
                x += spacing
            }
            return height
        }
        let end: Double
        if newHeight != height {
            let scale = (rowWidth / height) / (rowWidth / newHeight)
            end = placeItems(range, height: height, scale: scale, y: y, ratios: ratios, into: frames)
        } else {
            end = placeItems(range, height: height, scale: nil, y: y, ratios: ratios, into: frames)
        }
        distributeRoundingError(range, itemWidthSum: end, in: frames)
        return height
    }

    /// Places the widows (flickr's `forceComplete`) at `height`, which is a row height already clamped or
    /// the target, so never clamped again. `justify` may shrink an item below 0 where the widows are wider
    /// than the row; such a width is taken as 0 (a documented deviation).
    func placeWidowRow<Ratios: JustifiedRatios>(
        _ range: Range<Int>, height: Double, style: JustifiedParameters.WidowLayoutStyle, top: Double,
        ratios: Ratios, into frames: MutableFrameColumns
    ) {
        let end = placeItems(range, height: height, scale: nil, y: top + headerOffset, ratios: ratios, into: frames)
        switch style {
        case .left:
            break
        case .justify:
            distributeRoundingError(range, itemWidthSum: end, in: frames)
            for item in range where frames.widths[item] < 0 { frames.widths[item] = 0 }
        case .center:
            // flickr's offset counts the left padding and one spacing too many, and adds a spacing back.
            let shift = (width - end) / 2 + spacing
            for item in range { frames.xs[item] += shift }
        }
    }

    /// Items left to right from `left`, each `ratio * height (* scale)` wide; returns flickr's
    /// `itemWidthSum`: `left + Σ (width + spacing)`, summed in order.
    @inline(__always)
    private func placeItems<Ratios: JustifiedRatios>(
        _ range: Range<Int>, height: Double, scale: Double?, y: Double,
        ratios: Ratios, into frames: MutableFrameColumns
    ) -> Double {
        var x = left
        for item in range {
            var w = ratios.ratio(at: item) * height
            if let scale { w *= scale }
            frames.set(item, x: x, y: y, width: w, height: height)
            x += w + spacing
        }
        return x
    }

    /// flickr's error distribution: the row's overshoot `e = (itemWidthSum - spacing - left - width) / n`
    /// is taken off the items as whole points, item i losing `round((i+1)e) - round(i e)` of its width
    /// and moving left by `round(i e)` (JavaScript's `Math.round`). In a completed row `e` is a rounding
    /// residue and every `round` gives 0; a justified widow row is stretched to the row's width.
    @inline(__always)
    private func distributeRoundingError(_ range: Range<Int>, itemWidthSum: Double, in frames: MutableFrameColumns) {
        let count = range.count
        let error = (itemWidthSum - (spacing + left) - width) / Double(count)
        // |k e| <= |n e| for k <= n, in doubles too: when n e rounds to 0, every k e does, and items only
        // lose a zero.
        let largest = Double(count) * error
        if largest >= -0.5 && largest < 0.5 { return }
        let first = range.lowerBound
        if count == 1 {
            frames.widths[first] -= error.roundedHalfUp
            return
        }
        var previous = 0.0
        for (k, item) in range.enumerated() {
            let cumulative = (Double(k + 1) * error).roundedHalfUp
            if k > 0 {
                frames.xs[item] -= previous
                frames.widths[item] -= cumulative - previous
            } else {
                frames.widths[item] -= cumulative
            }
            previous = cumulative
        }
    }
}
