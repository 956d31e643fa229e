/// CollectionViewFlowLayout (LAYOUTS.md `flow`): rows of same-height flow items, and span items
/// alone on their row at full row width.
///
/// Section: header → `+ inset.top` → rows → `+ inset.bottom` → footer (the framework's order).
/// Sequential within a section: each row starts where the previous one ended, and sections already
/// run in parallel.
enum FlowLayout: SectionLayout {
    /// The kind of the row placed last, which decides the gap before the next one.
    private enum RowKind {
        case none
        case flow
        case span
    }

    static func layOut(_ section: Section, parameters p: FlowParameters, context: SectionContext) -> SectionFrames {
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
            spacing: p.interitemSpacing, fillMaxScale: p.fillMaxScale
        )

        var rowsEnd = top
        var cellsMaxY = top
        let cells = FrameColumns(count: section.items.count) { frames in
            (rowsEnd, cellsMaxY) = placeRows(into: frames, sizes: sizes, parameters: p, transform: transform, top: top)
        }
        var y = rowsEnd + insets.bottom
        let footer = context.hasFooter ? Rect(x: 0, y: y, width: W, height: context.footerHeight) : nil
        if footer != nil { y += context.footerHeight }
        // `center` rounds frames but not the rows' advance, so a frame may end up to 1pt lower.
        return SectionFrames(cells: cells, header: header, footer: footer, height: Swift.max(y, cellsMaxY))
    }

    /// Places every item; returns where the rows end (unrounded) and the greatest cell maxY.
    private static func placeRows(
        into frames: MutableFrameColumns, sizes: FlowItemSizes, parameters p: FlowParameters,
        transform: FlowRowTransform, top: Double
    ) -> (end: Double, maxY: Double) {
        let left = p.sectionInsets.left
        let rowWidth = sizes.rowWidth
        let spacing = p.interitemSpacing
        let interspan = p.resolvedInterspanSpacing
        let spanBefore = p.resolvedSpanGroupSpacingBefore
        let spanAfter = p.resolvedSpanGroupSpacingAfter

        var previous = RowKind.none
        // The open flow row; meaningful only while `previous == .flow`.
        var row = FlowRow(first: 0, y: top, left: left, width: 0, height: 0, spacing: spacing)
        // The top of the next row, before the gap that precedes it.
        var y = top
        var maxY = top

        func finishRow() {
            let (advance, rowMaxY) = transform.apply(to: row, in: frames)
            y = row.y + advance
            maxY = Swift.max(maxY, rowMaxY)
        }

        for i in 0..<frames.xs.count {
            if sizes.isSpan(at: i) {
                switch previous {
                case .none: break
                case .flow:
                    finishRow()
                    y += spanBefore
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
            switch previous {
            case .none: break
            case .flow:
                finishRow()
                y += spacing
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
