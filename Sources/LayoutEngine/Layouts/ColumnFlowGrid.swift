/// The grid of a columnFlow section: cell size, cells per row and where rows and columns sit.
///
/// Computed once per section from the parameters and bounds.width (LAYOUTS.md `columnFlow`); every
/// cell's frame is then a closed form of its item index.
struct ColumnFlowGrid: Hashable, Sendable {
    let cellWidth: Double
    let cellHeight: Double
    /// `n`: cells per row, at least 1.
    let perRow: Int
    /// x of column c is `c * columnStep` (cellWidth + g) when perRow > 1.
    let columnStep: Double
    /// x of the single column when perRow == 1: the cell is centred.
    let centredX: Double
    /// y of row 0: the section top (below the header) plus the top inset `interitemSpacing`.
    let rowsTop: Double
    /// cellHeight + lineSpacing.
    let rowStep: Double

    init(parameters p: ColumnFlowParameters, boundsWidth B: Double, top: Double) {
        let avail = B - p.margins.left - p.margins.right
        // The seed's `Int(avail / minColumnWidth)` divides by zero below one column; at least 1 (deviation).
        // Capped at 2^53, past which whole numbers are no longer exact in Double (and only a minColumnWidth
        // near 0 gets there).
        let columns = Swift.min(Swift.max(1, (avail / p.minColumnWidth).floored), Self.maxExactCount)
        let cellWidth = (avail / columns).floored
        let n = Self.cellsPerRow(cellWidth: cellWidth, spacing: p.interitemSpacing, lineWidth: B, columns: columns)
        self.cellWidth = cellWidth
        cellHeight = p.cellHeight
        perRow = Int(n)
        columnStep = n > 1 ? cellWidth + (B - n * cellWidth) / (n - 1) : 0
        centredX = (B - cellWidth) / 2
        rowsTop = top + p.interitemSpacing
        rowStep = p.cellHeight + p.lineSpacing
    }

    private static let maxExactCount = 9_007_199_254_740_992.0

    /// The largest `n` in 1...columns with `n * cellWidth + (n - 1) * spacing <= lineWidth`, as UIKit's
    /// flow layout fills a line of `lineWidth`.
    private static func cellsPerRow(cellWidth: Double, spacing: Double, lineWidth: Double, columns: Double) -> Double {
        func fits(_ n: Double) -> Bool { n * cellWidth + (n - 1) * spacing <= lineWidth }
        let step = cellWidth + spacing
        // The inequality solved for n, then settled by the exact test: the quotient's rounding is at most
        // one count off either way.
        var n = step > 0 ? ((lineWidth + spacing) / step).floored : columns
        n = Swift.min(Swift.max(n, 1), columns)
        if n > 1, !fits(n) { n -= 1 }
        if n < columns, fits(n + 1) { n += 1 }
        return n
    }

    /// The number of rows `count` cells fill.
    func rowCount(forItemCount count: Int) -> Int {
        count == 0 ? 0 : (count - 1) / perRow + 1
    }

    @inline(__always)
    func y(ofRow row: Int) -> Double {
        rowsTop + Double(row) * rowStep
    }

    @inline(__always)
    func x(ofColumn column: Int) -> Double {
        perRow == 1 ? centredX : Double(column) * columnStep
    }

    /// Writes the frames of `items`; the arithmetic per item depends on its index alone.
    ///
    /// Row by row, so the y of a row is computed once, and a single column (the phone case) as one loop.
    func place(_ items: Range<Int>, into frames: MutableFrameColumns) {
        guard !items.isEmpty else { return }
        if perRow == 1 {
            for item in items {
                frames.set(item, x: centredX, y: y(ofRow: item), width: cellWidth, height: cellHeight)
            }
            return
        }
        var (row, column) = items.lowerBound.quotientAndRemainder(dividingBy: perRow)
        var item = items.lowerBound
        while item < items.upperBound {
            let y = y(ofRow: row)
            let rowEnd = Swift.min(items.upperBound, item + (perRow - column))
            while item < rowEnd {
                frames.set(item, x: Double(column) * columnStep, y: y, width: cellWidth, height: cellHeight)
                item += 1
                column += 1
            }
            row += 1
            column = 0
        }
    }
}
