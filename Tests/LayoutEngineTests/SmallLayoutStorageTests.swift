import Testing
@testable import LayoutEngine

/// Small layouts keep no rect index (a query scans their few elements) and share what they can; the bytes
/// a layout reports are its allocations as malloc takes them.
@Suite struct SmallLayoutStorageTests {
    private func list(_ counts: [Int]) throws -> PreparedLayout {
        try PreparedLayout.prepare(LayoutInput(
            bounds: Size(width: 320, height: 600), parameters: .list(ListParameters()),
            sections: counts.map { Section(items: ItemSizes((0..<$0).map { ItemSizing(height: Double(10 + $0 % 7)) })) }
        ))
    }

    @Test func aLayoutUpToTheScanLimitKeepsNoBoxesAndAnswersAsTheScanDoes() throws {
        var random = SeededRandom(seed: 36)
        for count in [0, 1, 20, RectIndex.scanLimit, RectIndex.scanLimit + 1, 300] {
            let layout = try list([count])
            #expect(layout.index.boxes.isEmpty == (count <= RectIndex.scanLimit), "\(count) elements")
            for _ in 0..<40 {
                let rect = Rect(x: random.unit() * 320, y: random.unit() * 4_000 - 100, width: random.unit() * 400, height: random.unit() * 900)
                #expect(layout.elements(in: rect) == layout.elementsByScanning(in: rect))
                // The bound counts every element a query may visit: for an unindexed layout, all of them
                // (under the 256 a server answers on its I/O thread).
                #expect(layout.mayHaveAtMost(layout.elementCount, elementsIn: rect))
                if count <= RectIndex.scanLimit { #expect(layout.mayHaveAtMost(256, elementsIn: rect)) }
            }
            if count <= RectIndex.scanLimit, count > 0 {
                #expect(layout.mayHaveAtMost(count, elementsIn: Rect(x: 0, y: 0, width: 1, height: 1)))
                #expect(!layout.mayHaveAtMost(count - 1, elementsIn: Rect(x: 0, y: 0, width: 1, height: 1)))
            }
        }
    }

    @Test func anIndexGrownFromAnUnindexedLayoutIsTheIndexBuiltWhole() throws {
        let before = try list([RectIndex.scanLimit - 4])
        let after = try list([RectIndex.scanLimit + 40])
        let rebuilt = PreparedLayout(
            input: after.input, sectionFrames: after.sectionFrames, backgroundWidth: PreparedLayout.backgroundWidth(of: after.input),
            reusingIndexOf: before.index, unchangedElements: RectIndex.scanLimit - 4
        )
        #expect(rebuilt.index == after.index)
        #expect(!rebuilt.index.boxes.isEmpty)
    }

    @Test func oneSectionLayoutsShareTheirSectionTops() throws {
        let a = try list([20])
        let b = try list([30])
        let shared = a.sectionTops.withUnsafeBufferPointer { one in b.sectionTops.withUnsafeBufferPointer { $0.baseAddress == one.baseAddress } }
        #expect(shared)
        let two = try list([3, 4])
        #expect(two.sectionTops == [0, two.sectionFrames[0].height])
    }

    @Test func theBytesAreTheBlocksMallocHandsOut() throws {
        #expect(HeapBytes.block(0) == 32 && HeapBytes.block(24) == 32 && HeapBytes.block(25) == 48)
        #expect(HeapBytes.array([Double]()) == 0)
        var grown: [Double] = []
        grown.reserveCapacity(100)
        grown.append(1)
        // The capacity, not the count.
        #expect(HeapBytes.array(grown) >= HeapBytes.block(32 + 100 * 8))
        #expect(HeapBytes.string("short") == 0 && HeapBytes.string(String(repeating: "k", count: 40)) == HeapBytes.block(32 + 41))
        // A 20-item list: at least its four frame columns, its heights and its sections, each a block.
        let layout = try list([20])
        let columns = 4 * HeapBytes.block(32 + 20 * 8)
        #expect(layout.byteCount >= columns + HeapBytes.block(32 + 20 * 8))
        // And a large one about its payload: frames (32 B) and heights (8 B) per item, the index ~1/8 more.
        let large = try list([100_000])
        #expect(Double(large.byteCount) / Double(100_000 * 40) > 1.0 && Double(large.byteCount) / Double(100_000 * 40) < 1.2)
    }
}
