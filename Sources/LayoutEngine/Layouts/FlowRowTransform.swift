/// What a finished flow row becomes (LAYOUTS.md `flow`, `rowTransform`); applied to every flow row,
/// the last of a section included.
struct FlowRowTransform {
    let kind: FlowParameters.RowTransform
    /// `Wr`.
    let rowWidth: Double
    /// `inset.left`.
    let left: Double
    let spacing: Double
    /// 0 means no cap.
    let fillMaxScale: Double
    /// The section's top in content coordinates, which `center` rounds in.
    let sectionTop: Double

    /// Rewrites `row`'s frames; returns how far the row advances y and the greatest maxY it emitted.
    func apply(to row: FlowRow, in frames: MutableFrameColumns) -> (advance: Double, maxY: Double) {
        switch kind {
        case .none:
            return (row.height, row.y + row.height)
        case .center:
            return (row.height, center(row, in: frames))
        case .fill:
            let height = fill(row, in: frames)
            return (height, row.y + height)
        }
    }

    /// Shifts the row by `(Wr - rowWidth) / 2`, then `integral` in content coordinates (where the frame
    /// is drawn: a section may start at a fractional y). Only the emitted frames are rounded: the row
    /// still advances by its unrounded height. Returns the emitted maxY, section-local.
    private func center(_ row: FlowRow, in frames: MutableFrameColumns) -> Double {
        let shift = (rowWidth - row.used) / 2
        var maxY = row.y + row.height
        for j in row.start..<row.end {
            let frame = Rect(x: frames.xs[j] + shift, y: sectionTop + row.y, width: frames.widths[j], height: row.height).integral
            frames.set(j, x: frame.x, y: frame.y.sectionLocal(below: sectionTop), width: frame.width, height: frame.height)
            maxY = frame.maxY.sectionLocal(below: sectionTop)
        }
        return maxY
    }

    /// Scales every item by `s = (Wr - (k-1)*spacing) / Σw`, capped at `fillMaxScale` when > 0.
    /// When `s <= 1` (a full row) or the row has no width to scale, the row is left untouched.
    /// Item i ends at `round(inset.left + Σ_{j<=i} s*w_j + i*spacing)`; heights are `round(s*h)`.
    /// Returns the row's height.
    private func fill(_ row: FlowRow, in frames: MutableFrameColumns) -> Double {
        var widthSum = 0.0
        for j in row.start..<row.end { widthSum += frames.widths[j] }
        guard widthSum > 0 else { return row.height }
        var s = (rowWidth - Double(row.end - row.start - 1) * spacing) / widthSum
        if fillMaxScale > 0 { s = Swift.min(s, fillMaxScale) }
        guard s > 1 else { return row.height }

        let height = (s * row.height).roundedHalfAwayFromZero
        var scaledSum = 0.0
        var previousMaxX = left
        for j in row.start..<row.end {
            let i = j - row.start
            scaledSum += s * frames.widths[j]
            let maxX = (left + scaledSum + Double(i) * spacing).roundedHalfAwayFromZero
            let x = i == 0 ? left : previousMaxX + spacing
            frames.set(j, x: x, y: row.y, width: maxX - x, height: height)
            previousMaxX = maxX
        }
        return height
    }
}
