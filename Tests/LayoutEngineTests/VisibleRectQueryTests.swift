import Testing
@testable import LayoutEngine

/// Rect queries with the rect taken as the visible bounds: pinned headers and footers, and seed 004's
/// scroll dynamics (LAYOUTS.md). Checked against a brute force that places every element by the
/// documented rules, and on examples worked out by hand.
@Suite struct VisibleRectQueryTests {
    static let pinnings = [Pinning(headers: true), Pinning(footers: true), Pinning(headers: true, footers: true)]

    @Test("pinned headers and footers: exactly the brute force", arguments: LayoutKind.allCases)
    func pinningMatchesBruteForce(kind: LayoutKind) throws {
        var random = SeededRandom(seed: 0x714_0000 + UInt64(kind.rawValue.count))
        for _ in 0..<12 {
            let layout = try PreparedLayout.prepare(RandomInputs.input(kind, using: &random))
            let elements = allElements(of: layout)
            for _ in 0..<300 {
                let rect = Self.randomVisibleRect(near: elements, in: layout, using: &random)
                let pinning = random.element(of: Self.pinnings)
                let found = layout.elements(inVisibleRect: rect, pinning: pinning)
                let expected = VisibleRectReference.elements(of: layout, in: rect, pinning: pinning, dynamics: nil)
                if found != expected {
                    Issue.record("\(kind): \(pinning) in \(rect): \(found.count) elements, the brute force \(expected.count)")
                    return
                }
            }
        }
    }

    @Test("scroll dynamics: exactly the brute force", arguments: LayoutKind.allCases)
    func dynamicsMatchesBruteForce(kind: LayoutKind) throws {
        var random = SeededRandom(seed: 0xD1_0000 + UInt64(kind.rawValue.count))
        for _ in 0..<12 {
            let layout = try PreparedLayout.prepare(RandomInputs.input(kind, using: &random))
            let elements = allElements(of: layout)
            for _ in 0..<300 {
                let rect = Self.randomVisibleRect(near: elements, in: layout, using: &random)
                let dynamics = Self.randomDynamics(in: layout, using: &random)
                // With and without pinning: the two options compose.
                let pinning = random.chance(0.5) ? Pinning.none : random.element(of: Self.pinnings)
                let found = layout.elements(inVisibleRect: rect, pinning: pinning, dynamics: dynamics)
                let expected = VisibleRectReference.elements(of: layout, in: rect, pinning: pinning, dynamics: dynamics)
                if found != expected {
                    Issue.record("\(kind): \(dynamics), \(pinning) in \(rect): \(found.count) elements, the brute force \(expected.count)")
                    return
                }
            }
        }
    }

    @Test("no pinning and no dynamics is the plain rect query")
    func plainQueryIsUnchanged() throws {
        var random = SeededRandom(seed: 77)
        let layout = try PreparedLayout.prepare(RandomInputs.input(.list, using: &random))
        let rect = Rect(x: 0, y: 40, width: 300, height: 200)
        #expect(layout.elements(inVisibleRect: rect, pinning: .none) == layout.elements(in: rect))
        // A touch at exactly (0, 0) moves nothing (seed 004's `CGPointZero` test).
        let still = ScrollDynamics(scrollDelta: 40, touch: .zero)
        #expect(layout.elements(inVisibleRect: rect, pinning: .none, dynamics: still) == layout.elements(in: rect))
    }

    // MARK: Pinning by hand

    /// Two list sections, each a 30 pt header, 4 items of 50, a 20 pt footer: 0…250 and 250…500.
    private func twoSections() throws -> PreparedLayout {
        var p = ListParameters()
        p.itemHeight = 50
        let section = Section(items: ItemSizes(count: 4), headerHeight: 30, footerHeight: 20)
        return try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 320, height: 400), parameters: .list(p), sections: [section, section]))
    }

    @Test("a header sticks to the rect's top, then is pushed out by the section's end")
    func headerPinsAndIsPushedOut() throws {
        let layout = try twoSections()
        let headers = Pinning(headers: true)
        // Scrolled to 100: section 0's header, unpinned at 0…30 and outside the rect, comes at 100.
        let at100 = layout.elements(inVisibleRect: Rect(x: 0, y: 100, width: 320, height: 100), pinning: headers)
        #expect(at100.first == LayoutElement(kind: .header, section: 0, item: 0, frame: Rect(x: 0, y: 100, width: 320, height: 30)))
        #expect(at100.filter { $0.kind == .header }.count == 1)
        // At 235 the header would end at 265, past the section's end (250): it stops at 250 - 30 = 220,
        // and section 1's header, still at its own place, is the next element of the answer.
        let at235 = layout.elements(inVisibleRect: Rect(x: 0, y: 235, width: 320, height: 100), pinning: headers)
        #expect(at235.filter { $0.kind == .header }.map(\.frame) == [Rect(x: 0, y: 220, width: 320, height: 30), Rect(x: 0, y: 250, width: 320, height: 30)])
        // In layout order: section 0's pinned header and its footer (230…250), then section 1's header
        // and its cells at 280 and 330.
        #expect(at235.map { "\($0.kind.name)\($0.section)" } == ["header0", "footer0", "header1", "cell1", "cell1"])
        // Above its section's top, a header stays where it is.
        let atMinus50 = layout.elements(inVisibleRect: Rect(x: 0, y: -50, width: 320, height: 100), pinning: headers)
        #expect(atMinus50.first?.frame == Rect(x: 0, y: 0, width: 320, height: 30))
        // Section 1 starts at 250: a rect ending there does not reach it.
        let upTo250 = layout.elements(inVisibleRect: Rect(x: 0, y: 150, width: 320, height: 100), pinning: headers)
        #expect(upTo250.filter { $0.kind == .header }.map(\.section) == [0])
    }

    @Test("a footer sticks to the rect's bottom, never below its own place nor above its section")
    func footerPins() throws {
        let layout = try twoSections()
        let footers = Pinning(footers: true)
        // Rect 0…100: section 0's footer (unpinned at 230…250) comes at 80…100.
        let top = layout.elements(inVisibleRect: Rect(x: 0, y: 0, width: 320, height: 100), pinning: footers)
        #expect(top.last == LayoutElement(kind: .footer, section: 0, item: 0, frame: Rect(x: 0, y: 80, width: 320, height: 20)))
        // Rect 200…400: section 0's footer at its own place (230), section 1's at 380.
        let middle = layout.elements(inVisibleRect: Rect(x: 0, y: 200, width: 320, height: 200), pinning: footers)
        #expect(middle.filter { $0.kind == .footer }.map(\.frame.y) == [230, 380])
        // A rect ending just below section 1's top: section 0's footer keeps its own place (it never moves
        // down), section 1's stops at its section's top, 250.
        let edge = layout.elements(inVisibleRect: Rect(x: 0, y: 240, width: 320, height: 15), pinning: footers)
        #expect(edge.filter { $0.kind == .footer }.map(\.frame.y) == [230, 250])
    }

    @Test("a zero-height rect shows no pinned element; one beside the header neither")
    func pinnedFramesMustOverlapTheRect() throws {
        let layout = try twoSections()
        let both = Pinning(headers: true, footers: true)
        // The line y = 100 crosses cell 1 (80…130), but a header pinned at 100 starts on it.
        let line = layout.elements(inVisibleRect: Rect(x: 0, y: 100, width: 320, height: 0), pinning: both)
        #expect(line.map(\.kind) == [.cell])
        #expect(layout.elements(inVisibleRect: Rect(x: 320, y: 100, width: 50, height: 50), pinning: both).isEmpty)
    }

    // MARK: Dynamics by hand

    @Test("a cell's centre moves by delta × resistance, capped at delta, as seed 004 computes it")
    func displacementByHand() throws {
        // One list cell at (0, 100, 100, 50): centre (50, 125).
        var p = ListParameters()
        p.itemHeight = 50
        let layout = try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 100, height: 400), parameters: .list(p),
                                                            sections: [Section(count: 1, headerHeight: 100)]))
        let everything = Rect(x: -1000, y: -1000, width: 3000, height: 3000)
        func cellY(_ delta: Double, touch: Point, resistance: Double = 1500) -> Double? {
            layout.elements(inVisibleRect: everything, pinning: .none, dynamics: ScrollDynamics(scrollDelta: delta, touch: touch, resistance: resistance))
                .first { $0.kind == .cell }?.frame.y
        }
        // Touch 300 below the centre: resistance 300 / 1500 = 0.2.
        #expect(cellY(10, touch: Point(x: 50, y: 425)) == 102)   // min(10, 2)
        #expect(cellY(-10, touch: Point(x: 50, y: 425)) == 98)   // max(-10, -2)
        // Signed distances: 1500 above the centre gives -1, and the cell moves against the scroll.
        #expect(cellY(10, touch: Point(x: 50, y: -1375)) == 90)  // min(10, -10)
        #expect(cellY(-10, touch: Point(x: 50, y: -1375)) == 110) // max(-10, 10)
        // x counts as y does: 600 right and 300 above is 300 / 1500.
        #expect(cellY(10, touch: Point(x: 650, y: -175)) == 102)
        // Far from the touch the delta itself is the cap.
        #expect(cellY(10, touch: Point(x: 50, y: 125 + 3000)) == 110)
        #expect(cellY(10, touch: Point(x: 50, y: 425), resistance: 100) == 110)
        // The header does not move.
        let header = layout.elements(inVisibleRect: everything, pinning: .none, dynamics: ScrollDynamics(scrollDelta: 10, touch: Point(x: 50, y: 425)))
            .first { $0.kind == .header }
        #expect(header?.frame == Rect(x: 0, y: 0, width: 100, height: 100))
    }

    @Test("cells the displacement brings in from beyond |delta| are found")
    func farCellsComeIn() throws {
        // 2000 cells of 10 pt; a scroll of 1200 with the touch at the top pulls cells from far below up
        // (resistance 1500: a cell 3000 below the touch moves up by min(1200, 1200 × -2) = -2400).
        var p = ListParameters()
        p.itemHeight = 10
        let layout = try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 100, height: 400), parameters: .list(p), sections: [Section(count: 2000)]))
        let rect = Rect(x: 0, y: 0, width: 100, height: 800)
        let dynamics = ScrollDynamics(scrollDelta: 1200, touch: Point(x: 50, y: 1))
        let found = layout.elements(inVisibleRect: rect, pinning: .none, dynamics: dynamics)
        #expect(found == VisibleRectReference.elements(of: layout, in: rect, pinning: .none, dynamics: dynamics))
        let farthest = found.map { layout.cell(item: $0.item, section: 0)?.frame.minY ?? 0 }.max() ?? 0
        #expect(farthest > rect.maxY + 1200)
    }

    @Test("validation: finite magnitudes up to 1e18, resistance from 1e-9 to 1e9")
    func validation() {
        func path(_ dynamics: ScrollDynamics) -> String? {
            do {
                try dynamics.validate()
                return nil
            } catch {
                return error.path
            }
        }
        #expect(path(ScrollDynamics(scrollDelta: -30, touch: Point(x: 1, y: 2))) == nil)
        #expect(path(ScrollDynamics(scrollDelta: 2e18, touch: .zero)) == "dynamics.scrollDelta")
        #expect(path(ScrollDynamics(scrollDelta: 1, touch: Point(x: -2e18, y: 0))) == "dynamics.touch.x")
        #expect(path(ScrollDynamics(scrollDelta: 1, touch: Point(x: 0, y: .infinity))) == "dynamics.touch.y")
        #expect(path(ScrollDynamics(scrollDelta: 1, touch: .zero, resistance: 0)) == "dynamics.resistance")
        #expect(path(ScrollDynamics(scrollDelta: 1, touch: .zero, resistance: -1500)) == "dynamics.resistance")
        #expect(path(ScrollDynamics(scrollDelta: .nan, touch: .zero)) == "dynamics.scrollDelta")
    }

    // MARK: Helpers

    private func allElements(of layout: PreparedLayout) -> [LayoutElement] {
        var elements: [LayoutElement] = []
        layout.forEachElement { elements.append($0) }
        return elements
    }

    /// Mostly viewport-like rects (the full width, a screen tall, anywhere in the content), else any
    /// rect the plain query tests use.
    static func randomVisibleRect(near elements: [LayoutElement], in layout: PreparedLayout, using random: inout SeededRandom) -> Rect {
        let size = layout.contentSize
        if random.chance(0.6) {
            let height = random.unit() * 900
            return Rect(x: random.chance(0.8) ? 0 : random.unit() * size.width - 20, y: random.unit() * (size.height + 200) - 100 - height / 2,
                        width: random.chance(0.8) ? size.width : random.unit() * size.width, height: height)
        }
        return PropertyTests.randomRect(near: elements, in: size, using: &random)
    }

    /// Realistic scrolls near the content, the touch at (0, 0) now and then, and the extremes: deltas past
    /// the resistance (which fold the displacement over), far touches, small resistances.
    static func randomDynamics(in layout: PreparedLayout, using random: inout SeededRandom) -> ScrollDynamics {
        let size = layout.contentSize
        let delta: Double
        switch random.int(in: 0...9) {
        case 0: delta = 0
        case 1: delta = (random.chance(0.5) ? -1 : 1) * random.half(in: 1000...4000)
        default: delta = random.unit() * 160 - 80
        }
        let touch: Point
        switch random.int(in: 0...9) {
        case 0: touch = .zero
        case 1: touch = Point(x: random.unit() * 2e5 - 1e5, y: random.unit() * 2e5 - 1e5)
        default: touch = Point(x: random.unit() * size.width, y: random.unit() * size.height)
        }
        let resistance: Double
        switch random.int(in: 0...5) {
        case 0: resistance = random.half(in: 1...5000)
        case 1: resistance = random.unit() + 0.01
        default: resistance = ScrollDynamics.defaultResistance
        }
        return ScrollDynamics(scrollDelta: delta, touch: touch, resistance: resistance)
    }
}

/// Every element of the layout placed by LAYOUTS.md's rules and tested one by one against the rect: the
/// reference for visible-rect queries. The cell displacement is seed 004's code, transcribed.
enum VisibleRectReference {
    static func elements(of layout: PreparedLayout, in rect: Rect, pinning: Pinning, dynamics: ScrollDynamics?) -> [LayoutElement] {
        var result: [LayoutElement] = []
        layout.forEachElement { element in
            var frame = element.frame
            let sectionTop = layout.sectionTops[element.section]
            let sectionBottom = sectionTop + layout.sectionFrames[element.section].height
            let sectionIsInRect = sectionTop < rect.maxY && sectionBottom > rect.minY
            switch element.kind {
            case .header where pinning.headers:
                guard sectionIsInRect else { return }
                frame.y = min(max(rect.minY, sectionTop), sectionBottom - frame.height)
            case .footer where pinning.footers:
                guard sectionIsInRect else { return }
                frame.y = max(min(rect.maxY - frame.height, frame.y), sectionTop)
            case .cell:
                if let dynamics { frame = seedDisplacement(of: frame, dynamics) }
            default:
                break
            }
            if frame.intersects(rect) {
                result.append(LayoutElement(kind: element.kind, section: element.section, item: element.item, frame: frame))
            }
        }
        return result
    }

    /// Seed 004's `shouldInvalidateLayoutForBoundsChange` loop body for one item at rest, with UIKit's
    /// `center` (the frame's mid point) and its setter (origin = centre - size / 2).
    private static func seedDisplacement(of frame: Rect, _ dynamics: ScrollDynamics) -> Rect {
        let touchLocation = dynamics.touch
        guard !(touchLocation.x == 0 && touchLocation.y == 0) else { return frame }
        let anchorPoint = (x: frame.x + frame.width / 2, y: frame.y + frame.height / 2)
        let delta = dynamics.scrollDelta
        let yDistanceFromTouch = touchLocation.y - anchorPoint.y
        let xDistanceFromTouch = touchLocation.x - anchorPoint.x
        let scrollResistance = (yDistanceFromTouch + xDistanceFromTouch) / dynamics.resistance
        var center = anchorPoint
        if delta < 0 {
            center.y += max(delta, delta * scrollResistance)
        } else {
            center.y += min(delta, delta * scrollResistance)
        }
        return Rect(x: frame.x, y: center.y - frame.height / 2, width: frame.width, height: frame.height)
    }
}
