/// CollectionViewListLayout (LAYOUTS.md `list`): one full-width item per row.
///
/// Section: header → `+ inset.top` → items, `spacing` between them → footer → `+ inset.bottom`.
/// Large sections are placed by segment: each segment stacks its items from 0 and reports its extent, and
/// a prefix sum gives each segment's start. In parallel that takes two passes (stack, then shift each
/// segment to its start); serially one, since each start is known before its segment is stacked. Both
/// write `local + start`, so the frames are the same bit for bit.
enum ListLayout: SectionLayout {
    static func layOut(_ section: Section, parameters p: ListParameters, context: SectionContext) -> SectionFrames {
        let geometry = ListSectionGeometry(parameters: p, context: context)
        let count = section.items.count
        let cells = FrameColumns(count: count) { frames in
            placeSegments(from: 0, start: geometry.itemsTop, of: section.items, geometry: geometry, segments: context.segments, into: frames)
        }
        return finish(cells, geometry: geometry, context: context)
    }

    /// The section around its cells: the footer under the last cell, then the bottom inset.
    static func finish(_ cells: FrameColumns, geometry: ListSectionGeometry, context: SectionContext) -> SectionFrames {
        let count = cells.count
        var y = geometry.itemsTop
        if count > 0 { y = cells.ys[count - 1] + cells.heights[count - 1] }
        let footer = context.hasFooter ? geometry.supplementaryFrame(y: y, height: context.footerHeight) : nil
        if footer != nil { y += context.footerHeight }
        let header = context.hasHeader ? geometry.supplementaryFrame(y: 0, height: context.headerHeight) : nil
        return SectionFrames(cells: cells, header: header, footer: footer, height: y + geometry.insets.bottom)
    }

    /// Stacks the segments from `firstSegment` on, the first one starting at `start`.
    ///
    /// From segment 0 at `itemsTop` this is the whole section. Starting later gives the same frames as long
    /// as `start` is the y the whole pass gives that segment: every later segment's start and every y in it
    /// follows from that start and the items from there on.
    static func placeSegments(
        from firstSegment: Int, start: Double, of items: ItemSizes, geometry: ListSectionGeometry, segments: Segments,
        into frames: MutableFrameColumns
    ) {
        let count = items.count
        let spacing = geometry.spacing
        let itemX = geometry.itemX
        let itemWidth = geometry.itemWidth
        items.withHeightColumns(forWidth: itemWidth, defaultHeight: geometry.itemHeight) { heights in
            let segmentCount = segments.segmentCount(for: count)
            guard firstSegment < segmentCount else { return }
            if segments.isParallel, segmentCount - firstSegment > 1 {
                // Pass 1: stack each segment from its own 0.
                var extents = [Double](repeating: 0, count: segmentCount)
                extents.withUnsafeMutableBufferPointer { extentsBuffer in
                    let extentsOut = SendableBuffer(extentsBuffer)
                    segments.forEachSegment(count: count, from: firstSegment) { segment, range in
                        extentsOut[segment] = stack(range, heights: heights, spacing: spacing, x: itemX, width: itemWidth, start: nil, into: frames)
                    }
                }
                // Prefix sum: where each segment starts (the spacing between segments included).
                var segmentStarts = [Double](repeating: 0, count: segmentCount)
                var y = start
                for segment in firstSegment..<segmentCount {
                    if segment > firstSegment { y += spacing }
                    segmentStarts[segment] = y
                    y += extents[segment]
                }
                let starts = segmentStarts
                // Pass 2: move each segment to its start.
                segments.forEachSegment(count: count, from: firstSegment) { segment, range in
                    let start = starts[segment]
                    for i in range { frames.ys[i] += start }
                }
            } else {
                // One pass, segment after segment: each segment's start is known before it is stacked,
                // so y = local + start is written at once, the same sum the two passes make.
                var y = start
                for segment in firstSegment..<segmentCount {
                    if segment > firstSegment { y += spacing }
                    let range = segments.range(ofSegment: segment, count: count)
                    let start = y
                    y = start + stack(range, heights: heights, spacing: spacing, x: itemX, width: itemWidth, start: start, into: frames)
                }
            }
        }
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
}

/// Where a list section's parts go (LAYOUTS.md `list`), from its parameters and context.
struct ListSectionGeometry {
    let insets: Insets
    /// `W`.
    let width: Double
    /// The header's height (if any) plus the top inset.
    let itemsTop: Double
    let itemX: Double
    let itemWidth: Double
    let itemHeight: Double
    let spacing: Double
    let insetSupplementaryViews: Bool

    init(parameters p: ListParameters, context: SectionContext) {
        insets = p.sectionInsets
        width = context.contentWidth
        insetSupplementaryViews = p.insetSupplementaryViews
        itemsTop = context.headerHeight.clampedToZero + p.sectionInsets.top
        itemX = p.sectionInsets.left
        itemWidth = context.contentWidth - p.sectionInsets.left - p.sectionInsets.right
        itemHeight = p.itemHeight
        spacing = p.spacing
    }

    /// A header or footer frame.
    func supplementaryFrame(y: Double, height: Double) -> Rect {
        insetSupplementaryViews
            ? Rect(x: insets.left, y: y, width: width - insets.left - insets.right, height: height)
            : Rect(x: 0, y: y, width: width, height: height)
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
