import Testing
@testable import LayoutEngine

/// Waterfall (LAYOUTS.md `waterfall`, seed 002); expectations worked out by hand from the spec, or from
/// a transcription of the seed's loop.
@Suite struct WaterfallLayoutTests {
    @Test("each item goes to the shortest column (ties: lowest index), inset by cellPadding")
    func shortestColumnAndSizing() throws {
        // W 300, 2 columns of 150, padding 6: content width 138.
        let items = ItemSizes([
            .unspecified,                              // 100 (itemHeight) → cell 112
            ItemSizing(height: 50),                    // 50 → 62
            ItemSizing(aspectRatio: 2),                // 138 / 2 = 69 → 81
            ItemSizing(height: 10, aspectRatio: 1.5),  // 138 / 1.5 + 10 = 102 → 114
            .unspecified,                              // 100 → 112
        ])
        let layout = try prepare(width: 300, sections: [Section(items: items)])
        #expect(cellFrames(layout) == [
            Rect(x: 6, y: 6, width: 138, height: 100),    // col 0 (tie) → 0: 112
            Rect(x: 156, y: 6, width: 138, height: 50),   // col 1 → 1: 62
            Rect(x: 156, y: 68, width: 138, height: 69),  // col 1 (62 < 112) → 143
            Rect(x: 6, y: 118, width: 138, height: 102),  // col 0 (112 < 143) → 226
            Rect(x: 156, y: 149, width: 138, height: 100), // col 1 (143 < 226) → 255
        ])
        #expect(layout.contentSize == Size(width: 300, height: 255))
    }

    @Test("equal columns take turns from the left")
    func ties() throws {
        var p = WaterfallParameters()
        p.columns = 3
        p.cellPadding = 0
        p.itemHeight = 10
        let layout = try prepare(width: 90, parameters: p, sections: [Section(count: 7)])
        #expect(cellFrames(layout).map(\.x) == [0, 30, 60, 0, 30, 60, 0])
        #expect(cellFrames(layout).map(\.y) == [0, 0, 0, 10, 10, 10, 20])
        #expect(layout.contentSize.height == 30)
    }

    @Test("zero-height cells leave their column the shortest, even with columns to spare")
    func zeroHeightCells() throws {
        var p = WaterfallParameters()
        p.columns = 8
        p.cellPadding = 0
        let items = ItemSizes([ItemSizing(height: 0), ItemSizing(height: 0), ItemSizing(height: 10), ItemSizing(height: 5)])
        let layout = try prepare(width: 800, parameters: p, sections: [Section(items: items)])
        #expect(cellFrames(layout) == [
            Rect(x: 0, y: 0, width: 100, height: 0),
            Rect(x: 0, y: 0, width: 100, height: 0),
            Rect(x: 0, y: 0, width: 100, height: 10),
            Rect(x: 100, y: 0, width: 100, height: 5),
        ])
        #expect(layout.contentSize.height == 10)
    }

    @Test("header above the columns, footer and section end at the tallest column")
    func headerAndFooter() throws {
        let items = ItemSizes([ItemSizing(height: 20), ItemSizing(height: 50), ItemSizing(height: 20)])
        let layout = try prepare(width: 200, sections: [Section(items: items, headerHeight: 40, footerHeight: 25), Section(count: 1)])
        #expect(layout.supplementaryElement(.header, section: 0)?.frame == Rect(x: 0, y: 0, width: 200, height: 40))
        // Columns start at 40: col 0 gets 32 then 32 (→ 104), col 1 gets 62 (→ 102).
        #expect(cellFrames(layout) == [
            Rect(x: 6, y: 46, width: 88, height: 20),
            Rect(x: 106, y: 46, width: 88, height: 50),
            Rect(x: 6, y: 78, width: 88, height: 20),
        ])
        #expect(layout.supplementaryElement(.footer, section: 0)?.frame == Rect(x: 0, y: 104, width: 200, height: 25))
        #expect(layout.sectionTops == [0, 129])
        #expect(cellFrames(layout, section: 1) == [Rect(x: 6, y: 135, width: 88, height: 100)])
        #expect(layout.contentSize.height == 241)
    }

    @Test("column width is W / columns, not rounded")
    func fractionalColumns() throws {
        var p = WaterfallParameters()
        p.columns = 3
        p.cellPadding = 2
        let layout = try prepare(width: 100, parameters: p, sections: [Section(items: ItemSizes([.unspecified, .unspecified, ItemSizing(aspectRatio: 1)]))])
        let columnWidth = 100.0 / 3
        #expect(cellFrames(layout) == [
            Rect(x: 2, y: 2, width: columnWidth - 4, height: 100),
            Rect(x: columnWidth + 2, y: 2, width: columnWidth - 4, height: 100),
            Rect(x: 2 * columnWidth + 2, y: 2, width: columnWidth - 4, height: columnWidth - 4),
        ])
    }

    @Test("contentInsets narrow W and move nothing")
    func contentInsets() throws {
        let input = LayoutInput(bounds: Size(width: 320, height: 600), parameters: .waterfall(WaterfallParameters()),
                                contentInsets: Insets(top: 30, left: 12, bottom: 30, right: 8), sections: [Section(count: 2)])
        let layout = try PreparedLayout.prepare(input)
        // W = 300: columns of 150.
        #expect(cellFrames(layout) == [Rect(x: 6, y: 6, width: 138, height: 100), Rect(x: 156, y: 6, width: 138, height: 100)])
        #expect(layout.contentSize == Size(width: 320, height: 112))
    }

    @Test("a section's own parameters replace the spec's for that section")
    func perSectionParameters() throws {
        var p = WaterfallParameters()
        p.columns = 4
        p.cellPadding = 0
        p.itemHeight = 20
        p.headerHeight = 5
        let layout = try prepare(width: 200, sections: [Section(count: 1), Section(items: ItemSizes([.unspecified, ItemSizing(aspectRatio: 5)]), parameters: .waterfall(p))])
        #expect(layout.sectionTops == [0, 112])
        #expect(layout.supplementaryElement(.header, section: 1)?.frame == Rect(x: 0, y: 112, width: 200, height: 5))
        #expect(cellFrames(layout, section: 1) == [Rect(x: 0, y: 117, width: 50, height: 20), Rect(x: 50, y: 117, width: 50, height: 10)])
        #expect(layout.contentSize.height == 137)
    }

    @Test("empty sections end at their header; the footer sits right under it")
    func emptySections() throws {
        let layout = try prepare(width: 200, sections: [Section(count: 0), Section(count: 0, headerHeight: 10, footerHeight: 4)])
        #expect(layout.sectionTops == [0, 0])
        #expect(layout.supplementaryElement(.footer, section: 1)?.frame == Rect(x: 0, y: 10, width: 200, height: 4))
        #expect(layout.contentSize.height == 14)
    }

    @Test("section backgrounds cover header to footer, x 0…W")
    func sectionBackgrounds() throws {
        let input = LayoutInput(bounds: Size(width: 220, height: 600), parameters: .waterfall(WaterfallParameters()),
                                contentInsets: Insets(left: 10, right: 10), sectionBackgrounds: true,
                                sections: [Section(count: 3, headerHeight: 8, footerHeight: 2)])
        let layout = try PreparedLayout.prepare(input)
        // Columns 8 + 112 + 112 = 232 and 8 + 112 = 120; footer 232..234.
        #expect(layout.supplementaryElement(.decoration, section: 0)?.frame == Rect(x: 0, y: 0, width: 200, height: 234))
    }

    @Test("frames match the seed's loop, for few columns and for many")
    func matchesSeedLoop() throws {
        var random = SeededRandom(seed: 0x3A7E)
        for columns in [1, 2, 3, 5, 16, 17, 40, 150] {
            for _ in 0..<4 {
                var p = WaterfallParameters()
                p.columns = columns
                p.cellPadding = random.half(in: 0...4)
                p.itemHeight = random.unit() * 200
                // Wide enough that every column holds its padding (cellPadding <= 4): narrower is invalid_request.
                let width = Double(random.int(in: Swift.max(300, columns * 8)...2_000))
                let count = random.int(in: 0...400)
                var items = ItemSizes(count: 0)
                for _ in 0..<count { items.append(randomSizing(using: &random)) }
                let layout = try prepare(width: width, parameters: p, sections: [Section(items: items)])
                let (frames, height) = SeedWaterfall.layOut(items, width: width, parameters: p)
                #expect(cellFrames(layout) == frames, "columns \(columns) count \(count)")
                #expect(layout.contentSize.height == height)
            }
        }
    }

    // MARK: Helpers

    private func randomSizing(using random: inout SeededRandom) -> ItemSizing {
        switch random.int(in: 0...3) {
        case 0: return .unspecified
        case 1: return ItemSizing(height: random.unit() * 300)
        case 2: return ItemSizing(aspectRatio: random.unit() * 3 + 0.2)
        default: return ItemSizing(height: random.unit() * 50, aspectRatio: random.unit() * 3 + 0.2)
        }
    }

    private func prepare(width: Double, parameters: WaterfallParameters = WaterfallParameters(), sections: [Section]) throws -> PreparedLayout {
        try PreparedLayout.prepare(LayoutInput(bounds: Size(width: width, height: 800), parameters: .waterfall(parameters), sections: sections))
    }

    private func cellFrames(_ layout: PreparedLayout, section: Int = 0) -> [Rect] {
        (0..<layout.itemCount(inSection: section)).compactMap { layout.cell(item: $0, section: section)?.frame }
    }
}

/// Seed 002's `prepare()` transcribed (xOffset / yOffset arrays, `yOffset.min()` then its first index,
/// `insetBy`), with the common sizing rules as the delegate. An independent model of the layout.
private enum SeedWaterfall {
    static func layOut(_ items: ItemSizes, width contentWidth: Double, parameters p: WaterfallParameters) -> (frames: [Rect], height: Double) {
        let columnWidth = contentWidth / Double(p.columns)
        let xOffset = (0..<p.columns).map { Double($0) * columnWidth }
        var yOffset = [Double](repeating: 0, count: p.columns)
        var contentHeight = 0.0
        var frames: [Rect] = []
        for item in 0..<items.count {
            let width = columnWidth - p.cellPadding * 2
            let cellHeight = items[item].height(forWidth: width, defaultHeight: p.itemHeight)
            let height = cellHeight + 2 * p.cellPadding
            let minimum = yOffset.min() ?? 0
            let shortest = yOffset.firstIndex(of: minimum) ?? 0
            let frame = Rect(x: xOffset[shortest], y: yOffset[shortest], width: columnWidth, height: height)
            frames.append(Rect(x: frame.x + p.cellPadding, y: frame.y + p.cellPadding,
                               width: frame.width - 2 * p.cellPadding, height: frame.height - 2 * p.cellPadding))
            contentHeight = Swift.max(contentHeight, frame.maxY)
            yOffset[shortest] += height
        }
        return (frames, contentHeight)
    }
}
