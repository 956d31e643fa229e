/// The Pinterest layout (LAYOUTS.md `waterfall`, seeds 002 and 004): `columns` columns; each item goes
/// to the shortest one, its frame the slot inset by `cellPadding`.
///
/// Each placement depends on every earlier one, so a section runs sequentially (sections still run in
/// parallel). The section's columns end at the lowest slot bottom; the bottom inset and the footer
/// follow.
///
/// Every `checkpointInterval` items the column heights and the lowest slot bottom are saved
/// (`SectionCheckpoints`), so that a batch can resume from there: they cannot be read back from the
/// frames, which are inset by a padding that does not subtract back exactly.
enum WaterfallLayout: SectionLayout {
    /// Two columns (the default) live in registers; up to this many a scan finds the shortest fastest;
    /// beyond it, a heap.
    static let maxScannedColumns = 16
    /// Items between checkpoints.
    static let checkpointInterval = 1024
    /// Sections with more columns in use keep no checkpoints (they would cost more than the frames).
    static let maxCheckpointedColumns = 64

    /// Where a resumed section restarts: before `item`, with the state a checkpoint saved there.
    struct Restart {
        var item: Int
        /// The cells before the batch; the first `item` are kept.
        var cells: FrameColumns
        /// The column heights, then the lowest slot bottom so far.
        var state: ArraySlice<Double>
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
        let insets = p.sectionInsets
        let top = (header?.maxY ?? 0) + insets.top
        let items = section.items
        let count = items.count
        // No item reaches a column it cannot win: before item i at most i columns have grown, so one that
        // has not (at `top`, the least height there is) lies among the first i + 1 columns (ties to the
        // first) or the last i + 1 (ties to the last), and it beats every column beyond them. Tracking
        // only those keeps a huge `columns` from costing memory or time.
        let columnsInUse = columnsInUse(parameters: p, itemCount: count)
        let firstColumn = p.tieBreak == .first ? 0 : p.columns - columnsInUse
        var checkpoints = restart?.checkpoints
            ?? (columnsInUse <= maxCheckpointedColumns ? SectionCheckpoints(width: columnsInUse + 1) : .none)
        let first = restart?.item ?? 0
        // The lowest slot bottom so far; with no spacing, the tallest column.
        var bottom = restart?.state.last ?? top
        let lastWins = p.tieBreak == .last
        let placement = Placement(grid: WaterfallGrid(parameters: p, contentWidth: W), firstColumn: firstColumn, parameters: p)
        let previous = restart?.cells ?? FrameColumns()
        let cells = FrameColumns(count: count, copying: first, of: previous, segments: context.segments) { frames in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: columnsInUse) { heights in
                if let restart {
                    _ = heights.initialize(fromContentsOf: restart.state.dropLast())
                } else {
                    heights.initialize(repeating: top)
                }
                if columnsInUse == 2 {
                    var columns = PairedWaterfallColumns(left: heights[0], right: heights[1], lastWins: lastWins)
                    place(items, from: first, placement, columns: &columns, bottom: &bottom, into: frames, checkpoints: &checkpoints)
                } else if columnsInUse <= maxScannedColumns {
                    var columns = ScannedWaterfallColumns(heights: heights, lastWins: lastWins)
                    place(items, from: first, placement, columns: &columns, bottom: &bottom, into: frames, checkpoints: &checkpoints)
                } else {
                    withUnsafeTemporaryAllocation(of: Int.self, capacity: columnsInUse) { heap in
                        var columns = HeapedWaterfallColumns(heights: heights, heap: heap, lastWins: lastWins)
                        place(items, from: first, placement, columns: &columns, bottom: &bottom, into: frames, checkpoints: &checkpoints)
                    }
                }
            }
        }
        let end = bottom + insets.bottom
        let footer = context.hasFooter ? Rect(x: 0, y: end, width: W, height: context.footerHeight) : nil
        return SectionFrames(cells: cells, header: header, footer: footer, height: footer?.maxY ?? end, checkpoints: checkpoints)
    }

    static func columnsInUse(parameters p: WaterfallParameters, itemCount: Int) -> Int {
        Swift.min(p.columns, Swift.max(itemCount, 1))
    }

    /// Where a slot's frame goes across, and how tall slots are.
    private struct Placement {
        let grid: WaterfallGrid
        /// The column the first tracked column is.
        let firstColumn: Int
        let padding: Double
        let spacing: Double
        let itemHeight: Double

        init(grid: WaterfallGrid, firstColumn: Int, parameters p: WaterfallParameters) {
            self.grid = grid
            self.firstColumn = firstColumn
            padding = p.cellPadding
            spacing = p.interitemSpacing
            itemHeight = p.itemHeight
        }
    }

    /// Places the items from `first` on in order, as the seeds' loops do, and saves the state before
    /// every multiple of `checkpointInterval` (past 0, short of the item count) when keeping them.
    private static func place<Columns: WaterfallColumnHeights>(
        _ items: ItemSizes, from first: Int, _ placement: Placement,
        columns: inout Columns, bottom: inout Double, into frames: MutableFrameColumns, checkpoints: inout SectionCheckpoints
    ) {
        if placement.spacing == 0 {
            place(items, from: first, placement, spacing: Unspaced(), columns: &columns, bottom: &bottom, into: frames, checkpoints: &checkpoints)
        } else {
            place(items, from: first, placement, spacing: Spaced(spacing: placement.spacing), columns: &columns, bottom: &bottom, into: frames, checkpoints: &checkpoints)
        }
    }

    private static func place<Columns: WaterfallColumnHeights, Spacing: WaterfallSpacing>(
        _ items: ItemSizes, from first: Int, _ placement: Placement, spacing: Spacing,
        columns: inout Columns, bottom: inout Double, into frames: MutableFrameColumns, checkpoints: inout SectionCheckpoints
    ) {
        let grid = placement.grid
        let padding = placement.padding
        // The item's content width; its frame keeps the tutorial's `insetBy`: slot width - 2 * padding.
        let itemWidth = grid.columnWidth - 2 * padding
        let count = items.count
        let keepsCheckpoints = checkpoints.width > 0
        items.withHeightColumns(forWidth: itemWidth, defaultHeight: placement.itemHeight) { heights in
            var start = first
            while start < count {
                let end = Swift.min(count, (start / checkpointInterval + 1) * checkpointInterval)
                for item in start..<end {
                    let slotHeight = heights.height(at: item) + 2 * padding
                    let (column, y) = columns.placeOnShortest(advance: spacing.advance(slotHeight))
                    spacing.lower(&bottom, toSlotEndingAt: y + slotHeight)
                    frames.set(
                        item,
                        x: grid.x(ofColumn: placement.firstColumn + column) + padding,
                        y: y + padding,
                        width: itemWidth,
                        height: slotHeight - 2 * padding
                    )
                }
                if keepsCheckpoints, end < count {
                    columns.save(into: &checkpoints, before: end, bottom: Spacing.tracksBottom ? bottom : columns.tallest)
                }
                start = end
            }
        }
        if !Spacing.tracksBottom { bottom = columns.tallest }
    }
}

/// How a column grows past a slot, and how the section's bottom is found.
private protocol WaterfallSpacing {
    /// Whether `lower(_:toSlotEndingAt:)` keeps the bottom; if not, it is the tallest column.
    static var tracksBottom: Bool { get }
    /// How far a slot `slotHeight` tall moves its column down.
    func advance(_ slotHeight: Double) -> Double
    /// Moves `bottom` down to `slotEnd` if it is lower.
    func lower(_ bottom: inout Double, toSlotEndingAt slotEnd: Double)
}

/// No `interitemSpacing` (the tutorial): a column's height is its last slot's end, so the lowest slot end
/// is the tallest column, found once at the end rather than compared per item.
private struct Unspaced: WaterfallSpacing {
    static var tracksBottom: Bool { false }
    @inline(__always) func advance(_ slotHeight: Double) -> Double { slotHeight }
    @inline(__always) func lower(_ bottom: inout Double, toSlotEndingAt slotEnd: Double) {}
}

/// With `interitemSpacing`: a column ends `spacing` past its last slot, so the lowest slot end is kept.
private struct Spaced: WaterfallSpacing {
    let spacing: Double
    static var tracksBottom: Bool { true }
    /// `slot + spacing`, grouped as seed 004 grows a column by `height + padding`.
    @inline(__always) func advance(_ slotHeight: Double) -> Double { slotHeight + spacing }
    @inline(__always) func lower(_ bottom: inout Double, toSlotEndingAt slotEnd: Double) { bottom = Swift.max(bottom, slotEnd) }
}
