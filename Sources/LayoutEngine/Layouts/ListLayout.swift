/// CollectionViewListLayout (LAYOUTS.md `list`): one full-width item per row.
///
/// Section: header → `+ inset.top` → items, `spacing` between them → footer → `+ inset.bottom`.
/// Large sections are placed by segment: each segment stacks its items from 0 and reports its extent, and
/// a prefix sum gives each segment's start. In parallel that takes two passes (stack, then shift each
/// segment to its start); serially one, since each start is known before its segment is stacked. Both
/// write `local + start`, so the frames are the same bit for bit.
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

        let cells = FrameColumns(count: count) { frames in
            items.withHeightColumns(forWidth: itemWidth, defaultHeight: p.itemHeight) { heights in
                let segmentCount = segments.segmentCount(for: count)
                if segments.isParallel, segmentCount > 1 {
                    // Pass 1: stack each segment from its own 0.
                    var extents = [Double](repeating: 0, count: segmentCount)
                    extents.withUnsafeMutableBufferPointer { extentsBuffer in
                        let extentsOut = SendableBuffer(extentsBuffer)
                        segments.forEachSegment(count: count) { segment, range in
                            extentsOut[segment] = stack(range, heights: heights, spacing: spacing, x: itemX, width: itemWidth, start: nil, into: frames)
                        }
                    }
                    // Prefix sum: where each segment starts (the spacing between segments included).
                    var segmentStarts = [Double](repeating: 0, count: segmentCount)
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
                } else {
                    // One pass, segment after segment: each segment's start is known before it is stacked,
                    // so y = local + start is written at once, the same sum the two passes make.
                    var y = itemsTop
                    for segment in 0..<segmentCount {
                        if segment > 0 { y += spacing }
                        let range = segments.range(ofSegment: segment, count: count)
                        let start = y
                        y = start + stack(range, heights: heights, spacing: spacing, x: itemX, width: itemWidth, start: start, into: frames)
                    }
                }
            }
        }
        var y = itemsTop
        if count > 0 { y = cells.ys[count - 1] + cells.heights[count - 1] }
        let footer = context.hasFooter ? supplementaryFrame(y: y, height: context.footerHeight, width: W, parameters: p) : nil
        if footer != nil { y += context.footerHeight }
        return SectionFrames(cells: cells, header: header, footer: footer, height: y + insets.bottom)
    }

    /// Stacks the items of `range` from 0 (`spacing` between them) and returns the extent; writes each
    /// y as its local offset, or as `local + start` when the segment's start is already known.
    @inline(__always)
    private static func stack(
        _ range: Range<Int>, heights: ItemHeightColumns, spacing: Double, x: Double, width: Double,
        start: Double?, into frames: MutableFrameColumns
    ) -> Double {
        guard let first = range.first else { return 0 }
        if let start {
            return stack(range, first: first, heights: heights, spacing: spacing, x: x, width: width, into: frames) { $0 + start }
        }
        return stack(range, first: first, heights: heights, spacing: spacing, x: x, width: width, into: frames) { $0 }
    }

    @inline(__always)
    private static func stack(
        _ range: Range<Int>, first: Int, heights: ItemHeightColumns, spacing: Double, x: Double, width: Double,
        into frames: MutableFrameColumns, placing place: (Double) -> Double
    ) -> Double {
        var y = 0.0
        if heights.isUniform {
            let h = heights.defaultHeight
            frames.set(first, x: x, y: place(y), width: width, height: h)
            y += h
            for i in (first + 1)..<range.upperBound {
                y += spacing
                frames.set(i, x: x, y: place(y), width: width, height: h)
                y += h
            }
        } else {
            let h = heights.height(at: first)
            frames.set(first, x: x, y: place(y), width: width, height: h)
            y += h
            for i in (first + 1)..<range.upperBound {
                let h = heights.height(at: i)
                y += spacing
                frames.set(i, x: x, y: place(y), width: width, height: h)
                y += h
            }
        }
        return y
    }

    private static func supplementaryFrame(y: Double, height: Double, width W: Double, parameters p: ListParameters) -> Rect {
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
