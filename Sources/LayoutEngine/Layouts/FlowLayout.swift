/// CollectionViewFlowLayout (LAYOUTS.md `flow`): rows of same-height flow items, and span items
/// alone on their row at full row width.
///
/// Section: header → `+ inset.top` → rows → `+ inset.bottom` → footer (the framework's order).
/// Sequential within a section: each row starts where the previous one ended, and sections already
/// run in parallel.
///
/// At the first row start past every multiple of `checkpointInterval` items, the running state is saved
/// (`SectionFrames.checkpoints`) so that a batch can resume from there: where a row ended cannot be read
/// back from `center`'s rounded frames.
enum FlowLayout: SectionLayout {
    /// Items between checkpoints (at least; a checkpoint waits for the next row start).
    static let checkpointInterval = 256

    /// The kind of the row placed last, which decides the gap before the next one.
    enum RowKind: Double {
        case none = 0
        /// A flow row, still open: the next flow item may join it.
        case flow = 1
        case span = 2
        /// A flow row already finished (a resumed section's first row follows one).
        case finishedFlow = 3
    }

    /// The running state before a row starts, with the row before it (if any) finished.
    struct RowStart {
        /// The row's first item.
        var item: Int
        var previous: RowKind
        /// Where the previous row ended: the next row's top before the gap above it.
        var y: Double
        /// The greatest cell maxY so far.
        var maxY: Double

        static let width = 3

        /// The checkpoint's values.
        var state: [Double] { [previous.rawValue, y, maxY] }

        init(item: Int, previous: RowKind, y: Double, maxY: Double) {
            self.item = item
            self.previous = previous
            self.y = y
            self.maxY = maxY
        }

        /// The row start a checkpoint saved; nil for values no checkpoint holds.
        init?(item: Int, state: ArraySlice<Double>) {
            // A checkpoint always follows a finished row, never an open one.
            guard state.count == Self.width, let kind = RowKind(rawValue: state[state.startIndex]), kind != .flow else { return nil }
            self.init(item: item, previous: kind, y: state[state.startIndex + 1], maxY: state[state.startIndex + 2])
        }
    }

    /// Where a resumed section restarts.
    struct Restart {
        var start: RowStart
        /// The cells before the batch; the first `start.item` are kept.
        var cells: FrameColumns
        /// The checkpoints before `start`.
        var checkpoints: SectionCheckpoints
    }

    static func layOut(_ section: Section, parameters p: FlowParameters, context: SectionContext) -> SectionFrames {
        layOut(section, parameters: p, context: context, from: nil)
    }

    /// The section placed from its top, or from `restart`.
    static func layOut(_ section: Section, parameters p: FlowParameters, context: SectionContext, from restart: Restart?) -> SectionFrames {
        let insets = p.sectionInsets
        let W = context.contentWidth
        // Insets wider than the content would give negative widths and, scaling a wide item, a
        // division by zero; no row can be narrower than nothing.
        let rowWidth = Swift.max(0, W - insets.left - insets.right)
        let header = context.hasHeader ? Rect(x: 0, y: 0, width: W, height: context.headerHeight) : nil
        let top = context.headerHeight.clampedToZero + insets.top
        let sizes = FlowItemSizes(items: section.items, defaultSize: p.defaultItemSize, rowWidth: rowWidth)
        let transform = FlowRowTransform(
            kind: p.rowTransform, rowWidth: rowWidth, left: insets.left,
            spacing: p.interitemSpacing, fillMaxScale: p.fillMaxScale, sectionTop: context.top
        )

        let start = restart?.start ?? RowStart(item: 0, previous: .none, y: top, maxY: top)
        var checkpoints = restart?.checkpoints ?? SectionCheckpoints(width: RowStart.width)
        var rowsEnd = top
        var cellsMaxY = top
        let previous = restart?.cells ?? FrameColumns()
        let cells = FrameColumns(count: section.items.count, copying: start.item, of: previous, segments: context.segments) { frames in
            (rowsEnd, cellsMaxY) = placeRows(into: frames, from: start, sizes: sizes, parameters: p, transform: transform, checkpoints: &checkpoints)
        }
        var y = rowsEnd + insets.bottom
        let footer = context.hasFooter ? Rect(x: 0, y: y, width: W, height: context.footerHeight) : nil
        if footer != nil { y += context.footerHeight }
        // `center` rounds frames but not the rows' advance, so a frame may end up to 1pt lower.
        return SectionFrames(
            cells: cells, header: header, footer: footer, height: Swift.max(y, cellsMaxY), checkpoints: checkpoints,
            roundingTop: p.rowTransform == .center ? context.top : nil
        )
    }

    /// Places the items from `start` on; returns where the rows end (unrounded) and the greatest cell maxY.
    private static func placeRows(
        into frames: MutableFrameColumns, from start: RowStart, sizes: FlowItemSizes, parameters p: FlowParameters,
        transform: FlowRowTransform, checkpoints: inout SectionCheckpoints
    ) -> (end: Double, maxY: Double) {
        let left = p.sectionInsets.left
        let rowWidth = sizes.rowWidth
        let spacing = p.interitemSpacing
        let interspan = p.resolvedInterspanSpacing
        let spanBefore = p.resolvedSpanGroupSpacingBefore
        let spanAfter = p.resolvedSpanGroupSpacingAfter

        var previous = start.previous
        // The open flow row; meaningful only while `previous == .flow`.
        var row = FlowRow(first: 0, y: start.y, left: left, width: 0, height: 0, spacing: spacing)
        // The top of the next row, before the gap that precedes it.
        var y = start.y
        var maxY = start.maxY
        // A resumed section saves its restart point again, as the full pass did there.
        var nextCheckpoint = start.item == 0 ? checkpointInterval : start.item

        func finishRow() {
            let (advance, rowMaxY) = transform.apply(to: row, in: frames)
            y = row.y + advance
            maxY = Swift.max(maxY, rowMaxY)
            previous = .finishedFlow
        }

        /// Item `i` starts a row: finishes the open one and saves a checkpoint when one is due.
        func closeRow(before i: Int) {
            if previous == .flow { finishRow() }
            if i >= nextCheckpoint {
                checkpoints.append(item: i, state: RowStart(item: i, previous: previous, y: y, maxY: maxY).state)
                nextCheckpoint = (i / checkpointInterval + 1) * checkpointInterval
            }
        }

        for i in start.item..<frames.xs.count {
            if sizes.isSpan(at: i) {
                closeRow(before: i)
                switch previous {
                case .none: break
                case .flow, .finishedFlow: y += spanBefore
                case .span: y += interspan
                }
                let h = sizes.spanHeight(at: i)
                frames.set(i, x: left, y: y, width: rowWidth, height: h)
                y += h
                maxY = Swift.max(maxY, y)
                previous = .span
                continue
            }
            let (w, h) = sizes.flowSize(at: i)
            if previous == .flow && row.admits(width: w, height: h, spacing: spacing, rowWidth: rowWidth) {
                let x = row.append(width: w, spacing: spacing)
                frames.set(i, x: x, y: row.y, width: w, height: h)
                continue
            }
            closeRow(before: i)
            switch previous {
            case .none: break
            case .flow, .finishedFlow: y += spacing
            case .span: y += spanAfter
            }
            row = FlowRow(first: i, y: y, left: left, width: w, height: h, spacing: spacing)
            frames.set(i, x: left, y: y, width: w, height: h)
            previous = .flow
        }
        if previous == .flow { finishRow() }
        return (y, maxY)
    }
}
