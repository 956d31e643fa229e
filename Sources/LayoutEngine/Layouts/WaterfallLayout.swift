/// The Pinterest layout (LAYOUTS.md `waterfall`, seed 002): `columns` equal columns; each item goes to
/// the shortest one, its frame the cell rect inset by `cellPadding`.
///
/// Each placement depends on every earlier one, so a section runs sequentially (sections still run in
/// parallel). The footer and the section end sit at the tallest column's bottom.
enum WaterfallLayout: SectionLayout {
    /// Two columns (the default) live in registers; up to this many a scan finds the shortest fastest;
    /// beyond it, a heap.
    static let maxScannedColumns = 16

    static func layOut(_ section: Section, parameters p: WaterfallParameters, context: SectionContext) -> SectionFrames {
        let W = context.contentWidth
        let header = context.hasHeader ? Rect(x: 0, y: 0, width: W, height: context.headerHeight) : nil
        let top = header?.maxY ?? 0
        let items = section.items
        let count = items.count
        // No item reaches a column past the item count: before item i, columns i… are still at `top`, the
        // least height there is, so the lowest-indexed shortest column is at most i. Tracking only those
        // keeps a huge `columns` from costing memory or time.
        let columnsInUse = Swift.min(p.columns, Swift.max(count, 1))
        var bottom = top
        let cells = FrameColumns(count: count) { frames in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: columnsInUse) { heights in
                heights.initialize(repeating: top)
                if columnsInUse == 2 {
                    var columns = PairedWaterfallColumns(left: top, right: top)
                    place(items, parameters: p, contentWidth: W, columns: &columns, into: frames)
                    bottom = columns.tallest
                } else if columnsInUse <= maxScannedColumns {
                    var columns = ScannedWaterfallColumns(heights: heights)
                    place(items, parameters: p, contentWidth: W, columns: &columns, into: frames)
                    bottom = columns.tallest
                } else {
                    withUnsafeTemporaryAllocation(of: Int.self, capacity: columnsInUse) { heap in
                        var columns = HeapedWaterfallColumns(heights: heights, heap: heap)
                        place(items, parameters: p, contentWidth: W, columns: &columns, into: frames)
                        bottom = columns.tallest
                    }
                }
            }
        }
        let footer = context.hasFooter ? Rect(x: 0, y: bottom, width: W, height: context.footerHeight) : nil
        return SectionFrames(cells: cells, header: header, footer: footer, height: footer?.maxY ?? bottom)
    }

    /// Places every item in order, as the seed's loop does.
    private static func place<Columns: WaterfallColumnHeights>(
        _ items: ItemSizes, parameters p: WaterfallParameters, contentWidth W: Double,
        columns: inout Columns, into frames: MutableFrameColumns
    ) {
        let columnWidth = W / Double(p.columns)
        let padding = p.cellPadding
        // The item's content width; its frame keeps the seed's `insetBy`: cell width - 2 * padding.
        let itemWidth = columnWidth - 2 * padding
        items.withHeightColumns(forWidth: itemWidth, defaultHeight: p.itemHeight) { heights in
            for item in 0..<items.count {
                let cellHeight = heights.height(at: item) + 2 * padding
                let (column, y) = columns.placeOnShortest(height: cellHeight)
                frames.set(
                    item,
                    x: Double(column) * columnWidth + padding,
                    y: y + padding,
                    width: itemWidth,
                    height: cellHeight - 2 * padding
                )
            }
        }
    }
}
