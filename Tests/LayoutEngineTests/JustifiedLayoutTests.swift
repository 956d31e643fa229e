import Testing
@testable import LayoutEngine

// What the fixtures (one section, no header or footer, flickr's own options) do not cover: sections,
// headers and footers, left-out items, the documented deviations, validation and resumption. Expected
// values are worked out by hand from LAYOUTS.md `justified`; where a value is flickr's it says so.

private func justified(_ change: (inout JustifiedParameters) -> Void = { _ in }) -> JustifiedParameters {
    var p = JustifiedParameters()
    change(&p)
    return p
}

private func ratios(_ values: [Double]) -> ItemSizes {
    ItemSizes(values.map { ItemSizing(aspectRatio: $0) })
}

private func prepare(
    _ p: JustifiedParameters, width: Double = 1060, backgrounds: Bool = false, sections: [Section]
) throws -> PreparedLayout {
    let input = LayoutInput(bounds: Size(width: width, height: 800), parameters: .justified(p), sectionBackgrounds: backgrounds, sections: sections)
    return try PreparedLayout.prepare(input, options: .serial)
}

private func cellFrames(_ layout: PreparedLayout, section: Int = 0) -> [Rect?] {
    (0..<layout.itemCount(inSection: section)).map { layout.cell(item: $0, section: section)?.frame }
}

/// The error `validate` throws, or nil when it accepts the input.
private func rejection(_ p: JustifiedParameters, width: Double = 1060, sections: [Section] = [Section(count: 3)]) -> LayoutError? {
    do {
        try LayoutInput(bounds: Size(width: width, height: 800), parameters: .justified(p), sections: sections).validate()
        return nil
    } catch {
        return error
    }
}

@Suite struct JustifiedLayoutTests {
    @Test func theHeaderMovesFlickrsBoxesDownAndSectionsStack() throws {
        // Section 0: flickr's [1, 1, 1, 1] (a row of three at 340, the widow at the same height; container
        // height 10 + 350 + 350 - 10 + 10 = 710), 44 lower for the header; the footer after the container.
        // Section 1: [2, 2] at targetRowHeight 100 never fills a row (4 < 1040 / 100 × 0.75): widows at 100.
        let layout = try prepare(justified(), backgrounds: true, sections: [
            Section(items: ratios([1, 1, 1, 1]), headerHeight: 44, footerHeight: 20),
            Section(items: ratios([2, 2]), parameters: .justified(justified { $0.targetRowHeight = 100 })),
        ])
        #expect(cellFrames(layout, section: 0) == [
            Rect(x: 10, y: 54, width: 340, height: 340),
            Rect(x: 360, y: 54, width: 340, height: 340),
            Rect(x: 710, y: 54, width: 340, height: 340),
            Rect(x: 10, y: 404, width: 340, height: 340),
        ])
        #expect(layout.supplementaryElement(.header, section: 0)?.frame == Rect(x: 0, y: 0, width: 1060, height: 44))
        #expect(layout.supplementaryElement(.footer, section: 0)?.frame == Rect(x: 0, y: 754, width: 1060, height: 20))
        #expect(layout.supplementaryElement(.decoration, section: 0)?.frame == Rect(x: 0, y: 0, width: 1060, height: 774))
        #expect(cellFrames(layout, section: 1) == [Rect(x: 10, y: 784, width: 200, height: 100), Rect(x: 220, y: 784, width: 200, height: 100)])
        #expect(layout.contentSize.height == 774 + 120)
        #expect(layout.placementCounts == PlacementCounts(widowCount: 3, hiddenItemCount: 0))
    }

    @Test func itemsPastMaxNumRowsAreLeftOutUnderTheLastRowAndNeverInARect() throws {
        let layout = try prepare(justified { $0.maxNumRows = 1 }, sections: [Section(items: ratios([1, 1, 1, 1, 1]))])
        #expect(cellFrames(layout).suffix(2) == [Rect(x: 10, y: 350, width: 0, height: 0), Rect(x: 10, y: 350, width: 0, height: 0)])
        #expect(layout.placementCounts == PlacementCounts(widowCount: 0, hiddenItemCount: 2))
        // flickr's containerHeight: 10 + 340 + 10.
        #expect(layout.contentSize.height == 360)
        let everything = layout.elements(in: Rect(x: -10, y: -10, width: 2000, height: 2000))
        #expect(everything.map(\.item) == [0, 1, 2])
        #expect(layout.elementCount == 5)
    }

    @Test func hiddenWidowsAreCountedAndSkipped() throws {
        let layout = try prepare(justified { $0.showWidows = false }, sections: [Section(items: ratios([1, 1, 1, 1]))])
        #expect(cellFrames(layout)[3] == Rect(x: 10, y: 350, width: 0, height: 0))
        #expect(layout.placementCounts == PlacementCounts(widowCount: 0, hiddenItemCount: 1))
        #expect(layout.contentSize.height == 360)
    }

    @Test func aSectionWithoutRowsIsItsInsetsTall() throws {
        // flickr: 10 - 30 + 10 = -10 (it takes back a spacing it never added); layoutd: 10 + 10.
        let p = justified {
            $0.showWidows = false
            $0.boxSpacing = .init(all: 30)
        }
        let layout = try prepare(p, sections: [Section(items: ratios([1])), Section(count: 0)])
        #expect(cellFrames(layout) == [Rect(x: 10, y: 10, width: 0, height: 0)])
        #expect(layout.sectionTops == [0, 20])
        #expect(layout.contentSize.height == 40)
    }

    @Test func aRowThatItsSpacingFillsGivesItsItemsNoWidth() throws {
        // Width 100, spacing 50, target 100: eight items of 0.1 reach 0.75 with 7 × 50 of spacing in a row
        // of 100. flickr: height clamped to 50 and negative widths; layoutd: width 0, x = k × 50.
        let p = justified {
            $0.sectionInsets = .zero
            $0.boxSpacing = .init(all: 50)
            $0.targetRowHeight = 100
        }
        let layout = try prepare(p, width: 100, sections: [Section(items: ratios(Array(repeating: 0.1, count: 8)))])
        #expect(cellFrames(layout) == (0..<8).map { Rect(x: Double($0) * 50, y: 0, width: 0, height: 50) })
        #expect(layout.contentSize.height == 50)
    }

    @Test func aJustifiedWidowNeverGetsANegativeWidth() throws {
        // flickr's boxes for [2.09, 1.3, 2.6, 2.7, 0.12], containerWidth 600, targetRowHeight 150, justify;
        // its last width is -2.2307692307692335, here 0.
        let p = justified {
            $0.targetRowHeight = 150
            $0.widowLayoutStyle = .justify
        }
        let layout = try prepare(p, width: 600, sections: [Section(items: ratios([2.09, 1.3, 2.6, 2.7, 0.12]))])
        #expect(cellFrames(layout) == [
            Rect(x: 10, y: 10, width: 351.4159292035398, height: 168.141592920354),
            Rect(x: 371.4159292035398, y: 10, width: 218.5840707964602, height: 168.141592920354),
            Rect(x: 10, y: 188.141592920354, width: 580, height: 223.07692307692307),
            Rect(x: 10, y: 421.21851599727705, width: 572.3076923076923, height: 223.07692307692307),
            Rect(x: 592.3076923076923, y: 421.21851599727705, width: 0, height: 223.07692307692307),
        ])
        #expect(layout.contentSize.height == 654.2954390742001)
    }

    @Test func anItemWithoutARatioIsSquareAndAWidthHeightRatioStaysInRange() throws {
        let square = try prepare(justified(), sections: [Section(items: ratios([1, 1.5, 1]))])
        let unsized = try prepare(justified(), sections: [Section(items: ItemSizes([
            ItemSizing(width: 10), ItemSizing(height: 200, width: 300), ItemSizing(height: 10),
        ]))])
        #expect(cellFrames(unsized) == cellFrames(square))

        let narrowest = try prepare(justified(), sections: [Section(items: ratios([LayoutInput.aspectRatioRange.lowerBound, 1]))])
        let tooNarrow = try prepare(justified(), sections: [Section(items: ItemSizes([ItemSizing(height: 1e9, width: 1e-300), ItemSizing(aspectRatio: 1)]))])
        #expect(cellFrames(tooNarrow) == cellFrames(narrowest))
    }

    @Test func anAspectRatioWinsOverWidthAndHeight() throws {
        let given = try prepare(justified(), sections: [Section(items: ItemSizes([ItemSizing(height: 100, aspectRatio: 2, width: 100)]))])
        let ratio = try prepare(justified(), sections: [Section(items: ratios([2]))])
        #expect(cellFrames(given) == cellFrames(ratio))
    }

    @Test func insetsAsWideAsTheContentGiveZeroWidths() throws {
        let layout = try prepare(justified { $0.sectionInsets = Insets(top: 0, left: 30, bottom: 0, right: 30) }, width: 60, sections: [Section(count: 3)])
        for frame in cellFrames(layout) {
            let frame = try #require(frame)
            #expect(frame.width == 0 && frame.height == 160 && frame.x.isFinite)
        }
    }

    @Test func invalidOptionsAreRejectedWithTheirPath() {
        let cases: [(JustifiedParameters, String)] = [
            (justified { $0.targetRowHeight = 0 }, "spec.targetRowHeight"),
            (justified { $0.targetRowHeightTolerance = 1.5 }, "spec.targetRowHeightTolerance"),
            (justified { $0.targetRowHeightTolerance = -0.1 }, "spec.targetRowHeightTolerance"),
            (justified { $0.boxSpacing.horizontal = -1 }, "spec.boxSpacing.horizontal"),
            (justified { $0.boxSpacing.vertical = .infinity }, "spec.boxSpacing.vertical"),
            (justified { $0.maxNumRows = 0 }, "spec.maxNumRows"),
            (justified { $0.forceAspectRatio = 0 }, "spec.forceAspectRatio"),
            (justified { $0.forceAspectRatio = 2e9 }, "spec.forceAspectRatio"),
            (justified { $0.fullWidthBreakoutRowCadence = 0 }, "spec.fullWidthBreakoutRowCadence"),
            (justified { $0.sectionInsets.right = -2 }, "spec.sectionInsets.right"),
            (justified { $0.sectionInsets = Insets(top: 0, left: 600, bottom: 0, right: 461) }, "spec.sectionInsets"),
        ]
        for (p, path) in cases {
            let error = rejection(p)
            #expect(error?.code == .invalidRequest && error?.path == path, "\(path): \(String(describing: error))")
        }
        // Insets exactly as wide as the content are accepted (zero-width items).
        #expect(rejection(justified { $0.sectionInsets = Insets(top: 0, left: 600, bottom: 0, right: 460) }) == nil)
        // A section's own value is blamed on the section.
        let override = Section(items: ItemSizes(count: 2), parameters: .justified(justified { $0.targetRowHeight = -5 }))
        #expect(rejection(justified(), sections: [Section(count: 1), override])?.path == "sections[1].params.targetRowHeight")
    }

    @Test func aBatchPastTheLastRowResumesAtTheFirstChangedItem() throws {
        // maxNumRows stops after 3 rows: the rest are left out at one place, so an insert near the end
        // copies every cell before it.
        let p = justified {
            $0.maxNumRows = 3
            $0.targetRowHeight = 100
        }
        let section = Section(items: ratios((0..<3000).map { Double($0 % 7 + 2) / 4 }))
        let input = LayoutInput(bounds: Size(width: 1060, height: 800), parameters: .justified(p), sections: [section])
        let layout = try PreparedLayout.prepare(input)
        let batch: BatchUpdate = [.insert(ItemPath(section: 0, item: 2990), ItemSizing(aspectRatio: 1), id: nil)]
        let applied = try layout.applyingBatch(batch)
        #expect(applied.firstComputedCells == [0: 2990])
        var expected = input
        expected.sections[0].items.insert(ItemSizing(aspectRatio: 1), at: 2990)
        let full = try PreparedLayout.prepare(expected)
        #expect(applied.layout.sectionFrames == full.sectionFrames)
        #expect(applied.layout.placementCounts == full.placementCounts)
        #expect(full.placementCounts.hiddenItemCount == 3001 - placedCount(full))
    }
}

/// Cells with a non-zero height: the placed ones.
private func placedCount(_ layout: PreparedLayout) -> Int {
    cellFrames(layout).filter { ($0?.height ?? 0) > 0 }.count
}
