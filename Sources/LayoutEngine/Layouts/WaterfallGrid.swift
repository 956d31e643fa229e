/// A waterfall section's columns across the width: their width and where each one starts.
///
/// The formulas are written so that the defaults (no insets, no spacing, no fixed width) compute
/// exactly the tutorial's `W / columns` and `column * columnWidth`: adding or subtracting a zero
/// changes no bit, so the defaults keep their frames bit for bit.
struct WaterfallGrid {
    /// Every column's width: `columnWidth` if fixed, else `(W - left - right - (n-1)*columnSpacing) / n`.
    let columnWidth: Double
    /// From one column's x to the next one's.
    let stride: Double
    /// Column 0's x.
    let left: Double

    init(parameters p: WaterfallParameters, contentWidth W: Double) {
        let insets = p.sectionInsets
        let n = Double(p.columns)
        columnWidth = p.columnWidth ?? (W - insets.left - insets.right - (n - 1) * p.columnSpacing) / n
        stride = columnWidth + p.columnSpacing
        left = insets.left
    }

    /// Column `column`'s x: `inset.left + column * (columnWidth + columnSpacing)`.
    @inline(__always)
    func x(ofColumn column: Int) -> Double {
        left + Double(column) * stride
    }
}
