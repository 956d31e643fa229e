/// CollectionViewListLayout (LAYOUTS.md `list`): one full-width item per row.
///
/// Section: header → `+ inset.top` → items, `spacing` between them → footer → `+ inset.bottom`.
/// Large sections are placed by segment in two passes: each segment stacks its items from 0 and
/// reports its extent; a prefix sum gives each segment's start; the second pass shifts it there.
enum ListLayout: SectionLayout {
    static func layOut(_ section: Section, parameters p: ListParameters, context: SectionContext) -> SectionFrames {
        let insets = p.sectionInsets
        let W = context.contentWidth
        let header = context.hasHeader ? supplementaryFrame(y: 0, height: context.headerHeight, width: W, parameters: p) : nil
        let itemsTop = context.headerHeight.clampedToZero + insets.top
        let itemX = insets.left
        let itemWidth = W - insets.left - insets.right
        let items = section.items
        let count = items.count
        let segments = context.segments
        let spacing = p.spacing
        let allDefault = items.allDefault

        var extents = [Double](repeating: 0, count: segments.segmentCount(for: count))
        let cells = FrameColumns(count: count) { frames in
            // Pass 1: stack each segment from its own 0.
            extents.withUnsafeMutableBufferPointer { extentsBuffer in
                let extentsOut = SendableBuffer(extentsBuffer)
                segments.forEachSegment(count: count) { segment, range in
                    var y = 0.0
                    for i in range {
                        let h = allDefault ? p.itemHeight : items.height(at: i, forWidth: itemWidth, defaultHeight: p.itemHeight)
                        if i != range.lowerBound { y += spacing }
                        frames.set(i, x: itemX, y: y, width: itemWidth, height: h)
                        y += h
                    }
                    extentsOut[segment] = y
                }
            }
            // Prefix sum: where each segment starts (the spacing between segments included).
            var segmentStarts = [Double](repeating: 0, count: extents.count)
            var y = itemsTop
            for segment in extents.indices {
                if segment > 0 { y += spacing }
                segmentStarts[segment] = y
                y += extents[segment]
            }
            let starts = segmentStarts
            // Pass 2: move each segment to its start.
            segments.forEachSegment(count: count) { segment, range in
                let start = starts[segment]
                for i in range { frames.ys[i] += start }
            }
        }
        var y = itemsTop
        if count > 0 { y = cells.ys[count - 1] + cells.heights[count - 1] }
        let footer = context.hasFooter ? supplementaryFrame(y: y, height: context.footerHeight, width: W, parameters: p) : nil
        if footer != nil { y += context.footerHeight }
        return SectionFrames(cells: cells, header: header, footer: footer, height: y + insets.bottom)
    }

    private static func supplementaryFrame(y: Double, height: Double, width W: Double, parameters p: ListParameters) -> Rect {
        // The items' own expression: `W - (left + right)` can differ from it in the last bit.
        p.insetSupplementaryViews
            ? Rect(x: p.sectionInsets.left, y: y, width: W - p.sectionInsets.left - p.sectionInsets.right, height: height)
            : Rect(x: 0, y: y, width: W, height: height)
    }
}

extension Double {
    /// Heights below 0 mean "absent"; they take no space.
    @inlinable var clampedToZero: Double { Swift.max(0, self) }
}

/// A buffer written at distinct indices by concurrent segments.
///
/// `@unchecked Sendable`: each segment writes only its own index, and the buffer outlives the
/// concurrent loop that uses it.
struct SendableBuffer<Element>: @unchecked Sendable {
    let base: UnsafeMutableBufferPointer<Element>
    init(_ base: UnsafeMutableBufferPointer<Element>) { self.base = base }
    subscript(index: Int) -> Element {
        get { base[index] }
        nonmutating set { base[index] = newValue }
    }
}
