/// Apple's ColumnFlowLayout (LAYOUTS.md `columnFlow`, seed 000): a flow layout whose item size follows
/// the bounds: as many `minColumnWidth` columns as fit, a list on narrow screens, a grid on wide ones.
///
/// Works on bounds.width and ignores contentInsets. Section: header → top inset `interitemSpacing`
/// (kept by an empty section) → rows → footer. Every frame is a closed form of its item index, so item
/// ranges run in parallel.
enum ColumnFlowLayout: SectionLayout {
    static func layOut(_ section: Section, parameters p: ColumnFlowParameters, context: SectionContext) -> SectionFrames {
        let B = context.boundsWidth
        let header = context.hasHeader ? Rect(x: 0, y: 0, width: B, height: context.headerHeight) : nil
        let grid = ColumnFlowGrid(parameters: p, boundsWidth: B, top: header?.maxY ?? 0)
        let count = section.items.count
        let cells = FrameColumns(count: count) { frames in
            context.segments.forEachSegment(count: count) { _, range in
                grid.place(range, into: frames)
            }
        }
        let rows = grid.rowCount(forItemCount: count)
        let rowsBottom = rows == 0 ? grid.rowsTop : grid.y(ofRow: rows - 1) + grid.cellHeight
        let footer = context.hasFooter ? Rect(x: 0, y: rowsBottom, width: B, height: context.footerHeight) : nil
        return SectionFrames(cells: cells, header: header, footer: footer, height: footer?.maxY ?? rowsBottom)
    }
}
