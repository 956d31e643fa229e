import Testing
@testable import LayoutEngine

/// The rect index: its candidates against a brute-force model, and queries over indexes several levels deep
/// (the property tests' small inputs build only one or two levels).
@Suite struct RectIndexTests {
    @Test("candidate ranges are exactly the leaves whose boxes overlap the rect, in order, merged when adjacent")
    func candidatesMatchBruteForce() {
        var random = SeededRandom(seed: 0x1DE_0001)
        // Scattered boxes, no spatial order at all: only the boxes decide. 70 000 elements make four levels or more.
        let count = 70_000
        let frames = (0..<count).map { _ in
            Rect(x: random.unit() * 1_000, y: random.unit() * 100_000, width: random.unit() * 50, height: random.unit() * 500)
        }
        let index = Self.index(of: frames)
        #expect(index.levelStarts.count - 1 >= 4)
        let leafSize = RectIndex.leafSize
        for _ in 0..<50 {
            let rect = Rect(x: random.unit() * 1_000, y: random.unit() * 100_000, width: random.unit() * 100, height: random.unit() * 300)
            // The model: each leaf's box by hand, kept when it overlaps the rect.
            var expected: [Int] = []
            for leaf in 0..<((count + leafSize - 1) / leafSize) {
                let members = frames[(leaf * leafSize)..<Swift.min((leaf + 1) * leafSize, count)]
                let minX = members.map(\.minX).min() ?? 0
                let minY = members.map(\.minY).min() ?? 0
                let maxX = members.map(\.maxX).max() ?? 0
                let maxY = members.map(\.maxY).max() ?? 0
                if minX < rect.maxX, maxX > rect.minX, minY < rect.maxY, maxY > rect.minY { expected.append(leaf) }
            }
            var ranges: [Range<Int>] = []
            index.forEachCandidateRange(in: rect) { ranges.append($0) }
            let leaves = ranges.flatMap { stride(from: $0.lowerBound, to: $0.upperBound, by: leafSize).map { $0 / leafSize } }
            if leaves != expected {
                let first = zip(leaves, expected).first { $0 != $1 }
                Issue.record("\(rect): \(leaves.count) candidate leaves, the model \(expected.count); first difference \(String(describing: first))")
                return
            }
            // Adjacent leaves come as one range.
            #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound })
        }
    }

    @Test("an index of one leaf or none answers too")
    func tinyIndexes() {
        let empty = Self.index(of: [])
        var visited = 0
        empty.forEachCandidateRange(in: Rect(x: -1e9, y: -1e9, width: 2e9, height: 2e9)) { _ in visited += 1 }
        #expect(visited == 0)

        let one = Self.index(of: [Rect(x: 0, y: 0, width: 10, height: 10), Rect(x: 20, y: 20, width: 10, height: 10)])
        var ranges: [Range<Int>] = []
        one.forEachCandidateRange(in: Rect(x: 5, y: 5, width: 1, height: 1)) { ranges.append($0) }
        #expect(ranges == [0..<2])
        ranges = []
        one.forEachCandidateRange(in: Rect(x: 30, y: 0, width: 5, height: 5)) { ranges.append($0) }
        #expect(ranges.isEmpty)
    }

    @Test("rect queries over large multi-section layouts match the scan", arguments: [LayoutKind.list, .waterfall, .mosaic, .columnFlow])
    func deepQueriesMatchScan(kind: LayoutKind) throws {
        var random = SeededRandom(seed: 0xDEE_0000 + UInt64(LayoutKind.allCases.firstIndex(of: kind) ?? 0))
        var input = RandomInputs.input(kind, maxItemsPerSection: 10, using: &random)
        input.sectionBackgrounds = true
        // Three big sections between the random small ones: the index gets four levels, and leaves straddle
        // section boundaries, headers, footers and backgrounds.
        for position in [0, input.sections.count / 2, input.sections.count] {
            var section = RandomInputs.section(kind, maxItems: 1, using: &random)
            section.items = ItemSizes((0..<25_000).map { _ in RandomInputs.sizing(kind, using: &random) })
            section.headerHeight = 20
            section.footerHeight = 10
            input.sections.insert(section, at: position)
        }
        let layout = try PreparedLayout.prepare(input)
        #expect(layout.index.levelStarts.count - 1 >= 4)
        var elements: [LayoutElement] = []
        layout.forEachElement { elements.append($0) }
        for _ in 0..<40 {
            let rect = PropertyTests.randomRect(near: elements, in: layout.contentSize, using: &random)
            let expected = elements.filter { $0.frame.intersects(rect) }
            let found = layout.elements(in: rect)
            if found != expected {
                Issue.record("\(kind): elements(in: \(rect)) returned \(found.count) elements, the scan \(expected.count)")
                return
            }
        }
    }

    /// The index over `frames` taken as the elements, in order.
    fileprivate static func index(of frames: [Rect]) -> RectIndex {
        let leafCount = (frames.count + RectIndex.leafSize - 1) / RectIndex.leafSize
        let leaves = [RectIndex.Box](unsafeUninitializedCapacity: RectIndex.boxCount(forLeafCount: leafCount)) { buffer, initialized in
            var leaves = RectIndex.Leaves(into: buffer)
            for frame in frames { leaves.add(frame, dy: 0) }
            initialized = leaves.finish()
        }
        return RectIndex(leaves: leaves, elementCount: frames.count)
    }
}

/// The bounded count a server asks before answering a query on its I/O thread.
@Suite struct RectIndexCandidateCountTests {
    @Test func theCountIsTheCandidateRangesTotalOrNilPastTheLimit() {
        var random = SeededRandom(seed: 0x1DE_0002)
        let frames = (0..<20_000).map { _ in
            Rect(x: random.unit() * 1_000, y: random.unit() * 100_000, width: random.unit() * 50, height: random.unit() * 500)
        }
        let index = RectIndexTests.index(of: frames)
        for _ in 0..<50 {
            let rect = Rect(x: random.unit() * 1_000, y: random.unit() * 100_000, width: random.unit() * 1_000, height: random.unit() * 20_000)
            var total = 0
            index.forEachCandidateRange(in: rect) { total += $0.count }
            #expect(index.candidateCount(in: rect, atMost: total) == total)
            #expect(index.candidateCount(in: rect, atMost: total + 1) == total)
            if total > 0 { #expect(index.candidateCount(in: rect, atMost: total - 1) == nil) }
        }
        #expect(index.candidateCount(in: Rect(x: -1, y: -1, width: 2e6, height: 2e6), atMost: 256) == nil)
    }
}
