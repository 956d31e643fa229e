/// CollectionViewColumnLayout (LAYOUTS.md `columns`): items dealt into `columnCount` equal columns.
///
/// Section: header → `+ inset.top` → columns → footer under the tallest column → `+ inset.bottom`.
/// Sequential within a section: under `shortestFirst` every item depends on all the items before it,
/// and sections already run in parallel.
enum ColumnsLayout: SectionLayout {
    static func layOut(_ section: Section, parameters p: ColumnsParameters, context: SectionContext) -> SectionFrames {
        let insets = p.sectionInsets
        let W = context.contentWidth
        let grid = ColumnsGrid(parameters: p, contentWidth: W)
        let header = context.hasHeader ? supplementaryFrame(y: 0, height: context.headerHeight, width: W, parameters: p) : nil
        let top = context.headerHeight.clampedToZero + insets.top
        let items = section.items
        let heights = ColumnsItemHeights(items: items, columnWidth: grid.columnWidth, defaultHeight: p.itemHeight)
        let spacing = p.interitemSpacing

        var tallest = top
        let cells = FrameColumns(count: items.count) { frames in
            switch p.placement {
            case .leftToRight:
                tallest = placeInTurn(into: frames, grid: grid, heights: heights, top: top, spacing: spacing, rightToLeft: false)
            case .rightToLeft:
                tallest = placeInTurn(into: frames, grid: grid, heights: heights, top: top, spacing: spacing, rightToLeft: true)
            case .shortestFirst:
                tallest = placeShortestFirst(into: frames, grid: grid, heights: heights, top: top, spacing: spacing)
            }
        }
        var y = tallest
        let footer = context.hasFooter ? supplementaryFrame(y: y, height: context.footerHeight, width: W, parameters: p) : nil
        if footer != nil { y += context.footerHeight }
        return SectionFrames(cells: cells, header: header, footer: footer, height: y + insets.bottom)
    }

    /// leftToRight / rightToLeft: item i goes to slot `i % n`, read from the left or from the right.
    /// Returns the tallest column's bottom (`top` when there are no items).
    private static func placeInTurn(
        into frames: MutableFrameColumns, grid: ColumnsGrid, heights: ColumnsItemHeights,
        top: Double, spacing: Double, rightToLeft: Bool
    ) -> Double {
        let count = frames.xs.count
        let n = grid.count
        // Only the first min(n, count) slots ever hold an item; a huge columnCount costs nothing more.
        let slotCount = Swift.min(n, count)
        let slotXs = (0..<slotCount).map { grid.x(ofColumn: rightToLeft ? n - 1 - $0 : $0) }
        var bottoms = [Double](repeating: top, count: slotCount)
        let width = grid.columnWidth
        var slot = 0
        for i in 0..<count {
            let h = heights.height(at: i)
            // Deviation (LAYOUTS.md): no spacing above a column's first item.
            let y = i < n ? top : bottoms[slot] + spacing
            frames.set(i, x: slotXs[slot], y: y, width: width, height: h)
            bottoms[slot] = y + h
            slot += 1
            if slot == n { slot = 0 }
        }
        return bottoms.reduce(top) { Swift.max($0, $1) }
    }

    /// shortestFirst: each item goes to the column with the least height so far, ties to the leftmost.
    /// Returns the tallest column's bottom (`top` when there are no items).
    private static func placeShortestFirst(
        into frames: MutableFrameColumns, grid: ColumnsGrid, heights: ColumnsItemHeights, top: Double, spacing: Double
    ) -> Double {
        let count = frames.xs.count
        // An empty column has the least possible height and ties go left, so the columns in use are
        // always a prefix 0..<used, and at most min(n, count) of them are ever used.
        let columnCount = Swift.min(grid.count, count)
        let columnXs = (0..<columnCount).map { grid.x(ofColumn: $0) }
        var heap = ColumnsShortestHeap(count: columnCount, top: top)
        var used = 0
        let width = grid.columnWidth
        for i in 0..<count {
            let h = heights.height(at: i)
            let column = heap.shortest
            let y: Double
            if column == used {
                y = top
                used += 1
            } else {
                y = heap.shortestBottom + spacing
            }
            frames.set(i, x: columnXs[column], y: y, width: width, height: h)
            heap.raiseShortest(to: y + h)
        }
        return heap.tallestBottom(orIfEmpty: top)
    }

    private static func supplementaryFrame(y: Double, height: Double, width W: Double, parameters p: ColumnsParameters) -> Rect {
        let insets = p.sectionInsets
        return p.insetSupplementaryViews
            ? Rect(x: insets.left, y: y, width: W - insets.left - insets.right, height: height)
            : Rect(x: 0, y: y, width: W, height: height)
    }
}

/// The column geometry of one `columns` section.
struct ColumnsGrid {
    /// `columnCount`, clamped to at least 1 as the framework does.
    let count: Int
    /// `colW = round((Wi - (n-1)*columnSpacing) / n)`, half away from zero.
    let columnWidth: Double
    let left: Double
    let pitch: Double

    init(parameters p: ColumnsParameters, contentWidth W: Double) {
        count = Swift.max(1, p.columnCount)
        let insets = p.sectionInsets
        let innerWidth = W - insets.left - insets.right
        columnWidth = ((innerWidth - Double(count - 1) * p.columnSpacing) / Double(count)).roundedHalfAwayFromZero
        left = insets.left
        pitch = columnWidth + p.columnSpacing
    }

    /// `x = inset.left + i*(colW + columnSpacing)`.
    func x(ofColumn column: Int) -> Double {
        left + Double(column) * pitch
    }
}
