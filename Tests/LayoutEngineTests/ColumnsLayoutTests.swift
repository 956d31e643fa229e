import Testing
@testable import LayoutEngine

// Expectations are worked out by hand from LAYOUTS.md `columns`. With the defaults (2 columns,
// columnSpacing 8, insets 8) and W 320: Wi = 304, colW = round((304 - 8) / 2) = 148,
// column 0 at x 8, column 1 at x 8 + 156 = 164.

private func columnsParameters(
    count: Int = 2, columnSpacing: Double = 8, interitemSpacing: Double = 8, itemHeight: Double = 50,
    insets: Insets = Insets(all: 8), header: Double = 0, footer: Double = 0,
    insetSupplementaryViews: Bool = false, placement: ColumnsParameters.Placement = .leftToRight
) -> ColumnsParameters {
    var p = ColumnsParameters()
    p.columnCount = count
    p.columnSpacing = columnSpacing
    p.interitemSpacing = interitemSpacing
    p.itemHeight = itemHeight
    p.sectionInsets = insets
    p.headerHeight = header
    p.footerHeight = footer
    p.insetSupplementaryViews = insetSupplementaryViews
    p.placement = placement
    return p
}

private func prepareColumns(_ p: ColumnsParameters, width: Double = 320, sections: [Section], options: PrepareOptions = .serial) throws -> PreparedLayout {
    let input = LayoutInput(bounds: Size(width: width, height: 480), parameters: .columns(p), sections: sections)
    return try PreparedLayout.prepare(input, options: options)
}

private func cellFrames(_ layout: PreparedLayout, section: Int = 0) -> [Rect?] {
    (0..<layout.itemCount(inSection: section)).map { layout.cell(item: $0, section: section)?.frame }
}

private func heightsSection(_ heights: [Double], header: Double? = nil, footer: Double? = nil, parameters: LayoutParameters? = nil) -> Section {
    Section(items: ItemSizes(heights.map { ItemSizing(height: $0) }), headerHeight: header, footerHeight: footer, parameters: parameters)
}

/// An independent model of shortestFirst: a plain scan of every column for each item.
private func naiveShortestFirst(heights: [Double], columns n: Int, top: Double, spacing: Double, columnX: (Int) -> Double, width: Double) -> (frames: [Rect], tallest: Double) {
    var bottoms = [Double](repeating: top, count: n)
    var itemsInColumn = [Int](repeating: 0, count: n)
    var frames: [Rect] = []
    for h in heights {
        var best = 0
        for c in 1..<n where bottoms[c] < bottoms[best] { best = c }
        let y = itemsInColumn[best] == 0 ? top : bottoms[best] + spacing
        frames.append(Rect(x: columnX(best), y: y, width: width, height: h))
        bottoms[best] = y + h
        itemsInColumn[best] += 1
    }
    return (frames, bottoms.max() ?? top)
}

@Suite struct ColumnsLayoutTests {
    @Test func leftToRightDealsItemsInTurnWithNoSpacingAboveAColumnsFirstItem() throws {
        // Heights 50 30 20 40 10 → col 0: 8..58, 66..86, 94..104; col 1: 8..38, 46..86.
        // Tallest column ends at 104; section ends 104 + 8 = 112.
        let layout = try prepareColumns(columnsParameters(), sections: [heightsSection([50, 30, 20, 40, 10])])
        #expect(cellFrames(layout) == [
            Rect(x: 8, y: 8, width: 148, height: 50),
            Rect(x: 164, y: 8, width: 148, height: 30),
            Rect(x: 8, y: 66, width: 148, height: 20),
            Rect(x: 164, y: 46, width: 148, height: 40),
            Rect(x: 8, y: 94, width: 148, height: 10),
        ])
        #expect(layout.contentSize.height == 112)
    }

    @Test func rightToLeftStartsAtTheRightmostColumn() throws {
        let p = columnsParameters(placement: .rightToLeft)
        let layout = try prepareColumns(p, sections: [heightsSection([50, 30, 20, 40, 10])])
        #expect(cellFrames(layout) == [
            Rect(x: 164, y: 8, width: 148, height: 50),
            Rect(x: 8, y: 8, width: 148, height: 30),
            Rect(x: 164, y: 66, width: 148, height: 20),
            Rect(x: 8, y: 46, width: 148, height: 40),
            Rect(x: 164, y: 94, width: 148, height: 10),
        ])
        #expect(layout.contentSize.height == 112)
    }

    @Test func rightToLeftWithMoreColumnsThanItemsUsesTheRightmostColumns() throws {
        // 4 columns, W 320, spacing 8, insets 8: colW = round((304 - 24) / 4) = 70; x = 8 + c*78.
        // Two items go to columns 3 and 2.
        let p = columnsParameters(count: 4, placement: .rightToLeft)
        let layout = try prepareColumns(p, sections: [Section(count: 2)])
        #expect(cellFrames(layout) == [
            Rect(x: 242, y: 8, width: 70, height: 50),
            Rect(x: 164, y: 8, width: 70, height: 50),
        ])
    }

    @Test func shortestFirstPicksTheLeastHeightSoFar() throws {
        // Heights 50 30 20 40 10 5:
        // 0 → col 0 (tie, leftmost) 8..58; 1 → col 1 8..38; 2 → col 1 (38 < 58) 46..66;
        // 3 → col 0 (58 < 66) 66..106; 4 → col 1 (66) 74..84; 5 → col 1 (84 < 106) 92..97.
        let p = columnsParameters(placement: .shortestFirst)
        let layout = try prepareColumns(p, sections: [heightsSection([50, 30, 20, 40, 10, 5])])
        #expect(cellFrames(layout) == [
            Rect(x: 8, y: 8, width: 148, height: 50),
            Rect(x: 164, y: 8, width: 148, height: 30),
            Rect(x: 164, y: 46, width: 148, height: 20),
            Rect(x: 8, y: 66, width: 148, height: 40),
            Rect(x: 164, y: 74, width: 148, height: 10),
            Rect(x: 164, y: 92, width: 148, height: 5),
        ])
        #expect(layout.contentSize.height == 106 + 8)
    }

    @Test func shortestFirstBreaksTiesToTheLeftmostColumn() throws {
        // 3 columns, W 332: Wi 316, colW = round((316 - 16) / 3) = 100; x 8, 116, 224.
        // Heights 30 30 30 → one per column, all ending at 38; the 4th (10) ties three ways → col 0 at 46;
        // the 5th (10) ties cols 1 and 2 at 38 → col 1 at 46.
        let p = columnsParameters(count: 3, placement: .shortestFirst)
        let layout = try prepareColumns(p, width: 332, sections: [heightsSection([30, 30, 30, 10, 10])])
        #expect(cellFrames(layout) == [
            Rect(x: 8, y: 8, width: 100, height: 30),
            Rect(x: 116, y: 8, width: 100, height: 30),
            Rect(x: 224, y: 8, width: 100, height: 30),
            Rect(x: 8, y: 46, width: 100, height: 10),
            Rect(x: 116, y: 46, width: 100, height: 10),
        ])
    }

    @Test func shortestFirstMatchesANaiveScanOverManyColumnsAndItems() throws {
        // 7 columns, W 600, spacing 8, insets 8: Wi 584, colW = round((584 - 48) / 7) = round(76.57) = 77.
        var heights: [Double] = []
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            heights.append(Double((state >> 33) % 120))
        }
        let p = columnsParameters(count: 7, header: 12, placement: .shortestFirst)
        let layout = try prepareColumns(p, width: 600, sections: [heightsSection(heights, footer: 5)])
        let expected = naiveShortestFirst(
            heights: heights, columns: 7, top: 20, spacing: 8, columnX: { 8 + Double($0) * 85 }, width: 77
        )
        #expect(cellFrames(layout) == expected.frames)
        #expect(layout.supplementaryElement(.footer, section: 0)?.frame == Rect(x: 0, y: expected.tallest, width: 600, height: 5))
        #expect(layout.contentSize.height == expected.tallest + 5 + 8)
    }

    @Test func columnWidthRoundsHalfAwayFromZero() throws {
        // W 101, 2 columns, no spacing or insets: (101 - 0) / 2 = 50.5 → 51 (not 50, banker's rounding).
        let p = columnsParameters(columnSpacing: 0, insets: .zero)
        let layout = try prepareColumns(p, width: 101, sections: [Section(count: 2)])
        #expect(cellFrames(layout) == [
            Rect(x: 0, y: 0, width: 51, height: 50),
            Rect(x: 51, y: 0, width: 51, height: 50),
        ])
        // W 10, 4 columns: 2.5 → 3; x = 0, 3, 6, 9.
        let narrow = try prepareColumns(columnsParameters(count: 4, columnSpacing: 0, insets: .zero), width: 10, sections: [Section(count: 4)])
        #expect(cellFrames(narrow).map { $0?.minX } == [0, 3, 6, 9])
        #expect(cellFrames(narrow).map { $0?.width } == [3, 3, 3, 3])
    }

    @Test func columnWidthRoundsDownBelowHalf() throws {
        // W 100, 3 columns, spacing 4, no insets: (100 - 8) / 3 = 30.67 → 31; x 0, 35, 70.
        let p = columnsParameters(count: 3, columnSpacing: 4, insets: .zero)
        let layout = try prepareColumns(p, width: 100, sections: [Section(count: 3)])
        #expect(cellFrames(layout).map { $0?.minX } == [0, 35, 70])
        #expect(cellFrames(layout).map { $0?.width } == [31, 31, 31])
    }

    @Test func aspectRatioHeightsAreFlooredAndTheFixedHeightAdded() throws {
        // colW 148, one column per item (leftToRight, 2 columns):
        // r 1.5 → floor(98.67) = 98; r 1.5 + h 7 → 105; r 0.7 → floor(211.43) = 211; h 33 → 33; none → itemHeight 44.
        let sizes = ItemSizes([
            ItemSizing(aspectRatio: 1.5), ItemSizing(height: 7, aspectRatio: 1.5),
            ItemSizing(aspectRatio: 0.7), ItemSizing(height: 33), .unspecified,
        ])
        let layout = try prepareColumns(columnsParameters(itemHeight: 44), sections: [Section(items: sizes)])
        #expect(cellFrames(layout).map { $0?.height } == [98, 105, 211, 33, 44])
        // col 0: 8..106, 114..325, 333..377; col 1: 8..113, 121..154. Ends 377 + 8.
        #expect(cellFrames(layout).map { $0?.minY } == [8, 8, 114, 121, 333])
        #expect(layout.contentSize.height == 385)
    }

    @Test(arguments: [0, -3])
    func aColumnCountBelowOneIsClampedToOne(count: Int) throws {
        // One column: colW = round(304) = 304, items stacked 8..58, 66..116.
        let layout = try prepareColumns(columnsParameters(count: count), sections: [Section(count: 2)])
        #expect(cellFrames(layout) == [
            Rect(x: 8, y: 8, width: 304, height: 50),
            Rect(x: 8, y: 66, width: 304, height: 50),
        ])
    }

    @Test func aHugeColumnCountCostsOnlyTheColumnsInUse() throws {
        // 100,000,000 columns, no spacing or insets, W 1e9 (the longest length accepted): colW 10; only the
        // first items' columns exist.
        let p = columnsParameters(count: 100_000_000, columnSpacing: 0, insets: .zero)
        for placement in ColumnsParameters.Placement.allCases {
            var q = p
            q.placement = placement
            let layout = try prepareColumns(q, width: 1e9, sections: [Section(count: 2)])
            let expected: [Double] = placement == .rightToLeft ? [999_999_990, 999_999_980] : [0, 10]
            #expect(cellFrames(layout).map { $0?.minX } == expected)
        }
    }

    @Test func footerSitsUnderTheTallestColumnThenTheBottomInset() throws {
        // Header 20: items start at 20 + 8 = 28. Heights 10 60 → col 0 28..38, col 1 28..88.
        // Footer at 88 (under the tallest column), 15 high; section ends 103 + 8 = 111.
        let p = columnsParameters(header: 20, footer: 15)
        let layout = try prepareColumns(p, sections: [heightsSection([10, 60])])
        #expect(layout.supplementaryElement(.header, section: 0)?.frame == Rect(x: 0, y: 0, width: 320, height: 20))
        #expect(cellFrames(layout).map { $0?.minY } == [28, 28])
        #expect(layout.supplementaryElement(.footer, section: 0)?.frame == Rect(x: 0, y: 88, width: 320, height: 15))
        #expect(layout.contentSize.height == 111)
    }

    @Test func insetSupplementaryViewsInsetHeaderAndFooter() throws {
        let p = columnsParameters(insets: Insets(top: 8, left: 12, bottom: 8, right: 4), header: 20, footer: 15, insetSupplementaryViews: true)
        let layout = try prepareColumns(p, sections: [heightsSection([10])])
        #expect(layout.supplementaryElement(.header, section: 0)?.frame == Rect(x: 12, y: 0, width: 304, height: 20))
        #expect(layout.supplementaryElement(.footer, section: 0)?.frame == Rect(x: 12, y: 38, width: 304, height: 15))
    }

    @Test func anEmptySectionKeepsHeaderInsetsAndFooter() throws {
        // Header 20 → footer at 20 + 8 = 28 → ends 28 + 15 + 8 = 51.
        let layout = try prepareColumns(columnsParameters(header: 20, footer: 15), sections: [Section(count: 0), Section(count: 0)])
        #expect(layout.supplementaryElement(.footer, section: 0)?.frame == Rect(x: 0, y: 28, width: 320, height: 15))
        #expect(layout.sectionTops == [0, 51])
        #expect(layout.contentSize.height == 102)
    }

    @Test func perSectionParametersOverrideTheSpec() throws {
        // Section 0 with the spec: 1 item 8..58, ends 66.
        // Section 1 at 66 overrides: 3 columns, rightToLeft, no insets, columnSpacing 10, interitemSpacing 2,
        // itemHeight 20: colW = round((320 - 20) / 3) = 100; x 0, 110, 220.
        // Items → col 2, 1, 0, 2: y 0, 0, 0, 22 (local) → 66, 66, 66, 88; ends 88 + 20 = 108.
        let override = columnsParameters(count: 3, columnSpacing: 10, interitemSpacing: 2, itemHeight: 20, insets: .zero, placement: .rightToLeft)
        let sections = [Section(count: 1), Section(items: ItemSizes(count: 4), parameters: .columns(override))]
        let layout = try prepareColumns(columnsParameters(), sections: sections)
        #expect(layout.sectionTops == [0, 66])
        #expect(cellFrames(layout, section: 1) == [
            Rect(x: 220, y: 66, width: 100, height: 20),
            Rect(x: 110, y: 66, width: 100, height: 20),
            Rect(x: 0, y: 66, width: 100, height: 20),
            Rect(x: 220, y: 88, width: 100, height: 20),
        ])
        #expect(layout.contentSize.height == 108)
    }

    @Test func sectionsInParallelEqualTheSerialRun() throws {
        let sections = (0..<6).map { s in heightsSection((0..<500).map { Double(($0 * 7 + s) % 90) + 0.25 }, header: 3) }
        let p = columnsParameters(count: 3, placement: .shortestFirst)
        let parallel = try prepareColumns(p, sections: sections, options: PrepareOptions(segments: Segments(segmentSize: 64), parallelThreshold: 0))
        let serial = try prepareColumns(p, sections: sections, options: PrepareOptions(segments: Segments(segmentSize: 64, isParallel: false)))
        #expect(parallel.sectionFrames == serial.sectionFrames)
    }

    @Test func rectQueriesMatchAScanOfEveryElement() throws {
        let sections = (0..<3).map { s in heightsSection((0..<60).map { Double(10 + ($0 * 13 + s) % 70) }, header: 10, footer: 6) }
        let input = LayoutInput(
            bounds: Size(width: 320, height: 480), parameters: .columns(columnsParameters(count: 3, placement: .shortestFirst)),
            sectionBackgrounds: true, sections: sections
        )
        let layout = try PreparedLayout.prepare(input, options: .serial)
        let rects = [
            Rect(x: 0, y: 0, width: 10, height: 10), Rect(x: 100, y: 300, width: 20, height: 500),
            Rect(x: 160, y: 0, width: 1, height: 5000), Rect(x: 0, y: 1000, width: 320, height: 2),
        ]
        for rect in rects {
            #expect(layout.elements(in: rect) == layout.elementsByScanning(in: rect))
        }
    }
}
