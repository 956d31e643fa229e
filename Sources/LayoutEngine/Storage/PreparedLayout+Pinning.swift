extension PreparedLayout {
    /// The elements a view scrolled to `rect` shows, `rect` being its visible bounds: the rect query's
    /// elements, with headers and footers pinned to the rect's edges as `pinning` asks and cells displaced
    /// by `dynamics` when given (LAYOUTS.md, Pinned headers and footers; Scroll dynamics). In layout
    /// order; a pinned header or footer takes the place of its unpinned frame. The layout is not changed.
    public func forEachElement(
        inVisibleRect rect: Rect, pinning: Pinning, dynamics: ScrollDynamics? = nil, _ body: (LayoutElement) -> Void
    ) {
        guard pinning.pinsAny else {
            forEachUnpinnedElement(in: rect, dynamics: dynamics, body)
            return
        }
        let pinned = pinnedElements(in: rect, pinning: pinning)
        var next = 0
        forEachUnpinnedElement(in: rect, dynamics: dynamics) { element in
            // Replaced by its pinned frame (or left out with its section).
            if pinning.pins(element.kind) { return }
            while next < pinned.count, pinned[next].precedesInLayoutOrder(element) {
                body(pinned[next])
                next += 1
            }
            body(element)
        }
        while next < pinned.count {
            body(pinned[next])
            next += 1
        }
    }

    /// `forEachElement(inVisibleRect:pinning:dynamics:)` collected.
    public func elements(inVisibleRect rect: Rect, pinning: Pinning, dynamics: ScrollDynamics? = nil) -> [LayoutElement] {
        var result: [LayoutElement] = []
        result.reserveCapacity(32)
        forEachElement(inVisibleRect: rect, pinning: pinning, dynamics: dynamics) { result.append($0) }
        return result
    }

    private func forEachUnpinnedElement(in rect: Rect, dynamics: ScrollDynamics?, _ body: (LayoutElement) -> Void) {
        if let dynamics {
            forEachElement(in: rect, displacedBy: dynamics, body)
        } else {
            forEachElement(in: rect, body)
        }
    }

    /// The pinned headers and footers for `rect`, in layout order: those of every section whose span
    /// `[sectionTop, sectionBottom)` overlaps the rect's y span, placed by the pinning rule, that then
    /// overlap the rect with positive area. O(log sections + the sections in the rect).
    func pinnedElements(in rect: Rect, pinning: Pinning) -> [LayoutElement] {
        var result: [LayoutElement] = []
        var section = firstSection(endingBelow: rect.minY)
        while section < sectionCount, sectionTops[section] < rect.maxY {
            let top = sectionTops[section]
            let bottom = top + sectionFrames[section].height
            if pinning.headers, let header = sectionFrames[section].header {
                // Stuck to the rect's top, from its own place down to where it meets the section's end.
                let y = Swift.min(Swift.max(rect.minY, top), bottom - header.height)
                append(.header, section: section, frame: Rect(x: header.x, y: y, width: header.width, height: header.height), in: rect, to: &result)
            }
            if pinning.footers, let footer = sectionFrames[section].footer {
                // Stuck to the rect's bottom, from its own place up to the section's top.
                let y = Swift.max(Swift.min(rect.maxY - footer.height, footer.y + top), top)
                append(.footer, section: section, frame: Rect(x: footer.x, y: y, width: footer.width, height: footer.height), in: rect, to: &result)
            }
            section += 1
        }
        return result
    }

    private func append(_ kind: ElementKind, section: Int, frame: Rect, in rect: Rect, to result: inout [LayoutElement]) {
        guard frame.intersects(rect) else { return }
        result.append(LayoutElement(kind: kind, section: section, item: 0, frame: frame))
    }

    /// The first section whose bottom (`sectionTop + height`, the next section's top) is below `y`;
    /// `sectionCount` if none is. Bottoms never decrease, so a binary search finds it.
    private func firstSection(endingBelow y: Double) -> Int {
        var low = 0
        var high = sectionCount
        while low < high {
            let mid = (low + high) / 2
            if sectionTops[mid] + sectionFrames[mid].height > y { high = mid } else { low = mid + 1 }
        }
        return low
    }
}

extension LayoutElement {
    /// Whether `self` comes before `other` in layout order: by section, then header, cells by item,
    /// footer, decoration.
    func precedesInLayoutOrder(_ other: LayoutElement) -> Bool {
        if section != other.section { return section < other.section }
        let (rank, otherRank) = (kind.layoutRank, other.kind.layoutRank)
        if rank != otherRank { return rank < otherRank }
        return item < other.item
    }
}

extension ElementKind {
    /// The place of the kind inside its section in layout order.
    var layoutRank: Int {
        switch self {
        case .header: return 0
        case .cell: return 1
        case .footer: return 2
        case .decoration: return 3
        }
    }
}
