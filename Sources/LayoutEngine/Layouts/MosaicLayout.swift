/// Apple's MosaicLayout (LAYOUTS.md `mosaic`, seed 000): segments `segmentHeight` tall, stacked `spacing`
/// apart below the header, each holding one to three items in one of four styles.
///
/// Every segment is computed from its index and the item count alone (`MosaicSegmentPattern`,
/// `MosaicGeometry.y(ofSegment:)`), so item ranges run in parallel with no prefix pass and any split
/// gives the same frames bit for bit.
enum MosaicLayout: SectionLayout {
    static func layOut(_ section: Section, parameters p: MosaicParameters, context: SectionContext) -> SectionFrames {
        let W = context.contentWidth
        let header = context.hasHeader ? Rect(x: 0, y: 0, width: W, height: context.headerHeight) : nil
        let top = header?.maxY ?? 0
        let count = section.items.count
        let geometry = MosaicGeometry(itemCount: count, width: W, parameters: p, top: top)
        let cells = FrameColumns(count: count) { frames in
            context.segments.forEachSegment(count: count) { _, range in
                geometry.place(range, into: frames)
            }
        }
        let cellsBottom = bottomOfLastSegment(cells, pattern: geometry.pattern) ?? top
        let footer = context.hasFooter ? Rect(x: 0, y: cellsBottom, width: W, height: context.footerHeight) : nil
        return SectionFrames(cells: cells, header: header, footer: footer, height: footer?.maxY ?? cellsBottom)
    }

    /// The largest maxY of the last segment's cells (nil without cells).
    ///
    /// Every rect of the last segment ends by the segment's y + segmentHeight, the full-height ones exactly
    /// there; reading the stored frames keeps the section end from falling an ulp short of a stacked rect
    /// whose y and height were rounded apart.
    private static func bottomOfLastSegment(_ cells: FrameColumns, pattern: MosaicSegmentPattern) -> Double? {
        guard pattern.itemCount > 0 else { return nil }
        let first = MosaicSegmentPattern.firstItem(ofSegment: pattern.segmentCount - 1)
        var bottom = -Double.infinity
        for item in first..<pattern.itemCount {
            bottom = Swift.max(bottom, cells.ys[item] + cells.heights[item])
        }
        return bottom
    }
}
