/// A computed layout: every frame, its content size, and an index for rect queries.
///
/// Frames are stored per section in section-local coordinates plus one offset per section
/// (`sectionTops`); every answer is in content coordinates.
public struct PreparedLayout: Sendable {
    /// Its parts, behind one reference: a kept layout is one word wherever it is kept (a store's hash
    /// table holds a million of them), and its parts take one allocation of their own, sized exactly.
    let parts: PreparedLayoutParts

    /// What the layout was computed from.
    public var input: LayoutInput { parts.input }
    /// Section-local frames, one entry per section.
    public var sectionFrames: [SectionFrames] { parts.sectionFrames }
    /// The y at which each section starts.
    public var sectionTops: [Double] { parts.sectionTops }
    public var contentSize: Size { parts.contentSize }
    /// Whether each section has a `sectionBackground` decoration.
    var hasBackground: Bool { parts.hasBackground }
    /// Width of the background decorations (W; bounds.width for columnFlow).
    var backgroundWidth: Double { parts.backgroundWidth }
    /// First element ordinal (layout order) of each section, plus the total at the end.
    var ordinalStarts: [Int] { parts.ordinalStarts }
    var index: RectIndex { parts.index }

    init(input: LayoutInput, sectionFrames: [SectionFrames], backgroundWidth: Double) {
        self.init(input: input, sectionFrames: sectionFrames, backgroundWidth: backgroundWidth, reusingIndexOf: nil, unchangedElements: 0)
    }

    /// A layout whose first `unchangedElements` elements (in layout order) are, frames and section tops
    /// alike, those of the layout `previous` indexes: the index keeps the boxes that cover only them and
    /// rebuilds the rest, which gives the same boxes as building it whole.
    init(input: LayoutInput, sectionFrames: [SectionFrames], backgroundWidth: Double, reusingIndexOf previous: RectIndex?, unchangedElements: Int) {
        var tops: [Double] = []
        var ordinals: [Int] = [0]
        ordinals.reserveCapacity(sectionFrames.count + 1)
        var y = 0.0
        if sectionFrames.count == 1 {
            // Most small layouts have one section: its top is the one array all of them share.
            tops = Self.singleTop
            y = sectionFrames[0].height
            ordinals.append(sectionFrames[0].elementCount(withBackground: input.sectionBackgrounds))
        } else {
            tops.reserveCapacity(sectionFrames.count)
            for frames in sectionFrames {
                tops.append(y)
                y += frames.height
                ordinals.append(ordinals[ordinals.count - 1] + frames.elementCount(withBackground: input.sectionBackgrounds))
            }
        }
        let elements = IndexedElements(
            sectionFrames: sectionFrames, tops: tops, ordinalStarts: ordinals,
            background: input.sectionBackgrounds ? backgroundWidth : nil
        )
        let unchangedLeaves = previous == nil ? 0 : Swift.min(unchangedElements, elements.count) / RectIndex.leafSize
        parts = PreparedLayoutParts(
            input: input, sectionFrames: sectionFrames, sectionTops: tops, contentSize: Size(width: input.bounds.width, height: y),
            hasBackground: input.sectionBackgrounds, backgroundWidth: backgroundWidth, ordinalStarts: ordinals,
            index: elements.buildIndex(reusing: previous, unchangedLeaves: unchangedLeaves)
        )
    }

    /// The section tops of every one-section layout.
    private static let singleTop: [Double] = [0]

    // MARK: Counts

    /// Number of sections.
    public var sectionCount: Int { sectionFrames.count }

    /// Number of cells in `section`.
    public func itemCount(inSection section: Int) -> Int { sectionFrames[section].cells.count }

    /// Every cell of every section.
    public var itemCount: Int { sectionFrames.reduce(0) { $0 + $1.cells.count } }

    /// Every element: cells, headers, footers and decorations.
    public var elementCount: Int { ordinalStarts[ordinalStarts.count - 1] }

    /// Widows laid out and items left out, over all sections (non-zero only for `justified`).
    public var placementCounts: PlacementCounts {
        sectionFrames.reduce(PlacementCounts()) { $0 + $1.placement }
    }

    // MARK: Lookups

    /// The cell at `item` in `section`, or nil when there is none. O(1).
    public func cell(item: Int, section: Int) -> LayoutElement? {
        guard sectionFrames.indices.contains(section) else { return nil }
        let frames = sectionFrames[section]
        guard item >= 0, item < frames.cells.count else { return nil }
        return LayoutElement(kind: .cell, section: section, item: item, frame: frames.cells[item].offsetBy(dy: sectionTops[section]))
    }

    /// The header, footer or background decoration of `section`, or nil when it has none.
    public func supplementaryElement(_ kind: ElementKind, section: Int) -> LayoutElement? {
        guard sectionFrames.indices.contains(section) else { return nil }
        let frames = sectionFrames[section]
        let local: Rect?
        switch kind {
        case .cell: return nil
        case .header: local = frames.header
        case .footer: local = frames.footer
        case .decoration: local = hasBackground ? backgroundFrame(of: frames) : nil
        }
        guard let local else { return nil }
        return LayoutElement(kind: kind, section: section, item: 0, frame: local.offsetBy(dy: sectionTops[section]))
    }

    private func backgroundFrame(of frames: SectionFrames) -> Rect {
        Rect(x: 0, y: 0, width: backgroundWidth, height: frames.height)
    }

    /// A bounds change invalidates the layout iff the size changes; scrolling never does.
    public func isInvalidated(byBoundsChangeTo newBounds: Size) -> Bool {
        newBounds != input.bounds
    }

    // MARK: Walks in layout order

    /// Runs `body` with the storage borrowed as raw buffers (see `ElementScanner`).
    @inline(__always)
    func withScanner<Result>(_ body: (ElementScanner) -> Result) -> Result {
        sectionFrames.withUnsafeBufferPointer { sections in
            sectionTops.withUnsafeBufferPointer { tops in
                ordinalStarts.withUnsafeBufferPointer { starts in
                    body(ElementScanner(sections: sections, tops: tops, ordinalStarts: starts, backgroundWidth: hasBackground ? backgroundWidth : nil))
                }
            }
        }
    }

    /// Every element in layout order: per section header, cells by item, footer, decoration.
    public func forEachElement(_ body: (LayoutElement) -> Void) {
        withScanner { scanner in
            scanner.forEach(inOrdinals: 0..<elementCount, where: EveryFrame(), body)
        }
    }

    // MARK: Rect queries

    /// Every element whose frame overlaps `rect` with positive area, in layout order. O(log n + k).
    public func forEachElement(in rect: Rect, _ body: (LayoutElement) -> Void) {
        withScanner { scanner in
            index.forEachCandidateRange(in: rect) { range in
                scanner.forEach(inOrdinals: range, where: FramesOverlapping(rect), body)
            }
        }
    }

    /// Whether at most `limit` elements may overlap `rect`: a bound counted from the rect index's leaves
    /// (every element of a leaf whose box overlaps), which stops once it passes `limit`. What a server asks
    /// before answering a query on a thread that must not be held up.
    public func mayHaveAtMost(_ limit: Int, elementsIn rect: Rect) -> Bool {
        index.candidateCount(in: rect, atMost: limit) != nil
    }

    /// Every element whose frame overlaps `rect` with positive area, in layout order.
    public func elements(in rect: Rect) -> [LayoutElement] {
        // A viewport usually holds a few dozen elements: one allocation instead of several doublings.
        var result: [LayoutElement] = []
        result.reserveCapacity(32)
        forEachElement(in: rect) { result.append($0) }
        return result
    }

    /// The reference answer for `elements(in:)`: a scan of every element. O(n); for tests and baselines.
    public func elementsByScanning(in rect: Rect) -> [LayoutElement] {
        var result: [LayoutElement] = []
        forEachElement { element in
            if element.frame.intersects(rect) { result.append(element) }
        }
        return result
    }
}
