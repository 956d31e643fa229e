/// Walks a prepared layout's elements by ordinal (layout order) over its storage, borrowed as raw
/// buffers for the length of one call: a query then copies and retains nothing per candidate, and a
/// cell that misses never becomes a `LayoutElement`.
struct ElementScanner {
    let sections: UnsafeBufferPointer<SectionFrames>
    /// The y at which each section starts.
    let tops: UnsafeBufferPointer<Double>
    /// First element ordinal of each section, plus the total at the end.
    let ordinalStarts: UnsafeBufferPointer<Int>
    /// The width of the background decorations; nil when sections have none.
    let backgroundWidth: Double?


    /// Calls `body` for every element with an ordinal in `range` whose content-coordinate frame `filter`
    /// accepts, in layout order: per section header, cells by item, footer, decoration.
    @inline(__always)
    func forEach<Filter: FrameFilter>(inOrdinals range: Range<Int>, where filter: Filter, _ body: (LayoutElement) -> Void) {
        guard !range.isEmpty else { return }
        var section = ordinalStarts.section(holdingOrdinal: range.lowerBound)
        var ordinal = range.lowerBound
        while ordinal < range.upperBound, section < sections.count {
            let top = tops[section]
            let sectionEnd = Swift.min(ordinalStarts[section + 1], range.upperBound)
            let header = sections[section].header
            let footer = sections[section].footer
            let cellStart = ordinalStarts[section] + (header == nil ? 0 : 1)
            let cellEnd = cellStart + sections[section].cells.count
            if ordinal < cellStart, ordinal < sectionEnd, let header {
                visit(.header, section: section, frame: header.offsetBy(dy: top), filter, body)
                ordinal += 1
            }
            let cellsEnd = Swift.min(cellEnd, sectionEnd)
            if ordinal < cellsEnd {
                let first = ordinal - cellStart
                let last = cellsEnd - cellStart
                sections[section].cells.withUnsafeColumns { xs, ys, widths, heights in
                    for item in first..<last {
                        // `cells[item].offsetBy(dy: top)`, without building the rect of a miss.
                        let y = ys[item] + top
                        if filter.accepts(x: xs[item], y: y, width: widths[item], height: heights[item]) {
                            let frame = Rect(x: xs[item], y: y, width: widths[item], height: heights[item])
                            body(LayoutElement(kind: .cell, section: section, item: item, frame: frame))
                        }
                    }
                }
                ordinal = cellsEnd
            }
            if ordinal == cellEnd, ordinal < sectionEnd, let footer {
                visit(.footer, section: section, frame: footer.offsetBy(dy: top), filter, body)
                ordinal += 1
            }
            if ordinal < sectionEnd, let backgroundWidth {
                // All that is left of the section is its background decoration.
                let background = Rect(x: 0, y: 0, width: backgroundWidth, height: sections[section].height)
                visit(.decoration, section: section, frame: background.offsetBy(dy: top), filter, body)
                ordinal += 1
            }
            section += 1
        }
    }

    @inline(__always)
    private func visit<Filter: FrameFilter>(_ kind: ElementKind, section: Int, frame: Rect, _ filter: Filter, _ body: (LayoutElement) -> Void) {
        if filter.accepts(x: frame.x, y: frame.y, width: frame.width, height: frame.height) {
            body(LayoutElement(kind: kind, section: section, item: 0, frame: frame))
        }
    }
}

/// Which frames an `ElementScanner` walk reports.
protocol FrameFilter {
    func accepts(x: Double, y: Double, width: Double, height: Double) -> Bool
}

/// Every frame.
struct EveryFrame: FrameFilter {
    @inline(__always)
    func accepts(x: Double, y: Double, width: Double, height: Double) -> Bool { true }
}

/// Frames overlapping `rect` with positive area: `Rect.intersects`, term for term, y terms first
/// (layouts stack along y, so they are the ones that reject), the point test last (rarely a point).
struct FramesOverlapping: FrameFilter {
    let minX: Double
    let minY: Double
    let maxX: Double
    let maxY: Double

    init(_ rect: Rect) {
        minX = rect.minX
        minY = rect.minY
        maxX = rect.maxX
        maxY = rect.maxY
    }

    @inline(__always)
    func accepts(x: Double, y: Double, width: Double, height: Double) -> Bool {
        y < maxY && y + height > minY && x < maxX && x + width > minX && (width > 0 || height > 0)
    }
}
