import Testing
@testable import LayoutEngine

// Expectations are worked out by hand from LAYOUTS.md `list`:
// header → + inset.top → items (x inset.left, width W - left - right) → footer → + inset.bottom.

private func listParameters(
    itemHeight: Double = 36, spacing: Double = 0, insets: Insets = .zero,
    header: Double = 0, footer: Double = 0, insetSupplementaryViews: Bool = false
) -> ListParameters {
    var p = ListParameters()
    p.itemHeight = itemHeight
    p.spacing = spacing
    p.sectionInsets = insets
    p.headerHeight = header
    p.footerHeight = footer
    p.insetSupplementaryViews = insetSupplementaryViews
    return p
}

private func prepareList(
    _ p: ListParameters, width: Double = 320, contentInsets: Insets = .zero, backgrounds: Bool = false,
    sections: [Section], options: PrepareOptions = .serial
) throws -> PreparedLayout {
    let input = LayoutInput(
        bounds: Size(width: width, height: 480), parameters: .list(p),
        contentInsets: contentInsets, sectionBackgrounds: backgrounds, sections: sections
    )
    return try PreparedLayout.prepare(input, options: options)
}

/// Cell frames of `section`, in content coordinates.
private func cellFrames(_ layout: PreparedLayout, section: Int) -> [Rect?] {
    (0..<layout.itemCount(inSection: section)).map { layout.cell(item: $0, section: section)?.frame }
}

private func sizedSection(_ sizings: [ItemSizing], header: Double? = nil, footer: Double? = nil, parameters: LayoutParameters? = nil) -> Section {
    Section(items: ItemSizes(sizings), headerHeight: header, footerHeight: footer, parameters: parameters)
}

/// NaN (not set) for every 7th item, else a fractional height.
private func fractionalHeight(_ i: Int) -> Double {
    if i % 7 == 0 { return .nan }
    let step = Double(i % 13) * 0.37
    return 10.1 + step
}

/// A ratio for every 5th item, else NaN (not set).
private func fractionalRatio(_ i: Int) -> Double {
    if i % 5 != 0 { return .nan }
    return 1.3 + Double(i % 3)
}

@Suite struct ListLayoutTests {
    @Test func headerAndFooterSpanTheContentWidthWithoutInsetSupplementaryViews() throws {
        // W 320, insets t10 l16 b20 r4: items x 16, width 300.
        // header 0..30; item0 y 30+10 = 40; item1 y 40+36+5 = 81; footer y 81+36 = 117; end 117+25+20 = 162.
        let p = listParameters(spacing: 5, insets: Insets(top: 10, left: 16, bottom: 20, right: 4), header: 30, footer: 25)
        let layout = try prepareList(p, sections: [Section(count: 2)])
        #expect(layout.supplementaryElement(.header, section: 0)?.frame == Rect(x: 0, y: 0, width: 320, height: 30))
        #expect(cellFrames(layout, section: 0) == [
            Rect(x: 16, y: 40, width: 300, height: 36),
            Rect(x: 16, y: 81, width: 300, height: 36),
        ])
        #expect(layout.supplementaryElement(.footer, section: 0)?.frame == Rect(x: 0, y: 117, width: 320, height: 25))
        #expect(layout.contentSize == Size(width: 320, height: 162))
    }

    @Test func insetSupplementaryViewsInsetHeaderAndFooterLikeTheItems() throws {
        let p = listParameters(
            spacing: 5, insets: Insets(top: 10, left: 16, bottom: 20, right: 4), header: 30, footer: 25,
            insetSupplementaryViews: true
        )
        let layout = try prepareList(p, sections: [Section(count: 2)])
        #expect(layout.supplementaryElement(.header, section: 0)?.frame == Rect(x: 16, y: 0, width: 300, height: 30))
        #expect(layout.supplementaryElement(.footer, section: 0)?.frame == Rect(x: 16, y: 117, width: 300, height: 25))
        #expect(cellFrames(layout, section: 0).first == Rect(x: 16, y: 40, width: 300, height: 36))
        #expect(layout.contentSize.height == 162)
    }

    @Test func insetSupplementaryViewsLineUpWithTheItemsToTheLastBit() throws {
        // Fractional insets: W - left - right and W - (left + right) differ in the last bit for these
        // (320 - 0.3 - 0.6 = 319.09999999999997, 320 - 0.9 = 319.1); header and footer must match the items.
        let p = listParameters(insets: Insets(top: 0, left: 0.3, bottom: 0, right: 0.6), header: 10, footer: 10, insetSupplementaryViews: true)
        let layout = try prepareList(p, sections: [Section(count: 1)])
        let item = try #require(layout.cell(item: 0, section: 0)?.frame)
        #expect(item.width == 320 - 0.3 - 0.6)
        #expect(layout.supplementaryElement(.header, section: 0)?.frame == Rect(x: 0.3, y: 0, width: item.width, height: 10))
        #expect(layout.supplementaryElement(.footer, section: 0)?.frame == Rect(x: 0.3, y: 46, width: item.width, height: 10))
    }

    @Test func noHeaderOrFooterWhenTheirHeightIsZero() throws {
        let layout = try prepareList(listParameters(), sections: [Section(count: 1)])
        #expect(layout.supplementaryElement(.header, section: 0) == nil)
        #expect(layout.supplementaryElement(.footer, section: 0) == nil)
        #expect(layout.elementCount == 1)
    }

    @Test func spacingGoesBetweenItemsOnly() throws {
        // One item: no spacing above or below. Three items, spacing 10: y 0, 46, 92; end 92 + 36 = 128.
        let single = try prepareList(listParameters(spacing: 10), sections: [Section(count: 1)])
        #expect(cellFrames(single, section: 0) == [Rect(x: 0, y: 0, width: 320, height: 36)])
        #expect(single.contentSize.height == 36)

        let three = try prepareList(listParameters(spacing: 10), sections: [Section(count: 3)])
        #expect(cellFrames(three, section: 0).map { $0?.minY } == [0, 46, 92])
        #expect(three.contentSize.height == 128)
    }

    @Test func itemHeightsFollowTheSizingRulesWithTheItemWidth() throws {
        // W 200, insets l20 r30 → item width 150.
        // height 40 → 40; aspectRatio 1.5 → 150/1.5 = 100; r 3 + h 7 → 50 + 7 = 57; none → itemHeight 44.
        let p = listParameters(itemHeight: 44, insets: Insets(left: 20, right: 30))
        let section = sizedSection([
            ItemSizing(height: 40), ItemSizing(aspectRatio: 1.5), ItemSizing(height: 7, aspectRatio: 3), .unspecified,
        ])
        let layout = try prepareList(p, width: 200, sections: [section])
        #expect(cellFrames(layout, section: 0) == [
            Rect(x: 20, y: 0, width: 150, height: 40),
            Rect(x: 20, y: 40, width: 150, height: 100),
            Rect(x: 20, y: 140, width: 150, height: 57),
            Rect(x: 20, y: 197, width: 150, height: 44),
        ])
        #expect(layout.contentSize.height == 241)
    }

    @Test func contentInsetsNarrowTheWidthWithoutShiftingFrames() throws {
        // bounds 320, contentInsets l10 r30 → W 280; top/bottom content insets change nothing.
        let layout = try prepareList(
            listParameters(header: 12), contentInsets: Insets(top: 50, left: 10, bottom: 50, right: 30),
            sections: [Section(count: 1)]
        )
        #expect(layout.supplementaryElement(.header, section: 0)?.frame == Rect(x: 0, y: 0, width: 280, height: 12))
        #expect(cellFrames(layout, section: 0) == [Rect(x: 0, y: 12, width: 280, height: 36)])
        #expect(layout.contentSize == Size(width: 320, height: 48))
    }

    @Test func sectionsStackWhereThePreviousOneEnded() throws {
        // Header 10 everywhere. Section 0: header 0..10, items 10, 46 → ends 82.
        // Section 1 at 82: header 82..92, item 92 → ends 128. Section 2 (no items): header 128..138.
        let layout = try prepareList(listParameters(header: 10), sections: [Section(count: 2), Section(count: 1), Section(count: 0)])
        #expect(layout.sectionTops == [0, 82, 128])
        #expect(cellFrames(layout, section: 0).map { $0?.minY } == [10, 46])
        #expect(layout.supplementaryElement(.header, section: 1)?.frame == Rect(x: 0, y: 82, width: 320, height: 10))
        #expect(cellFrames(layout, section: 1) == [Rect(x: 0, y: 92, width: 320, height: 36)])
        #expect(layout.supplementaryElement(.header, section: 2)?.frame == Rect(x: 0, y: 128, width: 320, height: 10))
        #expect(layout.contentSize.height == 138)
    }

    @Test func perSectionParametersOverrideTheSpec() throws {
        // Section 1 overrides: itemHeight 20, spacing 4, insets 8, header 6 (from its params),
        // and its own footer field 3 beats the params' footer 50.
        // Section 0: 2 × 36 → ends 72. Section 1 at 72: header 72..78, items x 8 width 304 at
        // 78+8 = 86 and 86+20+4 = 110; footer 130..133; ends 133 + 8 = 141.
        let override = listParameters(itemHeight: 20, spacing: 4, insets: Insets(all: 8), header: 6, footer: 50)
        let sections = [
            Section(count: 2),
            Section(items: ItemSizes(count: 2), footerHeight: 3, parameters: .list(override)),
        ]
        let layout = try prepareList(listParameters(), sections: sections)
        #expect(layout.sectionTops == [0, 72])
        #expect(layout.supplementaryElement(.header, section: 1)?.frame == Rect(x: 0, y: 72, width: 320, height: 6))
        #expect(cellFrames(layout, section: 1) == [
            Rect(x: 8, y: 86, width: 304, height: 20),
            Rect(x: 8, y: 110, width: 304, height: 20),
        ])
        #expect(layout.supplementaryElement(.footer, section: 1)?.frame == Rect(x: 0, y: 130, width: 320, height: 3))
        #expect(layout.contentSize.height == 141)
    }

    @Test func sectionBackgroundsCoverEachSectionInsetsIncluded() throws {
        // W = 320 - 10 - 10 = 300. Insets t4 b6, header 10.
        // Section 0: header 0..10, item 14..50, ends 56. Section 1 (empty): header 56..66, ends 66+4+6 = 76.
        let p = listParameters(insets: Insets(top: 4, left: 0, bottom: 6, right: 0), header: 10)
        let layout = try prepareList(
            p, contentInsets: Insets(left: 10, right: 10), backgrounds: true, sections: [Section(count: 1), Section(count: 0)]
        )
        let backgrounds = [0, 1].map { layout.supplementaryElement(.decoration, section: $0) }
        #expect(backgrounds.map { $0?.frame } == [
            Rect(x: 0, y: 0, width: 300, height: 56),
            Rect(x: 0, y: 56, width: 300, height: 20),
        ])
        #expect(backgrounds.map { $0?.zIndex } == [-1, -1])
        #expect(backgrounds.map { $0?.decorationKind } == ["sectionBackground", "sectionBackground"])
        // Layout order: per section header, cells, footer, decoration.
        var kinds: [ElementKind] = []
        layout.forEachElement { kinds.append($0.kind) }
        #expect(kinds == [.header, .cell, .decoration, .header, .decoration])
    }

    @Test func emptySectionsKeepTheirInsetsHeaderAndFooter() throws {
        // Empty, no header/footer: ends at inset.top + inset.bottom = 3 + 4 = 7.
        // Empty with header 10, footer 5: header 7..17, footer at 17+3 = 20, ends 20+5+4 = 29.
        let p = listParameters(insets: Insets(top: 3, left: 0, bottom: 4, right: 0))
        let layout = try prepareList(p, sections: [Section(count: 0), Section(count: 0, headerHeight: 10, footerHeight: 5)])
        #expect(layout.sectionTops == [0, 7])
        #expect(layout.supplementaryElement(.header, section: 1)?.frame == Rect(x: 0, y: 7, width: 320, height: 10))
        #expect(layout.supplementaryElement(.footer, section: 1)?.frame == Rect(x: 0, y: 20, width: 320, height: 5))
        #expect(layout.contentSize.height == 29)
        #expect(layout.itemCount == 0)
    }

    @Test func noSectionsGiveAnEmptyContentSize() throws {
        let layout = try prepareList(listParameters(), sections: [])
        #expect(layout.contentSize == Size(width: 320, height: 0))
        #expect(layout.elementCount == 0)
    }

    @Test func aLargeSectionBySegmentsInParallelEqualsTheSerialRunBitForBit() throws {
        // Fractional sizes make the float accumulation order visible: segments must run the same
        // arithmetic whether they run concurrently or one after another.
        let count = 200_001
        let heights = (0..<count).map(fractionalHeight)
        let ratios = (0..<count).map(fractionalRatio)
        let items = try #require(ItemSizes(count: count, heights: heights, aspectRatios: ratios))
        let p = listParameters(spacing: 0.3, insets: Insets(top: 1.5, left: 3, bottom: 2, right: 4), header: 7.25, footer: 3)
        let sections = [Section(count: 3), Section(items: items), Section(count: 2)]
        let segments = Segments(segmentSize: 1000)
        let parallel = try prepareList(p, sections: sections, options: PrepareOptions(segments: segments, parallelThreshold: 0))
        var serialSegments = segments
        serialSegments.isParallel = false
        let serial = try prepareList(p, sections: sections, options: PrepareOptions(segments: serialSegments))
        #expect(parallel.sectionFrames == serial.sectionFrames)
        #expect(parallel.sectionTops == serial.sectionTops)
        #expect(parallel.contentSize == serial.contentSize)
    }

    @Test func aLargeSectionBySegmentsMatchesANaiveRunningSum() throws {
        // Whole-number sizes keep every sum exact, so the segmented result must equal a plain loop.
        let count = 200_001
        let heights: [Double] = (0..<count).map { i in i % 4 == 0 ? .nan : Double(1 + i % 9) }
        let ratios: [Double] = (0..<count).map { i in i % 6 == 0 ? 0.5 : .nan }
        let items = try #require(ItemSizes(count: count, heights: heights, aspectRatios: ratios))
        let p = listParameters(itemHeight: 11, spacing: 2, insets: Insets(top: 5, left: 10, bottom: 1, right: 10), header: 4)
        let layout = try prepareList(
            p, sections: [Section(items: items)],
            options: PrepareOptions(segments: Segments(segmentSize: 1000), parallelThreshold: 0)
        )
        // Item width 300; r 0.5 → 600 (+ h when set); h → h; neither → 11.
        var y = 4.0 + 5.0
        var mismatches = 0
        let cells = layout.sectionFrames[0].cells
        for i in 0..<count {
            if i > 0 { y += 2 }
            let h: Double
            switch (heights[i].isNaN, ratios[i].isNaN) {
            case (false, false): h = 600 + heights[i]
            case (true, false): h = 600
            case (false, true): h = heights[i]
            case (true, true): h = 11
            }
            if cells[i] != Rect(x: 10, y: y, width: 300, height: h) { mismatches += 1 }
            y += h
        }
        #expect(mismatches == 0)
        #expect(layout.contentSize.height == y + 1)
    }

    @Test func rectQueriesMatchAScanOfEveryElement() throws {
        let p = listParameters(spacing: 3, insets: Insets(all: 5), header: 20, footer: 10)
        let layout = try prepareList(p, backgrounds: true, sections: [Section(count: 40), Section(count: 0), Section(count: 25)])
        let rects = [
            Rect(x: 0, y: 0, width: 320, height: 1), Rect(x: 0, y: 100, width: 50, height: 200),
            Rect(x: 315, y: 0, width: 5, height: 3000), Rect(x: -10, y: 500, width: 400, height: 0.5),
            Rect(x: 0, y: 20, width: 320, height: 5),
        ]
        for rect in rects {
            #expect(layout.elements(in: rect) == layout.elementsByScanning(in: rect))
        }
    }
}
