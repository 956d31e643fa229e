/// The Pinterest layout (LAYOUTS.md `waterfall`, seed 002): `columns` equal columns; each item goes to
/// the shortest one, its frame the cell rect inset by `cellPadding`.
///
/// Each placement depends on every earlier one, so a section runs sequentially (sections still run in
/// parallel). The footer and the section end sit at the tallest column's bottom.
///
/// Every `checkpointInterval` items the column heights are saved (`SectionFrames.checkpoints`), so that a
/// batch can resume from there: they cannot be read back from the frames, which are inset by a padding
/// that does not subtract back exactly.
enum WaterfallLayout: SectionLayout {
    /// Two columns (the default) live in registers; up to this many a scan finds the shortest fastest;
    /// beyond it, a heap.
    static let maxScannedColumns = 16
    /// Items between checkpoints.
    static let checkpointInterval = 1024
    /// Sections with more columns in use keep no checkpoints (they would cost more than the frames).
    static let maxCheckpointedColumns = 64

    /// Where a resumed section restarts: before `item`, with the column heights a checkpoint saved there.
    struct Restart {
        var item: Int
        /// The cells before the batch; the first `item` are kept.
        var cells: FrameColumns
        var heights: ArraySlice<Double>
        /// The checkpoints the section keeps, up to and including this one's.
        var checkpoints: SectionCheckpoints
    }

    static func layOut(_ section: Section, parameters p: WaterfallParameters, context: SectionContext) -> SectionFrames {
        layOut(section, parameters: p, context: context, from: nil)
    }

    /// The section placed from its top, or from `restart`.
    static func layOut(_ section: Section, parameters p: WaterfallParameters, context: SectionContext, from restart: Restart?) -> SectionFrames {
        let W = context.contentWidth
        let header = context.hasHeader ? Rect(x: 0, y: 0, width: W, height: context.headerHeight) : nil
        let top = header?.maxY ?? 0
        let items = section.items
        let count = items.count
        // No item reaches a column past the item count: before item i, columns i… are still at `top`, the
        // least height there is, so the lowest-indexed shortest column is at most i. Tracking only those
        // keeps a huge `columns` from costing memory or time.
        let columnsInUse = columnsInUse(parameters: p, itemCount: count)
        var checkpoints = restart?.checkpoints
            ?? (columnsInUse <= maxCheckpointedColumns ? SectionCheckpoints(width: columnsInUse) : .none)
        let first = restart?.item ?? 0
        var bottom = top
        let previous = restart?.cells ?? FrameColumns()
        let cells = FrameColumns(count: count, copying: first, of: previous, segments: context.segments) { frames in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: columnsInUse) { heights in
                if let restart {
                    _ = heights.initialize(fromContentsOf: restart.heights)
                } else {
                    heights.initialize(repeating: top)
                }
                if columnsInUse == 2 {
                    var columns = PairedWaterfallColumns(left: heights[0], right: heights[1])
                    place(items, from: first, parameters: p, contentWidth: W, columns: &columns, into: frames, checkpoints: &checkpoints)
                    bottom = columns.tallest
                } else if columnsInUse <= maxScannedColumns {
                    var columns = ScannedWaterfallColumns(heights: heights)
                    place(items, from: first, parameters: p, contentWidth: W, columns: &columns, into: frames, checkpoints: &checkpoints)
                    bottom = columns.tallest
                } else {
                    withUnsafeTemporaryAllocation(of: Int.self, capacity: columnsInUse) { heap in
                        var columns = HeapedWaterfallColumns(heights: heights, heap: heap)
                        place(items, from: first, parameters: p, contentWidth: W, columns: &columns, into: frames, checkpoints: &checkpoints)
                        bottom = columns.tallest
                    }
                }
            }
        }
        let footer = context.hasFooter ? Rect(x: 0, y: bottom, width: W, height: context.footerHeight) : nil
        return SectionFrames(cells: cells, header: header, footer: footer, height: footer?.maxY ?? bottom, checkpoints: checkpoints)
    }

    static func columnsInUse(parameters p: WaterfallParameters, itemCount: Int) -> Int {
        Swift.min(p.columns, Swift.max(itemCount, 1))
    }

    /// Places the items from `first` on in order, as the seed's loop does, and saves the column heights
    /// before every multiple of `checkpointInterval` (past 0, short of the item count) when keeping them.
    private static func place<Columns: WaterfallColumnHeights>(
        _ items: ItemSizes, from first: Int, parameters p: WaterfallParameters, contentWidth W: Double,
        columns: inout Columns, into frames: MutableFrameColumns, checkpoints: inout SectionCheckpoints
    ) {
        let columnWidth = W / Double(p.columns)
        let padding = p.cellPadding
        // The item's content width; its frame keeps the seed's `insetBy`: cell width - 2 * padding.
        let itemWidth = columnWidth - 2 * padding
        let count = items.count
        let keepsCheckpoints = checkpoints.width > 0
        items.withHeightColumns(forWidth: itemWidth, defaultHeight: p.itemHeight) { heights in
            var start = first
            while start < count {
                let end = Swift.min(count, (start / checkpointInterval + 1) * checkpointInterval)
                for item in start..<end {
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
                if keepsCheckpoints, end < count { columns.save(into: &checkpoints, before: end) }
                start = end
            }
        }
    }
}
