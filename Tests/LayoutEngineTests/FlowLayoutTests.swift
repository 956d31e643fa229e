import Testing
@testable import LayoutEngine

// Expectations are worked out by hand from LAYOUTS.md `flow` and its edge-case readings.

private func flowParameters(
    spacing: Double = 8, interspan: Double? = nil, spanBefore: Double? = nil, spanAfter: Double? = nil,
    defaultSize: Size = Size(width: 60, height: 60), insets: Insets = .zero,
    transform: FlowParameters.RowTransform = .none, fillMaxScale: Double = 0,
    header: Double = 0, footer: Double = 0
) -> FlowParameters {
    var p = FlowParameters()
    p.interitemSpacing = spacing
    p.interspanSpacing = interspan
    p.spanGroupSpacingBefore = spanBefore
    p.spanGroupSpacingAfter = spanAfter
    p.defaultItemSize = defaultSize
    p.sectionInsets = insets
    p.rowTransform = transform
    p.fillMaxScale = fillMaxScale
    p.headerHeight = header
    p.footerHeight = footer
    return p
}

private func prepareFlow(_ p: FlowParameters, width: Double = 320, backgrounds: Bool = false, sections: [Section]) throws -> PreparedLayout {
    let input = LayoutInput(
        bounds: Size(width: width, height: 480), parameters: .flow(p), sectionBackgrounds: backgrounds, sections: sections
    )
    return try PreparedLayout.prepare(input, options: .serial)
}

private func cellFrames(_ layout: PreparedLayout, section: Int = 0) -> [Rect?] {
    (0..<layout.itemCount(inSection: section)).map { layout.cell(item: $0, section: section)?.frame }
}

private func item(_ width: Double, _ height: Double) -> ItemSizing {
    ItemSizing(height: height, width: width)
}

private func span(_ height: Double?) -> ItemSizing {
    ItemSizing(height: height, isSpan: true)
}

private func section(_ items: [ItemSizing], header: Double? = nil, footer: Double? = nil) -> Section {
    Section(items: ItemSizes(items), headerHeight: header, footerHeight: footer)
}

@Suite struct FlowLayoutTests {
    @Test func itemsOfTheSameHeightShareARowAndADifferentHeightStartsANewOne() throws {
        // 100×50, 100×50 → row 0 at x 0, 108. 100×60 differs → row 1 at y 50 + 8 = 58; 50×60 joins at x 108.
        let layout = try prepareFlow(flowParameters(), sections: [section([item(100, 50), item(100, 50), item(100, 60), item(50, 60)])])
        #expect(cellFrames(layout) == [
            Rect(x: 0, y: 0, width: 100, height: 50),
            Rect(x: 108, y: 0, width: 100, height: 50),
            Rect(x: 0, y: 58, width: 100, height: 60),
            Rect(x: 108, y: 58, width: 50, height: 60),
        ])
        #expect(layout.contentSize.height == 118)
    }

    @Test func anItemThatExactlyFitsJoinsTheRow() throws {
        // Wr 320: 100 + 8 + 100 + 8 + 104 = 320 <= 320 → one row; the next 1×20 starts row 1 at 28.
        let layout = try prepareFlow(flowParameters(), sections: [section([item(100, 20), item(100, 20), item(104, 20), item(1, 20)])])
        #expect(cellFrames(layout) == [
            Rect(x: 0, y: 0, width: 100, height: 20),
            Rect(x: 108, y: 0, width: 100, height: 20),
            Rect(x: 216, y: 0, width: 104, height: 20),
            Rect(x: 0, y: 28, width: 1, height: 20),
        ])
    }

    @Test func anItemOnePointTooWideStartsANewRow() throws {
        // 100 + 8 + 100 + 8 + 105 = 321 > 320.
        let layout = try prepareFlow(flowParameters(), sections: [section([item(100, 20), item(100, 20), item(105, 20)])])
        #expect(cellFrames(layout).last == Rect(x: 0, y: 28, width: 105, height: 20))
    }

    @Test func rowsStartAtTheLeftInsetAndFitTheRowWidthInsideTheInsets() throws {
        // W 320, insets l30 r10 → Wr 280: 100 + 8 + 100 = 208; + 8 + 72 = 288 > 280 → new row.
        let p = flowParameters(insets: Insets(top: 4, left: 30, bottom: 0, right: 10))
        let layout = try prepareFlow(p, sections: [section([item(100, 20), item(100, 20), item(72, 20)])])
        #expect(cellFrames(layout) == [
            Rect(x: 30, y: 4, width: 100, height: 20),
            Rect(x: 138, y: 4, width: 100, height: 20),
            Rect(x: 30, y: 32, width: 72, height: 20),
        ])
    }

    @Test func anItemWiderThanTheRowIsScaledDownProportionally() throws {
        // Insets l10 r10 → Wr 300: 600×100 → 300×50 at x 10 on a new row (y 20 + 8 = 28).
        let p = flowParameters(insets: Insets(left: 10, right: 10))
        let layout = try prepareFlow(p, sections: [section([item(40, 20), item(600, 100), item(40, 50)])])
        #expect(cellFrames(layout) == [
            Rect(x: 10, y: 0, width: 40, height: 20),
            Rect(x: 10, y: 28, width: 300, height: 50),
            Rect(x: 10, y: 86, width: 40, height: 50),
        ])
    }

    @Test func sameHeightComparesTheScaledDownHeight() throws {
        // Spacing 0, Wr 300: 600×100 → 300×50. A 0×50 item then fits (300 + 0 + 0 <= 300) and has the
        // same placed height → joins at x 300. A 0×100 item (the unscaled height) starts a new row.
        let p = flowParameters(spacing: 0)
        let joined = try prepareFlow(p, width: 300, sections: [section([item(600, 100), item(0, 50)])])
        #expect(cellFrames(joined) == [
            Rect(x: 0, y: 0, width: 300, height: 50),
            Rect(x: 300, y: 0, width: 0, height: 50),
        ])
        let split = try prepareFlow(p, width: 300, sections: [section([item(600, 100), item(0, 100)])])
        #expect(cellFrames(split).last == Rect(x: 0, y: 50, width: 0, height: 100))
    }

    @Test func spansSitAloneAtFullRowWidthWithTheFourVerticalSpacings() throws {
        // interitem 8, interspan 3, spanGroupSpacingBefore 5, spanGroupSpacingAfter 7; insets l10 r20 → Wr 290.
        // flow 100×20, 100×20 → row 0 y 0..20; flow 100×30 (new height) → y 20 + 8 = 28..58;
        // span 40 → y 58 + 5 = 63..103; span (width ignored) 10 → y 103 + 3 = 106..116; flow 50×20 → y 116 + 7 = 123..143.
        let p = flowParameters(interspan: 3, spanBefore: 5, spanAfter: 7, insets: Insets(left: 10, right: 20))
        let items = [
            item(100, 20), item(100, 20), item(100, 30), span(40), ItemSizing(height: 10, width: 50, isSpan: true), item(50, 20),
        ]
        let layout = try prepareFlow(p, sections: [section(items)])
        #expect(cellFrames(layout) == [
            Rect(x: 10, y: 0, width: 100, height: 20),
            Rect(x: 118, y: 0, width: 100, height: 20),
            Rect(x: 10, y: 28, width: 100, height: 30),
            Rect(x: 10, y: 63, width: 290, height: 40),
            Rect(x: 10, y: 106, width: 290, height: 10),
            Rect(x: 10, y: 123, width: 50, height: 20),
        ])
        #expect(layout.contentSize.height == 143)
    }

    @Test func unsetSpanSpacingsDefaultToTheInteritemSpacing() throws {
        // A span first in the section has no gap above it. Spacing 6 everywhere:
        // span 10 → 0..10; span 10 → 16..26; flow 60×60 → 32..92; span 5 → 98..103.
        let layout = try prepareFlow(flowParameters(spacing: 6), sections: [section([span(10), span(10), .unspecified, span(5)])])
        #expect(cellFrames(layout).map { $0?.minY } == [0, 16, 32, 98])
        #expect(layout.contentSize.height == 103)
    }

    @Test func missingSizesComeFromTheDefaultItemSize() throws {
        // Default 70×30: no size → 70×30; width 50 only → 50×30; height 12 only → 70×12; span without height → 30.
        // aspectRatio 2 with width 90 follows the common rule: 90 / 2 = 45.
        let p = flowParameters(defaultSize: Size(width: 70, height: 30))
        let items = [.unspecified, ItemSizing(width: 50), ItemSizing(height: 12), span(nil), ItemSizing(aspectRatio: 2, width: 90)]
        let layout = try prepareFlow(p, sections: [section(items)])
        // Row 0: 70×30, 50×30 (x 78); row 1 (12 high) at 38; span at 50 + 8 = 58..88; row at 96.
        #expect(cellFrames(layout) == [
            Rect(x: 0, y: 0, width: 70, height: 30),
            Rect(x: 78, y: 0, width: 50, height: 30),
            Rect(x: 0, y: 38, width: 70, height: 12),
            Rect(x: 0, y: 58, width: 320, height: 30),
            Rect(x: 0, y: 96, width: 90, height: 45),
        ])
    }

    @Test func centerShiftsEveryRowThenRoundsOnlyTheEmittedFrames() throws {
        // W 320, insets l10 r15 b2 → Wr 295; spacing 8; footer 10.
        // Span 10.25 at (10, 0, 295, 10.25): spans are not flow rows, so it is not centred.
        // Row 1 at y 10.25 + 8 = 18.25: three 50.5×20 items, rowWidth 3×50.5 + 16 = 167.5,
        //   shift (295 - 167.5) / 2 = 63.75. Unshifted x 10, 68.5, 127 → shifted 73.75, 132.25, 190.75
        //   (maxX 124.25, 182.75, 241.25). integral: x 73, 132, 190; maxX 125, 183, 242 → widths 52, 51, 52;
        //   y floor(18.25) = 18, maxY ceil(38.25) = 39 → height 21.
        // Row 2 (the last) advances by the unrounded 20: y 38.25 + 8 = 46.25, one 40×30 item,
        //   shift (295 - 40) / 2 = 127.5 → x 137.5..177.5 → integral x 137, width 41; y 46 to ceil(76.25) = 77 → 31.
        // Rows end at 76.25; + inset.bottom 2 → footer at 78.25, 10 high; section ends 88.25.
        let p = flowParameters(insets: Insets(top: 0, left: 10, bottom: 2, right: 15), transform: .center, footer: 10)
        let items = [span(10.25), item(50.5, 20), item(50.5, 20), item(50.5, 20), item(40, 30)]
        let layout = try prepareFlow(p, sections: [section(items)])
        #expect(cellFrames(layout) == [
            Rect(x: 10, y: 0, width: 295, height: 10.25),
            Rect(x: 73, y: 18, width: 52, height: 21),
            Rect(x: 132, y: 18, width: 51, height: 21),
            Rect(x: 190, y: 18, width: 52, height: 21),
            Rect(x: 137, y: 46, width: 41, height: 31),
        ])
        #expect(layout.supplementaryElement(.footer, section: 0)?.frame == Rect(x: 0, y: 78.25, width: 320, height: 10))
        #expect(layout.contentSize.height == 88.25)
    }

    @Test func aSectionNeverEndsAboveARoundedCenteredFrame() throws {
        // One 40×20.5 row, centred: the frame ends at ceil(20.5) = 21 while the row ends at 20.5.
        let layout = try prepareFlow(flowParameters(transform: .center), sections: [section([item(40, 20.5)]), section([item(40, 10)])])
        #expect(cellFrames(layout) == [Rect(x: 140, y: 0, width: 40, height: 21)])
        #expect(layout.sectionTops == [0, 21])
    }

    @Test func centeredFramesAreIntegralInContentCoordinatesBelowAFractionalSectionTop() throws {
        // W 320. Section 0: header 44.5, one 100×40 row → centred (110, 44.5) → integral (110, 44, 100, 41);
        // the row ends at 84.5, the footer (10.25) at 94.75: section 1 starts at 94.75.
        // Section 1: one 100×40 row at content y 94.75 → integral (110, 94, 100, 41), not (110, 94.75, 100, 40).
        let p = flowParameters(transform: .center, footer: 10.25)
        let layout = try prepareFlow(p, sections: [section([item(100, 40)], header: 44.5), section([item(100, 40)], footer: 0)])
        #expect(cellFrames(layout, section: 0) == [Rect(x: 110, y: 44, width: 100, height: 41)])
        #expect(layout.sectionTops == [0, 94.75])
        #expect(cellFrames(layout, section: 1) == [Rect(x: 110, y: 94, width: 100, height: 41)])
        // The section ends under its rounded frame: 135, not 134.75.
        #expect(layout.contentSize.height == 135)
    }

    @Test func centeredFramesStayIntegralWhenABatchMovesTheSectionByAFraction() throws {
        let p = flowParameters(transform: .center)
        let layout = try prepareFlow(p, sections: [
            section([item(100, 40)], footer: 5.5), section((0..<40).map { item(Double(30 + $0 % 7 * 10), 20.5) }),
        ])
        #expect(layout.sectionTops[1] == 45.5)
        // A reload makes section 0 a quarter point taller: section 1 moves from 45.5 to 45.75 and rounds anew.
        let batch = BatchUpdate([.reload(ItemPath(section: 0, item: 0), ItemSizing(height: 40.25, width: 100), id: nil)])
        let updated = try layout.applying(batch, options: .serial).layout
        let full = try PreparedLayout.prepare(updated.input, options: .serial)
        #expect(updated.sectionTops[1] == 45.75)
        for item in 0..<40 {
            let frame = try #require(updated.cell(item: item, section: 1)?.frame)
            #expect(frame == full.cell(item: item, section: 1)?.frame)
            #expect(frame.minY == frame.minY.rounded(.down) && frame.height == frame.height.rounded(.down))
        }
    }

    @Test func fillScalesEachRowIncludingTheLastToTheRowWidth() throws {
        // W 300, spacing 10. Row 0: 50, 70, 60 × 40 → Σw 180, s = (300 - 20) / 180 = 1.5556.
        //   maxX_0 = round(77.78) = 78 → x 0 w 78; maxX_1 = round(77.78 + 108.89 + 10) = round(196.67) = 197
        //   → x 88 w 109; maxX_2 = round(280 + 20) = 300 → x 207 w 93. Height round(62.22) = 62.
        // Row 1 (the last) at 62 + 10 = 72: one 25×10 → s = 12 → (0, 72, 300, 120). Section ends 192.
        let p = flowParameters(spacing: 10, transform: .fill)
        let layout = try prepareFlow(p, width: 300, sections: [section([item(50, 40), item(70, 40), item(60, 40), item(25, 10)])])
        #expect(cellFrames(layout) == [
            Rect(x: 0, y: 0, width: 78, height: 62),
            Rect(x: 88, y: 0, width: 109, height: 62),
            Rect(x: 207, y: 0, width: 93, height: 62),
            Rect(x: 0, y: 72, width: 300, height: 120),
        ])
        #expect(layout.contentSize.height == 192)
    }

    @Test func fillMaxScaleCapsTheScale() throws {
        // Same rows, cap 1.2: row 0 s = 1.2 → maxX 60, 60 + 84 + 10 = 154, 60 + 84 + 72 + 20 = 236:
        //   x 0 w 60; x 70 w 84; x 164 w 72; height 48. Row 1 at 48 + 10 = 58: s = 1.2 → w 30, h 12.
        let p = flowParameters(spacing: 10, transform: .fill, fillMaxScale: 1.2)
        let layout = try prepareFlow(p, width: 300, sections: [section([item(50, 40), item(70, 40), item(60, 40), item(25, 10)])])
        #expect(cellFrames(layout) == [
            Rect(x: 0, y: 0, width: 60, height: 48),
            Rect(x: 70, y: 0, width: 84, height: 48),
            Rect(x: 164, y: 0, width: 72, height: 48),
            Rect(x: 0, y: 58, width: 30, height: 12),
        ])
        #expect(layout.contentSize.height == 70)
    }

    @Test func fillLeavesARowUntouchedWhenTheCappedScaleIsAtMostOne() throws {
        // Cap 0.5 → s = 0.5 <= 1: frames as placed, fractional values not rounded.
        let p = flowParameters(spacing: 10, transform: .fill, fillMaxScale: 0.5)
        let layout = try prepareFlow(p, width: 300, sections: [section([item(50.4, 40.6), item(70, 40.6)])])
        #expect(cellFrames(layout) == [
            Rect(x: 0, y: 0, width: 50.4, height: 40.6),
            Rect(x: 60.4, y: 0, width: 70, height: 40.6),
        ])
    }

    @Test func fillLeavesAFullRowUntouched() throws {
        // 140.5 + 10 + 149.5 = 300 = Wr → s = 290 / 290 = 1: untouched, so nothing is rounded
        // (the fill rounding would give 141 and a height of 21).
        let p = flowParameters(spacing: 10, transform: .fill)
        let layout = try prepareFlow(p, width: 300, sections: [section([item(140.5, 20.5), item(149.5, 20.5)])])
        #expect(cellFrames(layout) == [
            Rect(x: 0, y: 0, width: 140.5, height: 20.5),
            Rect(x: 150.5, y: 0, width: 149.5, height: 20.5),
        ])
        #expect(layout.contentSize.height == 20.5)
    }

    @Test func fillStartsAtTheLeftInsetAndEndsAtTheRightOne() throws {
        // Insets l7 r13, W 320 → Wr 300; two 40×10 items, spacing 20: s = 280 / 80 = 3.5.
        // maxX_0 = round(7 + 140) = 147 → x 7 w 140; maxX_1 = round(7 + 280 + 20) = 307 → x 167 w 140; h 35.
        let p = flowParameters(spacing: 20, insets: Insets(left: 7, right: 13), transform: .fill)
        let layout = try prepareFlow(p, sections: [section([item(40, 10), item(40, 10)])])
        #expect(cellFrames(layout) == [
            Rect(x: 7, y: 0, width: 140, height: 35),
            Rect(x: 167, y: 0, width: 140, height: 35),
        ])
    }

    @Test func transformsLeaveSpansAlone() throws {
        for transform in FlowParameters.RowTransform.allCases {
            let layout = try prepareFlow(flowParameters(insets: Insets(left: 5, right: 5), transform: transform), sections: [section([span(12.5)])])
            #expect(cellFrames(layout) == [Rect(x: 5, y: 0, width: 310, height: 12.5)])
        }
    }

    @Test func footerComesAfterTheBottomInset() throws {
        // Header 20, insets t5 b7: header 0..20; row at 25..85 (60×60); footer at 85 + 7 = 92, 9 high; ends 101.
        // Header and footer span W whatever the side insets.
        let p = flowParameters(insets: Insets(top: 5, left: 3, bottom: 7, right: 3), header: 20, footer: 9)
        let layout = try prepareFlow(p, sections: [section([.unspecified]), section([])])
        #expect(layout.supplementaryElement(.header, section: 0)?.frame == Rect(x: 0, y: 0, width: 320, height: 20))
        #expect(cellFrames(layout) == [Rect(x: 3, y: 25, width: 60, height: 60)])
        #expect(layout.supplementaryElement(.footer, section: 0)?.frame == Rect(x: 0, y: 92, width: 320, height: 9))
        #expect(layout.sectionTops == [0, 101])
        // The empty section: header 101..121, footer at 121 + 5 + 7 = 133, ends 142.
        #expect(layout.supplementaryElement(.footer, section: 1)?.frame == Rect(x: 0, y: 133, width: 320, height: 9))
        #expect(layout.contentSize.height == 142)
    }

    @Test func perSectionParametersOverrideTheSpec() throws {
        // Section 0 with the spec: one 60×60 at 0..60. Section 1 at 60 overrides: spacing 4, default 30×10,
        // insets l20 r20 (Wr 280), center: two 30×10 → rowWidth 64, shift (280 - 64) / 2 = 108 → x 128, 162.
        let override = flowParameters(spacing: 4, defaultSize: Size(width: 30, height: 10), insets: Insets(left: 20, right: 20), transform: .center)
        let sections = [Section(count: 1), Section(items: ItemSizes(count: 2), parameters: .flow(override))]
        let layout = try prepareFlow(flowParameters(), sections: sections)
        #expect(layout.sectionTops == [0, 60])
        #expect(cellFrames(layout, section: 1) == [
            Rect(x: 128, y: 60, width: 30, height: 10),
            Rect(x: 162, y: 60, width: 30, height: 10),
        ])
        #expect(layout.contentSize.height == 70)
    }

    @Test func defaultItemsFillRowsAcrossTheWidth() throws {
        // All-default items 60×60, W 320, spacing 8: 60 + 4 × 68 = 332 > 320, so 4 per row (x 0, 68, 136, 204).
        let layout = try prepareFlow(flowParameters(), sections: [Section(count: 10)])
        let frames = cellFrames(layout)
        #expect(frames.map { $0?.minX } == [0, 68, 136, 204, 0, 68, 136, 204, 0, 68])
        #expect(frames.map { $0?.minY } == [0, 0, 0, 0, 68, 68, 68, 68, 136, 136])
        #expect(layout.contentSize.height == 196)
    }

    @Test func rectQueriesMatchAScanOfEveryElement() throws {
        var items: [ItemSizing] = []
        for i in 0..<300 {
            items.append(i % 17 == 0 ? span(Double(10 + i % 5)) : item(Double(20 + (i * 37) % 90), Double(20 + (i / 6) % 3 * 10)))
        }
        for transform in FlowParameters.RowTransform.allCases {
            let p = flowParameters(insets: Insets(all: 4), transform: transform, header: 10, footer: 10)
            let layout = try prepareFlow(p, backgrounds: true, sections: [section(items), section(items)])
            for rect in [Rect(x: 0, y: 0, width: 50, height: 50), Rect(x: 150, y: 400, width: 10, height: 900), Rect(x: 0, y: 2000, width: 320, height: 1)] {
                #expect(layout.elements(in: rect) == layout.elementsByScanning(in: rect))
            }
        }
    }
}
