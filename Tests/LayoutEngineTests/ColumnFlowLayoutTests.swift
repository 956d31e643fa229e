import Testing
@testable import LayoutEngine

/// columnFlow (LAYOUTS.md `columnFlow`, seed 000); every expectation worked out by hand from the spec.
@Suite struct ColumnFlowLayoutTests {
    @Test("narrow bounds: one full-width column, rows 80 apart below the 10pt top inset")
    func phonePortrait() throws {
        let layout = try prepare(width: 375, sections: [Section(count: 3)])
        #expect(cellFrames(layout) == [
            Rect(x: 0, y: 10, width: 375, height: 70),
            Rect(x: 0, y: 90, width: 375, height: 70),
            Rect(x: 0, y: 170, width: 375, height: 70),
        ])
        #expect(layout.contentSize == Size(width: 375, height: 240))
    }

    @Test("wide bounds: fewer cells per row than columns when the spacing does not fit")
    func tabletGrid() throws {
        // cols = floor(1024 / 300) = 3, cellWidth = floor(341.33) = 341; 3 * 341 + 2 * 10 = 1043 > 1024,
        // so n = 2 and g = 1024 - 682 = 342: x = 0 and 683.
        let layout = try prepare(width: 1024, sections: [Section(count: 5)])
        #expect(cellFrames(layout) == [
            Rect(x: 0, y: 10, width: 341, height: 70), Rect(x: 683, y: 10, width: 341, height: 70),
            Rect(x: 0, y: 90, width: 341, height: 70), Rect(x: 683, y: 90, width: 341, height: 70),
            Rect(x: 0, y: 170, width: 341, height: 70),
        ])
        #expect(layout.contentSize.height == 240)
    }

    @Test("margins narrow the columns; rows span bounds.width; header and footer full width")
    func marginsHeaderFooter() throws {
        var p = ColumnFlowParameters()
        p.margins = Insets(top: 7, left: 20, bottom: 9, right: 20)
        // avail 960, cols 3, cellWidth 320; 3 * 320 + 20 = 980 <= 1000 → n = 3, g = (1000 - 960) / 2 = 20.
        let layout = try prepare(width: 1000, parameters: p, sections: [Section(count: 4, headerHeight: 30, footerHeight: 40)])
        #expect(layout.supplementaryElement(.header, section: 0)?.frame == Rect(x: 0, y: 0, width: 1000, height: 30))
        #expect(cellFrames(layout) == [
            Rect(x: 0, y: 40, width: 320, height: 70), Rect(x: 340, y: 40, width: 320, height: 70), Rect(x: 680, y: 40, width: 320, height: 70),
            Rect(x: 0, y: 120, width: 320, height: 70),
        ])
        #expect(layout.supplementaryElement(.footer, section: 0)?.frame == Rect(x: 0, y: 190, width: 1000, height: 40))
        #expect(layout.contentSize.height == 230)
    }

    @Test("cells exactly filling the line stay n per row")
    func exactFit() throws {
        var p = ColumnFlowParameters()
        p.margins = Insets(left: 10)
        // avail 630, cols 2, cellWidth 315; 2 * 315 + 10 = 640 <= 640 → n = 2, g = 10.
        let layout = try prepare(width: 640, parameters: p, sections: [Section(count: 2)])
        #expect(cellFrames(layout) == [Rect(x: 0, y: 10, width: 315, height: 70), Rect(x: 325, y: 10, width: 315, height: 70)])
    }

    @Test("one cell per row is centred")
    func centredSingleColumn() throws {
        var p = ColumnFlowParameters()
        p.margins = Insets(left: 25, right: 25)
        // avail 300, cellWidth 300, n = 1: x = (350 - 300) / 2.
        let narrow = try prepare(width: 350, parameters: p, sections: [Section(count: 2)])
        #expect(cellFrames(narrow) == [Rect(x: 25, y: 10, width: 300, height: 70), Rect(x: 25, y: 90, width: 300, height: 70)])
        // 620: cols 2, cellWidth 310, but 2 * 310 + 10 > 620 → n = 1, x = 155.
        let wide = try prepare(width: 620, sections: [Section(count: 1)])
        #expect(cellFrames(wide) == [Rect(x: 155, y: 10, width: 310, height: 70)])
    }

    @Test("bounds narrower than minColumnWidth still make one column (no division by zero)")
    func narrowerThanOneColumn() throws {
        let layout = try prepare(width: 200, sections: [Section(count: 1)])
        #expect(cellFrames(layout) == [Rect(x: 0, y: 10, width: 200, height: 70)])
    }

    @Test("an empty section keeps its top inset, with the footer below it")
    func emptySections() throws {
        let layout = try prepare(width: 375, sections: [Section(count: 0), Section(count: 0, headerHeight: 20, footerHeight: 15), Section(count: 1)])
        #expect(layout.sectionTops == [0, 10, 55])
        #expect(layout.supplementaryElement(.footer, section: 1)?.frame == Rect(x: 0, y: 40, width: 375, height: 15))
        #expect(cellFrames(layout, section: 2) == [Rect(x: 0, y: 65, width: 375, height: 70)])
        #expect(layout.contentSize.height == 135)
    }

    @Test("contentInsets are ignored: frames, headers and backgrounds use bounds.width")
    func contentInsetsIgnored() throws {
        let input = LayoutInput(bounds: Size(width: 375, height: 600), parameters: .columnFlow(ColumnFlowParameters()),
                                contentInsets: Insets(top: 5, left: 50, bottom: 5, right: 60), sectionBackgrounds: true,
                                sections: [Section(count: 2, headerHeight: 12)])
        let layout = try PreparedLayout.prepare(input)
        #expect(layout.supplementaryElement(.header, section: 0)?.frame == Rect(x: 0, y: 0, width: 375, height: 12))
        #expect(cellFrames(layout) == [Rect(x: 0, y: 22, width: 375, height: 70), Rect(x: 0, y: 102, width: 375, height: 70)])
        #expect(layout.supplementaryElement(.decoration, section: 0)?.frame == Rect(x: 0, y: 0, width: 375, height: 172))
        #expect(layout.contentSize == Size(width: 375, height: 172))
    }

    @Test("a section's own parameters replace the spec's for that section")
    func perSectionParameters() throws {
        var p = ColumnFlowParameters()
        p.cellHeight = 50
        p.lineSpacing = 0
        p.interitemSpacing = 5
        p.minColumnWidth = 100
        p.footerHeight = 8
        // cols 3, cellWidth 125; 3 * 125 + 10 = 385 > 375 → n = 2, g = 125: x = 0, 250; rows 5 + r * 50.
        let layout = try prepare(width: 375, sections: [Section(count: 1), Section(items: ItemSizes(count: 3), parameters: .columnFlow(p))])
        #expect(layout.sectionTops == [0, 80])
        #expect(cellFrames(layout, section: 1) == [
            Rect(x: 0, y: 85, width: 125, height: 50), Rect(x: 250, y: 85, width: 125, height: 50),
            Rect(x: 0, y: 135, width: 125, height: 50),
        ])
        #expect(layout.supplementaryElement(.footer, section: 1)?.frame == Rect(x: 0, y: 185, width: 375, height: 8))
        #expect(layout.contentSize.height == 193)
    }

    @Test("item sizing does not change a column flow")
    func sizingIgnored() throws {
        let sized = ItemSizes([ItemSizing(height: 40), ItemSizing(aspectRatio: 2), ItemSizing(height: 5, aspectRatio: 0.5)])
        let layout = try prepare(width: 375, sections: [Section(items: sized)])
        #expect(cellFrames(layout).map(\.height) == [70, 70, 70])
    }

    @Test("matches a brute-force reading of the spec over random bounds and parameters")
    func matchesBruteForce() throws {
        var random = SeededRandom(seed: 0xC0F1)
        for _ in 0..<300 {
            var p = ColumnFlowParameters()
            p.minColumnWidth = random.unit() * 400 + 1
            p.interitemSpacing = random.chance(0.2) ? 0 : random.unit() * 30
            p.lineSpacing = random.unit() * 20
            p.cellHeight = random.unit() * 100
            p.margins = Insets(left: random.unit() * 30, right: random.unit() * 30)
            let width = (random.unit() * 2_000).rounded() + 60
            let count = random.int(in: 0...40)
            let layout = try prepare(width: width, parameters: p, sections: [Section(count: count)])
            #expect(cellFrames(layout) == Self.bruteForceFrames(count: count, width: width, parameters: p), "width \(width) \(p)")
        }
    }

    /// The spec read literally: n is found by trying every count from 1 up to cols.
    private static func bruteForceFrames(count: Int, width B: Double, parameters p: ColumnFlowParameters) -> [Rect] {
        let avail = B - p.margins.left - p.margins.right
        let cols = Swift.max(1, Int((avail / p.minColumnWidth).rounded(.down)))
        let cellWidth = (avail / Double(cols)).rounded(.down)
        var n = 1
        for candidate in 1...cols where Double(candidate) * cellWidth + Double(candidate - 1) * p.interitemSpacing <= B {
            n = candidate
        }
        let g = n > 1 ? (B - Double(n) * cellWidth) / Double(n - 1) : 0
        return (0..<count).map { i in
            let x = n == 1 ? (B - cellWidth) / 2 : Double(i % n) * (cellWidth + g)
            let y = p.interitemSpacing + Double(i / n) * (p.cellHeight + p.lineSpacing)
            return Rect(x: x, y: y, width: cellWidth, height: p.cellHeight)
        }
    }

    // MARK: Helpers

    private func prepare(width: Double, parameters: ColumnFlowParameters = ColumnFlowParameters(), sections: [Section]) throws -> PreparedLayout {
        try PreparedLayout.prepare(LayoutInput(bounds: Size(width: width, height: 800), parameters: .columnFlow(parameters), sections: sections))
    }

    private func cellFrames(_ layout: PreparedLayout, section: Int = 0) -> [Rect] {
        (0..<layout.itemCount(inSection: section)).compactMap { layout.cell(item: $0, section: section)?.frame }
    }
}
