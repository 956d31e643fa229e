/// Cuts along one axis, as the seed's `dividedIntegral(fraction:from:)`: the first part is
/// `ceil(size * fraction)` long, the second starts `spacing` after it and is `spacing` shorter.
struct MosaicCut: Hashable, Sendable {
    /// Length of the first part.
    let first: Double
    /// Offset of the second part from the start of the cut (first + spacing).
    let secondOffset: Double
    /// Length of the second part.
    let second: Double

    init(size: Double, fraction: Double, spacing: Double) {
        first = (size * fraction).ceiled
        secondOffset = first + spacing
        second = size - first - spacing
    }
}

/// Every rect of a mosaic section, each from its item index alone.
///
/// The splits depend only on the width, segment height and spacing, so they are cut once here rather
/// than once per segment.
struct MosaicGeometry: Hashable, Sendable {
    let pattern: MosaicSegmentPattern
    let width: Double
    let segmentHeight: Double
    let spacing: Double
    /// The section's cells start here (the header's bottom, or 0).
    let top: Double
    let halves: MosaicCut
    let twoThirds: MosaicCut
    let oneThird: MosaicCut
    /// The vertical split of the stacked pair (fraction ½ from minY).
    let stack: MosaicCut

    init(itemCount: Int, width: Double, parameters p: MosaicParameters, top: Double) {
        pattern = MosaicSegmentPattern(itemCount: itemCount)
        self.width = width
        segmentHeight = p.segmentHeight
        spacing = p.spacing
        self.top = top
        halves = MosaicCut(size: width, fraction: 0.5, spacing: p.spacing)
        twoThirds = MosaicCut(size: width, fraction: 2.0 / 3.0, spacing: p.spacing)
        oneThird = MosaicCut(size: width, fraction: 1.0 / 3.0, spacing: p.spacing)
        stack = MosaicCut(size: p.segmentHeight, fraction: 0.5, spacing: p.spacing)
    }

    /// The y of segment `segment`.
    ///
    /// The seed starts each segment at `lastFrame.maxY + spacing`, the previous segment's last rect. That
    /// rect always spans its segment's full height (fullWidth's whole rect, fiftyFifty's right half,
    /// twoThirdsOneThird's bottom-right, which ends at c + spacing + (segmentHeight - c - spacing), and
    /// oneThirdTwoThirds' right ⅔), so every segment ends at its y + segmentHeight and segment k starts at
    /// `top + spacing + k * (segmentHeight + spacing)`. The closed form needs no predecessor, which is
    /// what lets item ranges run in parallel with the same arithmetic however they are split.
    @inline(__always)
    func y(ofSegment segment: Int) -> Double {
        top + spacing + Double(segment) * (segmentHeight + spacing)
    }

    /// The rect at `position` inside a segment of `style` starting at `y`.
    ///
    /// A lower rect of a stack starts at `(y + first) + spacing`, in the seed's order of operations
    /// (divide, then shift the remainder), so non-integral inputs round as the seed does.
    @inline(__always)
    func frame(at position: Int, of style: MosaicSegmentStyle, y: Double) -> Rect {
        switch style {
        case .fullWidth:
            return Rect(x: 0, y: y, width: width, height: segmentHeight)
        case .fiftyFifty:
            return position == 0
                ? Rect(x: 0, y: y, width: halves.first, height: segmentHeight)
                : Rect(x: halves.secondOffset, y: y, width: halves.second, height: segmentHeight)
        case .twoThirdsOneThird:
            switch position {
            case 0: return Rect(x: 0, y: y, width: twoThirds.first, height: segmentHeight)
            case 1: return Rect(x: twoThirds.secondOffset, y: y, width: twoThirds.second, height: stack.first)
            default: return Rect(x: twoThirds.secondOffset, y: y + stack.first + spacing, width: twoThirds.second, height: stack.second)
            }
        case .oneThirdTwoThirds:
            switch position {
            case 0: return Rect(x: 0, y: y, width: oneThird.first, height: stack.first)
            case 1: return Rect(x: 0, y: y + stack.first + spacing, width: oneThird.first, height: stack.second)
            default: return Rect(x: oneThird.secondOffset, y: y, width: oneThird.second, height: segmentHeight)
            }
        }
    }

    /// Writes the frames of `items`, walking segment by segment from the one holding the first item.
    ///
    /// Whole cycles of three segments (eight items) inside the range take a straight-line path: their
    /// styles are the plain cycle's (an end-of-section override needs fewer items left than a whole cycle
    /// leaves), so the switch on style and position folds away; the frames are the same calls to
    /// `frame(at:of:y:)`.
    func place(_ items: Range<Int>, into frames: MutableFrameColumns) {
        guard !items.isEmpty else { return }
        var (segment, position) = MosaicSegmentPattern.locate(item: items.lowerBound)
        var item = items.lowerBound
        while item < items.upperBound {
            // A cycle starts at segment 1, 4, 7, … with its first item.
            if position == 0, segment % 3 == 1, items.upperBound - item >= MosaicSegmentPattern.itemsPerCycle {
                let cycles = (items.upperBound - item) / MosaicSegmentPattern.itemsPerCycle
                for _ in 0..<cycles {
                    placeCycle(startingAt: item, segment: segment, into: frames)
                    item += MosaicSegmentPattern.itemsPerCycle
                    segment += 3
                }
                continue
            }
            let style = pattern.style(ofSegment: segment)
            let y = y(ofSegment: segment)
            let end = Swift.min(items.upperBound, item + style.itemCount - position)
            while item < end {
                frames.set(item, frame(at: position, of: style, y: y))
                item += 1
                position += 1
            }
            segment += 1
            position = 0
        }
    }

    /// The eight items of the cycle whose first segment (fiftyFifty) is `segment`, from item `first`.
    @inline(__always)
    private func placeCycle(startingAt first: Int, segment: Int, into frames: MutableFrameColumns) {
        let y0 = y(ofSegment: segment)
        frames.set(first, frame(at: 0, of: .fiftyFifty, y: y0))
        frames.set(first + 1, frame(at: 1, of: .fiftyFifty, y: y0))
        let y1 = y(ofSegment: segment + 1)
        frames.set(first + 2, frame(at: 0, of: .twoThirdsOneThird, y: y1))
        frames.set(first + 3, frame(at: 1, of: .twoThirdsOneThird, y: y1))
        frames.set(first + 4, frame(at: 2, of: .twoThirdsOneThird, y: y1))
        let y2 = y(ofSegment: segment + 2)
        frames.set(first + 5, frame(at: 0, of: .oneThirdTwoThirds, y: y2))
        frames.set(first + 6, frame(at: 1, of: .oneThirdTwoThirds, y: y2))
        frames.set(first + 7, frame(at: 2, of: .oneThirdTwoThirds, y: y2))
    }
}
