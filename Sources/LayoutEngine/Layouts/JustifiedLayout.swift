/// flickr's justified-layout 4.1.0 (LAYOUTS.md `justified`): rows of photos scaled to one height each,
/// filling the width, near `targetRowHeight`.
///
/// Section: header → the container (flickr's `containerPadding` is `sectionInsets`; its boxes are the
/// cells, moved down by the header) → footer. For one section without header or footer, the cells are
/// flickr's boxes and the section's height its `containerHeight`, bit for bit.
///
/// Sequential within a section: a row is decided by the items before it. At the first row start past
/// every multiple of `checkpointInterval` items the running state is saved (`SectionFrames.checkpoints`),
/// so that a batch can resume from the row holding its first change instead of from the section's top.
enum JustifiedLayout: SectionLayout {
    /// Items between checkpoints (at least; a checkpoint waits for the next row start).
    static let checkpointInterval = 256

    /// The running state before a row starts, every row before it placed; also where `maxNumRows` stops
    /// placing rows (`rowCount` is then the limit).
    struct RowStart {
        /// The row's first item.
        var item: Int
        /// Rows placed so far (for the breakout cadence and `maxNumRows`).
        var rowCount: Int
        /// flickr's `_containerHeight`: this row's top in the container.
        var top: Double
        /// Where the last placed row ends (its top + height; the container's top inset before any row):
        /// the y of items left out.
        var lastRowBottom: Double
        /// The height widows take: the last row's, the target after a breakout row or before any row.
        var widowHeight: Double

        static let width = 4

        /// The checkpoint's values (a row count below 2^53 is exact as a Double).
        var state: [Double] { [Double(rowCount), top, lastRowBottom, widowHeight] }

        init(item: Int, rowCount: Int, top: Double, lastRowBottom: Double, widowHeight: Double) {
            self.item = item
            self.rowCount = rowCount
            self.top = top
            self.lastRowBottom = lastRowBottom
            self.widowHeight = widowHeight
        }

        /// The row start a checkpoint saved; nil for values no checkpoint holds.
        init?(item: Int, state: ArraySlice<Double>) {
            guard state.count == Self.width else { return nil }
            let values = Array(state)
            guard let rowCount = Int(exactly: values[0]), rowCount >= 0 else { return nil }
            self.init(item: item, rowCount: rowCount, top: values[1], lastRowBottom: values[2], widowHeight: values[3])
        }
    }

    /// Where a resumed section restarts.
    struct Restart {
        var start: RowStart
        /// The cells before the batch; the first `keptCells` are kept.
        var cells: FrameColumns
        /// `start.item`, or past it when `start` is where `maxNumRows` stopped placing rows: the items
        /// left out from there on all have the same zero-size frame, so those below the first affected
        /// item are kept too.
        var keptCells: Int
        /// The checkpoints before `start`.
        var checkpoints: SectionCheckpoints
    }

    /// How the rows ended: what the section's height, the left-out items and the counts need.
    private struct Ending {
        var rowCount: Int
        var top: Double
        var lastRowBottom: Double
        var placement = PlacementCounts()
    }

    static func layOut(_ section: Section, parameters p: JustifiedParameters, context: SectionContext) -> SectionFrames {
        layOut(section, parameters: p, context: context, from: nil)
    }

    /// The section placed from its top, or from `restart`.
    static func layOut(_ section: Section, parameters p: JustifiedParameters, context: SectionContext, from restart: Restart?) -> SectionFrames {
        let W = context.contentWidth
        let insets = p.sectionInsets
        let header = context.hasHeader ? Rect(x: 0, y: 0, width: W, height: context.headerHeight) : nil
        let headerOffset = context.headerHeight.clampedToZero
        let rows = JustifiedRows(parameters: p, contentWidth: W, headerOffset: headerOffset)
        let start = restart?.start
            ?? RowStart(item: 0, rowCount: 0, top: insets.top, lastRowBottom: insets.top, widowHeight: p.targetRowHeight)
        var checkpoints = restart?.checkpoints ?? SectionCheckpoints(width: RowStart.width)
        var ending = Ending(rowCount: 0, top: insets.top, lastRowBottom: insets.top)
        let previous = restart?.cells ?? FrameColumns()
        let kept = restart?.keptCells ?? 0
        let cells = FrameColumns(count: section.items.count, copying: kept, of: previous, segments: context.segments) { frames in
            let placement = RowPlacement(frames: frames, start: start, kept: kept, rows: rows, parameters: p, checkpoints: checkpoints)
            (ending, checkpoints) = section.items.withJustifiedRatios(forced: p.forceAspectRatio, placement)
        }
        // flickr takes back the spacing it added after the last row; with no row it would take back one
        // it never added (a negative height when the spacing exceeds the insets): layoutd does not.
        let containerHeight = ending.rowCount > 0
            ? (ending.top - p.boxSpacing.vertical) + insets.bottom
            : insets.top + insets.bottom
        var y = headerOffset + containerHeight
        let footer = context.hasFooter ? Rect(x: 0, y: y, width: W, height: context.footerHeight) : nil
        if footer != nil { y += context.footerHeight }
        return SectionFrames(cells: cells, header: header, footer: footer, height: y, checkpoints: checkpoints, placement: ending.placement)
    }

    /// `placeRows` as a body for `withJustifiedRatios`, which specialises it for the ratios' source.
    private struct RowPlacement: JustifiedRatiosBody {
        let frames: MutableFrameColumns
        let start: RowStart
        let kept: Int
        let rows: JustifiedRows
        let parameters: JustifiedParameters
        let checkpoints: SectionCheckpoints

        func run<Ratios: JustifiedRatios>(with ratios: Ratios) -> (Ending, SectionCheckpoints) {
            var checkpoints = checkpoints
            let ending = placeRows(
                into: frames, from: start, keeping: kept, rows: rows, parameters: parameters, ratios: ratios, checkpoints: &checkpoints
            )
            return (ending, checkpoints)
        }
    }

    /// flickr's `computeLayout` from `start` on: fills rows item by item, places each as it completes,
    /// then the widows (or leaves them out), and gives every item left out from `kept` on a zero-size frame.
    ///
    /// Checkpoints: at the first row start at or past each multiple of `checkpointInterval`, and where
    /// `maxNumRows` stops; a pass resumed at a checkpoint saves that one again, so it keeps the same ones.
    private static func placeRows<Ratios: JustifiedRatios>(
        into frames: MutableFrameColumns, from start: RowStart, keeping kept: Int, rows: JustifiedRows,
        parameters p: JustifiedParameters, ratios: Ratios, checkpoints: inout SectionCheckpoints
    ) -> Ending {
        let count = frames.xs.count
        let vertical = p.boxSpacing.vertical
        let maxRows = p.maxNumRows ?? Int.max
        var state = start
        // A resumed section saves its restart point again, as the full pass did there.
        var nextCheckpoint = start.item == 0 ? checkpointInterval : start.item
        var stopped = false

        rowLoop: while state.item < count {
            let first = state.item
            let stops = state.rowCount >= maxRows
            if first >= nextCheckpoint || stops {
                checkpoints.append(item: first, state: state.state)
                nextCheckpoint = (first / checkpointInterval + 1) * checkpointInterval
            }
            if stops {
                stopped = true
                break rowLoop
            }
            let isBreakout = p.fullWidthBreakoutRowCadence.map { (state.rowCount + 1) % $0 == 0 } ?? false
            guard let (end, newHeight) = fill(from: first, count: count, isBreakout: isBreakout, rows: rows, ratios: ratios) else {
                break rowLoop
            }
            let height = rows.placeCompletedRow(first..<end, height: newHeight, top: state.top, ratios: ratios, into: frames)
            state.lastRowBottom = state.top + height
            state.top += height + vertical
            state.widowHeight = isBreakout ? p.targetRowHeight : height
            state.rowCount += 1
            state.item = end
        }

        var ending = Ending(rowCount: state.rowCount, top: state.top, lastRowBottom: state.lastRowBottom)
        let open = state.item..<count
        if !open.isEmpty && !stopped && p.showWidows {
            rows.placeWidowRow(open, height: state.widowHeight, style: p.widowLayoutStyle, top: state.top, ratios: ratios, into: frames)
            ending.top += state.widowHeight + vertical
            ending.rowCount += 1
            ending.placement.widowCount = open.count
        } else if !open.isEmpty {
            let y = state.lastRowBottom + rows.headerOffset
            for item in Swift.max(open.lowerBound, kept)..<count { frames.set(item, x: rows.left, y: y, width: 0, height: 0) }
            ending.placement.hiddenItemCount = open.count
        }
        return ending
    }

    /// flickr's `addItem` on a new row from item `first` until the row completes: the end of the row
    /// (an item it rejects starts the next one) and the height it asks for; nil when the items run out
    /// first (the open row is the widows).
    @inline(__always)
    private static func fill<Ratios: JustifiedRatios>(
        from first: Int, count: Int, isBreakout: Bool, rows: JustifiedRows, ratios: Ratios
    ) -> (end: Int, height: Double)? {
        if isBreakout {
            // A breakout row takes a square or landscape first item alone, full width.
            let ratio = ratios.ratio(at: first)
            if ratio >= 1 { return (first + 1, rows.widthWithoutSpacing(forCount: 1) / ratio) }
        }
        // flickr sums the row's ratios from 0 in item order each time; a running sum is the same sum.
        var sum = 0.0
        var item = first
        while item < count {
            let newSum = sum + ratios.ratio(at: item)
            if newSum < rows.minAspectRatio {
                sum = newSum
                item += 1
                continue
            }
            let n = item - first + 1
            let rowWidth = rows.widthWithoutSpacing(forCount: n)
            if newSum > rows.maxAspectRatio && n > 1 {
                // Too wide with this item: keep it only if that lands nearer the target than without.
                let previousWidth = rows.widthWithoutSpacing(forCount: n - 1)
                let target = rowWidth / rows.targetRowHeight
                let previousTarget = previousWidth / rows.targetRowHeight
                if Swift.abs(newSum - target) > Swift.abs(sum - previousTarget) {
                    return (item, previousWidth / sum)
                }
            }
            return (item + 1, rowWidth / newSum)
        }
        return nil
    }
}
