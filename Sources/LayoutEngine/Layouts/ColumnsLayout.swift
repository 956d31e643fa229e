/// CollectionViewColumnLayout (LAYOUTS.md `columns`): items dealt into `columnCount` equal columns.
///
/// Section: header → `+ inset.top` → columns → footer under the tallest column → `+ inset.bottom`.
/// Sequential within a section: under `shortestFirst` every item depends on all the items before it,
/// and sections already run in parallel.
enum ColumnsLayout: SectionLayout {
    static func layOut(_ section: Section, parameters p: ColumnsParameters, context: SectionContext) -> SectionFrames {
        let geometry = ColumnsSectionGeometry(parameters: p, context: context, items: section.items)
        let grid = geometry.grid
        let heights = geometry.heights
        let top = geometry.top
        let spacing = p.interitemSpacing

        var tallest = top
        let cells = FrameColumns(count: section.items.count) { frames in
            switch p.placement {
            case .leftToRight, .rightToLeft:
                let turn = InTurnPlacement(grid: grid, count: frames.xs.count, rightToLeft: p.placement == .rightToLeft)
                tallest = placeInTurn(into: frames, from: 0, bottoms: turn.freshBottoms(top: top), placement: turn, heights: heights, top: top, spacing: spacing)
            case .shortestFirst:
                tallest = placeShortestFirst(into: frames, grid: grid, heights: heights, top: top, spacing: spacing)
            }
        }
        return finish(cells, tallest: tallest, parameters: p, context: context)
    }

    /// The section around its cells: the footer under the tallest column, then the bottom inset.
    static func finish(_ cells: FrameColumns, tallest: Double, parameters p: ColumnsParameters, context: SectionContext) -> SectionFrames {
        let W = context.contentWidth
        let header = context.hasHeader ? supplementaryFrame(y: 0, height: context.headerHeight, width: W, parameters: p) : nil
        var y = tallest
        let footer = context.hasFooter ? supplementaryFrame(y: y, height: context.footerHeight, width: W, parameters: p) : nil
        if footer != nil { y += context.footerHeight }
        return SectionFrames(cells: cells, header: header, footer: footer, height: y + p.sectionInsets.bottom)
    }

    /// leftToRight / rightToLeft: item i goes to slot `i % n`, read from the left or from the right.
    /// Places the items from `first` on, each slot's column starting at `bottoms[slot]` (the bottom of the
    /// slot's last item before `first`, or `top`); returns the tallest column's bottom (`top` when there
    /// are no items).
    static func placeInTurn(
        into frames: MutableFrameColumns, from first: Int, bottoms initialBottoms: [Double], placement: InTurnPlacement,
        heights: ColumnsItemHeights, top: Double, spacing: Double
    ) -> Double {
        let count = frames.xs.count
        let n = placement.columnCount
        let slotXs = placement.slotXs
        var bottoms = initialBottoms
        let width = placement.columnWidth
        var slot = first % n
        for i in first..<count {
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

/// What every placement of a `columns` section starts from.
struct ColumnsSectionGeometry {
    let grid: ColumnsGrid
    let heights: ColumnsItemHeights
    /// The columns' top: the header's height (if any) plus the top inset.
    let top: Double

    init(parameters p: ColumnsParameters, context: SectionContext, items: ItemSizes) {
        grid = ColumnsGrid(parameters: p, contentWidth: context.contentWidth)
        heights = ColumnsItemHeights(items: items, columnWidth: grid.columnWidth, defaultHeight: p.itemHeight)
        top = context.headerHeight.clampedToZero + p.sectionInsets.top
    }
}

/// The slots of leftToRight / rightToLeft: item i goes to slot `i % n`, slot s is column s from the left
/// or from the right.
struct InTurnPlacement {
    let columnCount: Int
    let columnWidth: Double
    /// The x of each slot that ever holds an item: only the first min(n, count) do, so a huge
    /// columnCount costs nothing more.
    let slotXs: [Double]

    init(grid: ColumnsGrid, count: Int, rightToLeft: Bool) {
        let n = grid.count
        columnCount = n
        columnWidth = grid.columnWidth
        slotXs = (0..<Swift.min(n, count)).map { grid.x(ofColumn: rightToLeft ? n - 1 - $0 : $0) }
    }

    /// Every slot's bottom before the first item.
    func freshBottoms(top: Double) -> [Double] {
        [Double](repeating: top, count: slotXs.count)
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
