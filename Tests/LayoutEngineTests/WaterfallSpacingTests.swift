import Testing
@testable import LayoutEngine

/// Waterfall's fixed-column parameters (LAYOUTS.md `waterfall`, seed 004): `columnWidth`,
/// `columnSpacing`, `interitemSpacing`, `sectionInsets`, `tieBreak`. The references are transcriptions:
/// of seed 004's loop, and of the LAYOUTS.md rule with a plain scan over every column.
@Suite struct WaterfallSpacingTests {
    /// Seed 004's two columns as a job: bounds 320 wide (the seed's content width), columns of 150 at
    /// x 16 and 200, 32 between items, both columns from y 16, ties to the right, 10 below the lowest item.
    static let seed004 = {
        var p = WaterfallParameters()
        p.columns = 2
        p.columnWidth = 150
        p.columnSpacing = 34
        p.cellPadding = 0
        p.interitemSpacing = 32
        p.sectionInsets = Insets(top: 16, left: 16, bottom: 10, right: 0)
        p.tieBreak = .last
        return p
    }()

    @Test("seed 004's frames and content size, for 100 seeded heights", arguments: [UInt64(4), 0x5EED_0004, 0xBCF3_7DEF])
    func reproducesSeed004(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        // Fractional heights, so every sum rounds and only the seed's own order of additions matches.
        let heights = (0..<100).map { _ in Double(random.int(in: 40...400)) + random.unit() }
        let input = LayoutInput(
            bounds: Size(width: 320, height: 568), parameters: .waterfall(Self.seed004),
            sections: [Section(items: ItemSizes(heights.map { ItemSizing(height: $0) }))]
        )
        let layout = try PreparedLayout.prepare(input)
        let (frames, contentSize) = Seed004.layOut(heights: heights)
        #expect(cellFrames(layout) == frames)
        #expect(layout.contentSize == contentSize)
        // Both columns are used, and the right one reaches past the content width, as in the seed.
        #expect(Set(frames.map(\.x)) == [16, 200])
        #expect(frames.map(\.maxX).max() == 350)
    }

    @Test("the first item goes right: seed 004 breaks the tie of two empty columns that way")
    func tieOfEmptyColumnsGoesRight() throws {
        let input = LayoutInput(bounds: Size(width: 320, height: 568), parameters: .waterfall(Self.seed004),
                                sections: [Section(items: ItemSizes([ItemSizing(height: 100), ItemSizing(height: 50), ItemSizing(height: 68)]))])
        let layout = try PreparedLayout.prepare(input)
        // Right 16 → 148; left 16 → 98; left again (98 < 148), 98 → 198.
        #expect(cellFrames(layout) == [
            Rect(x: 200, y: 16, width: 150, height: 100),
            Rect(x: 16, y: 16, width: 150, height: 50),
            Rect(x: 16, y: 98, width: 150, height: 68),
        ])
        // Lowest bottom 166 (not the column's 198: no spacing after a column's last item), plus 10.
        #expect(layout.contentSize == Size(width: 320, height: 176))
    }

    @Test("ties to the last column with more columns than items: the rightmost columns fill first")
    func lastTieWithSpareColumns() throws {
        for columns in [5, 16, 17, 40] {
            var p = WaterfallParameters()
            p.columns = columns
            p.cellPadding = 0
            p.tieBreak = .last
            let layout = try PreparedLayout.prepare(LayoutInput(bounds: Size(width: Double(columns) * 10, height: 600), parameters: .waterfall(p),
                                                                sections: [Section(items: ItemSizes([ItemSizing(height: 30), ItemSizing(height: 20), ItemSizing(height: 0)]))]))
            let last = Double(columns - 1) * 10
            #expect(cellFrames(layout).map(\.x) == [last, last - 10, last - 20], "columns \(columns)")
            #expect(cellFrames(layout).map(\.y) == [0, 0, 0])
        }
    }

    @Test("insets, spacings and header/footer order: header, top inset, columns, bottom inset, footer")
    func sectionStructure() throws {
        var p = WaterfallParameters()
        p.columns = 3
        p.cellPadding = 2
        p.columnSpacing = 6
        p.interitemSpacing = 4
        p.sectionInsets = Insets(top: 5, left: 10, bottom: 7, right: 8)
        let items = ItemSizes([ItemSizing(height: 20), ItemSizing(height: 10), ItemSizing(height: 30), ItemSizing(height: 5)])
        let layout = try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 312, height: 600), parameters: .waterfall(p),
                                                            sections: [Section(items: items, headerHeight: 12, footerHeight: 3), Section(count: 0)]))
        // Columns (312 - 18 - 2 × 6) / 3 = 94 wide, at 10, 110, 210; items 90 wide. Columns start at 17.
        // Slots: 24 → column 0 (17 → 45), 14 → column 1 (17 → 35), 34 → column 2 (17 → 55), 9 → column 1 (35 → 48).
        #expect(cellFrames(layout) == [
            Rect(x: 12, y: 19, width: 90, height: 20),
            Rect(x: 112, y: 19, width: 90, height: 10),
            Rect(x: 212, y: 19, width: 90, height: 30),
            Rect(x: 112, y: 37, width: 90, height: 5),
        ])
        // The lowest slot ends at 17 + 34 = 51; bottom inset to 58; the footer 58…61 ends the section.
        #expect(layout.supplementaryElement(.footer, section: 0)?.frame == Rect(x: 0, y: 58, width: 312, height: 3))
        #expect(layout.sectionTops == [0, 61])
        // An empty section is its insets: 5 + 7.
        #expect(layout.contentSize.height == 73)
    }

    @Test("frames match the LAYOUTS.md rule scanned over every column, bit for bit")
    func matchesTheRuleOverRandomInputs() throws {
        var random = SeededRandom(seed: 0x5EED_4A11)
        var tested = 0
        for _ in 0..<200 {
            var input = RandomInputs.input(.waterfall, maxItemsPerSection: 120, using: &random)
            if random.chance(0.3), case .waterfall(var p) = input.parameters {
                // Many columns (past the scan, into the heap), fewer items than columns now and then.
                p.columns = random.int(in: 17...60)
                p.cellPadding = 0
                p.columnSpacing = 0
                p.columnWidth = nil
                p.sectionInsets = .zero
                input.parameters = .waterfall(p)
                for s in input.sections.indices { input.sections[s].parameters = nil }
            }
            guard let layout = try? PreparedLayout.prepare(input) else { continue }
            tested += 1
            var y = 0.0
            for (s, section) in input.sections.enumerated() {
                guard case .waterfall(let p) = input.parameters(forSection: s) else { continue }
                let expected = WaterfallRule.layOut(section.items, parameters: p, contentWidth: input.contentWidth,
                                                    header: input.headerHeight(forSection: s), footer: input.footerHeight(forSection: s))
                #expect(layout.sectionTops[s] == y)
                #expect((0..<section.items.count).map { layout.sectionFrames[s].cells[$0] } == expected.cells, "section \(s) of \(p)")
                #expect(layout.sectionFrames[s].height == expected.height, "section \(s) of \(p)")
                y += expected.height
            }
            #expect(layout.contentSize.height == y)
        }
        #expect(tested > 150)
    }

    // MARK: Helpers

    private func cellFrames(_ layout: PreparedLayout, section: Int = 0) -> [Rect] {
        (0..<layout.itemCount(inSection: section)).compactMap { layout.cell(item: $0, section: section)?.frame }
    }
}

/// Seed 004's data source `init()` and `collectionViewContentSize()`, transcribed line by line.
private enum Seed004 {
    static func layOut(heights: [Double]) -> (frames: [Rect], contentSize: Size) {
        var tempOrigins: [(x: Double, y: Double)] = []
        var tempSizes: [(width: Double, height: Double)] = []
        var leftHeight = 16.0
        var rightHeight = 16.0
        let padding = 32.0
        let leftOrigin = 16.0
        let rightOrigin = 200.0
        for height in heights {
            var x = leftOrigin
            var y = 0.0
            let width = 150.0
            if rightHeight > leftHeight {
                y = leftHeight
                leftHeight += height + padding
            } else {
                x = rightOrigin
                y = rightHeight
                rightHeight += height + padding
            }
            tempOrigins.append((x, y))
            tempSizes.append((width, height))
        }
        var maxY = 0.0
        for index in 0..<heights.count {
            let newMax = tempOrigins[index].y + tempSizes[index].height
            if newMax > maxY { maxY = newMax }
        }
        let frames = zip(tempOrigins, tempSizes).map { Rect(x: $0.x, y: $0.y, width: $1.width, height: $1.height) }
        return (frames, Size(width: 320, height: maxY + 10))
    }
}

/// LAYOUTS.md's waterfall rule for one section, with a plain scan over all `columns` columns (no
/// tracking of the columns in use, no register pair, no heap).
private enum WaterfallRule {
    static func layOut(_ items: ItemSizes, parameters p: WaterfallParameters, contentWidth W: Double, header: Double, footer: Double) -> (cells: [Rect], height: Double) {
        let insets = p.sectionInsets
        let n = Double(p.columns)
        let columnWidth = p.columnWidth ?? (W - insets.left - insets.right - (n - 1) * p.columnSpacing) / n
        let itemWidth = columnWidth - 2 * p.cellPadding
        let top = (header > 0 ? header : 0) + insets.top
        var columns = [Double](repeating: top, count: p.columns)
        var bottom = top
        var cells: [Rect] = []
        for item in 0..<items.count {
            let slot = items[item].height(forWidth: itemWidth, defaultHeight: p.itemHeight) + 2 * p.cellPadding
            var shortest = 0
            for c in columns.indices where columns[c] < columns[shortest] || (p.tieBreak == .last && columns[c] == columns[shortest]) {
                shortest = c
            }
            let y = columns[shortest]
            cells.append(Rect(x: insets.left + Double(shortest) * (columnWidth + p.columnSpacing) + p.cellPadding,
                              y: y + p.cellPadding, width: itemWidth, height: slot - 2 * p.cellPadding))
            columns[shortest] = y + (slot + p.interitemSpacing)
            bottom = max(bottom, y + slot)
        }
        let end = bottom + insets.bottom
        return (cells, footer > 0 ? end + footer : end)
    }
}
