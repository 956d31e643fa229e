import Testing
@testable import LayoutEngine

// Each rule is worked out by hand from the LAYOUTS.md formula it guards: the expected verdict is whether
// that formula gives a negative size, and the expected path is the parameter the section took the value from.

private func input(
    width: Double = 375, contentInsets: Insets = .zero, _ parameters: LayoutParameters, sections: [Section]
) -> LayoutInput {
    LayoutInput(bounds: Size(width: width, height: 600), parameters: parameters, contentInsets: contentInsets, sections: sections)
}

/// The error `validate` throws, or nil when it accepts the input.
private func rejection(_ input: LayoutInput) -> LayoutError? {
    do {
        try input.validate()
        return nil
    } catch {
        return error
    }
}

private func changed<Value>(_ value: Value, _ change: (inout Value) -> Void) -> Value {
    var copy = value
    change(&copy)
    return copy
}

private func list(_ change: (inout ListParameters) -> Void) -> LayoutParameters { .list(changed(ListParameters(), change)) }
private func columns(_ change: (inout ColumnsParameters) -> Void) -> LayoutParameters { .columns(changed(ColumnsParameters(), change)) }
private func flow(_ change: (inout FlowParameters) -> Void) -> LayoutParameters { .flow(changed(FlowParameters(), change)) }
private func waterfall(_ change: (inout WaterfallParameters) -> Void) -> LayoutParameters { .waterfall(changed(WaterfallParameters(), change)) }
private func columnFlow(_ change: (inout ColumnFlowParameters) -> Void) -> LayoutParameters { .columnFlow(changed(ColumnFlowParameters(), change)) }
private func mosaic(_ change: (inout MosaicParameters) -> Void) -> LayoutParameters { .mosaic(changed(MosaicParameters(), change)) }

private func section(_ count: Int, parameters: LayoutParameters? = nil) -> Section {
    Section(items: ItemSizes(count: count), parameters: parameters)
}

/// Every cell frame of a prepared layout.
private func cellFrames(_ layout: PreparedLayout) -> [Rect] {
    (0..<layout.sectionCount).flatMap { s in
        (0..<layout.itemCount(inSection: s)).compactMap { layout.cell(item: $0, section: s)?.frame }
    }
}

/// Prepares an input a rule must accept and returns its cell frames, checking none is negative or non-finite.
private func preparedCells(_ input: LayoutInput) throws -> [Rect] {
    let frames = cellFrames(try PreparedLayout.prepare(input, options: .serial))
    for frame in frames {
        #expect(frame.width >= 0 && frame.height >= 0, "\(frame)")
        let isFinite = [frame.x, frame.y, frame.width, frame.height].allSatisfy { $0.isFinite }
        #expect(isFinite, "\(frame)")
    }
    return frames
}

private let wideInsets = Insets(top: 0, left: 150, bottom: 0, right: 250)

@Suite struct GeometryValidationTests {
    // MARK: contentInsets

    @Test func contentInsetsWiderThanTheBoundsAreBlamedOnContentInsets() {
        let error = rejection(input(contentInsets: wideInsets, list { _ in }, sections: [section(1)]))
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "contentInsets")
        #expect(error?.message == "contentInsets.left + right (400) exceed bounds.width (375)")
    }

    @Test func columnFlowIgnoresContentInsetsWiderThanTheBounds() {
        #expect(rejection(input(contentInsets: wideInsets, columnFlow { _ in }, sections: [section(3)])) == nil)
    }

    // MARK: list (items W - left - right wide)

    @Test func listInsetsWiderThanTheContentWidthAreRejectedAtTheSpec() {
        let error = rejection(input(list { $0.sectionInsets = wideInsets }, sections: [section(2)]))
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "spec.sectionInsets")
        #expect(error?.message == "sectionInsets.left + right (400) exceed the content width (375)")
    }

    @Test func listInsetsMeasureAgainstTheContentWidthNotTheBounds() {
        // W = 375 - 40 = 335 < 180 + 180.
        let p = list { $0.sectionInsets = Insets(left: 180, right: 180) }
        let error = rejection(input(contentInsets: Insets(left: 20, right: 20), p, sections: [section(1)]))
        #expect(error?.path == "spec.sectionInsets")
        #expect(error?.message == "sectionInsets.left + right (360) exceed the content width (335)")
    }

    @Test func listInsetsASectionOverridesAreBlamedOnThatSection() {
        let bad = list { $0.sectionInsets = wideInsets }
        let error = rejection(input(list { _ in }, sections: [section(1), section(1), section(1, parameters: bad)]))
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "sections[2].params.sectionInsets")
    }

    @Test func listInsetsASectionInheritsFromTheSpecAreBlamedOnTheSpec() {
        // The section has its own params (another itemHeight) but took sectionInsets from the spec.
        let spec = list { $0.sectionInsets = wideInsets }
        let own = list { $0.sectionInsets = wideInsets; $0.itemHeight = 20 }
        let error = rejection(input(spec, sections: [section(1, parameters: own)]))
        #expect(error?.path == "spec.sectionInsets")
    }

    @Test func listSpecInsetsNoSectionUsesAreNotChecked() {
        let spec = list { $0.sectionInsets = wideInsets }
        let own = list { $0.sectionInsets = Insets(all: 10) }
        #expect(rejection(input(spec, sections: [section(2, parameters: own)])) == nil)
        #expect(rejection(input(spec, sections: [])) == nil)
    }

    @Test func listInsetsExactlyAsWideAsTheContentGiveZeroWidthItems() throws {
        let cells = try preparedCells(input(list { $0.sectionInsets = Insets(left: 175, right: 200) }, sections: [section(2)]))
        #expect(cells.map(\.width) == [0, 0])
        #expect(cells.map(\.x) == [175, 175])
    }

    @Test func listAtZeroBoundsWidthGivesZeroWidthItems() throws {
        let cells = try preparedCells(input(width: 0, list { _ in }, sections: [section(2)]))
        #expect(cells.map(\.width) == [0, 0])
    }

    @Test func listWithContentInsetsEatingTheWholeWidthIsAccepted() throws {
        let cells = try preparedCells(input(contentInsets: Insets(left: 175, right: 200), list { _ in }, sections: [section(1)]))
        #expect(cells.map(\.width) == [0])
    }

    // MARK: columns (Wi = W - left - right; colW = round((Wi - (n-1)*columnSpacing) / n))

    @Test func columnsInsetsWiderThanTheContentWidthAreBlamedOnSectionInsets() {
        let error = rejection(input(columns { $0.sectionInsets = wideInsets }, sections: [section(3)]))
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "spec.sectionInsets")
    }

    @Test func columnsTooManyForTheSpacingAreBlamedOnColumnCount() {
        // Wi = 375 - 16 = 359; round((359 - 99 × 8) / 100) = round(-4.33) = -4.
        let error = rejection(input(columns { $0.columnCount = 100 }, sections: [section(3)]))
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "spec.columnCount")
    }

    @Test func columnsHugeColumnCountIsRejectedNotOverflowed() {
        let error = rejection(input(columns { $0.columnCount = .max }, sections: [section(1)]))
        #expect(error?.path == "spec.columnCount")
    }

    @Test func columnsSpacingASectionWidensIsBlamedOnThatSection() {
        // Spec: 2 columns, spacing 8 fit. Section 1: spacing 400 > Wi 359 → round((359 - 400) / 2) = -21.
        let own = columns { $0.columnSpacing = 400 }
        let error = rejection(input(columns { _ in }, sections: [section(1), section(1, parameters: own)]))
        #expect(error?.path == "sections[1].params.columnSpacing")
    }

    @Test func columnsCountASectionRaisesIsBlamedOnThatSection() {
        let own = columns { $0.columnCount = 100 }
        let error = rejection(input(columns { _ in }, sections: [section(1, parameters: own)]))
        #expect(error?.path == "sections[0].params.columnCount")
    }

    @Test func columnsWidthIsJudgedAfterRoundingHalfAwayFromZero() throws {
        let noInsets = Insets.zero
        // W 10, n 3, spacing 5.75: (10 - 11.5) / 3 = -0.5 → -1: rejected.
        let minusHalf = columns { $0.sectionInsets = noInsets; $0.columnCount = 3; $0.columnSpacing = 5.75 }
        #expect(rejection(input(width: 10, minusHalf, sections: [section(1)]))?.path == "spec.columnCount")
        // W 10, n 5, spacing 3: (10 - 12) / 5 = -0.4 → -0: a zero width, accepted.
        let minusTwoFifths = columns { $0.sectionInsets = noInsets; $0.columnCount = 5; $0.columnSpacing = 3 }
        let cells = try preparedCells(input(width: 10, minusTwoFifths, sections: [section(1)]))
        #expect(cells.map(\.width) == [0])
    }

    @Test func columnsAtZeroBoundsWidthWithoutInsetsOrSpacingGiveZeroWidthColumns() throws {
        let p = columns { $0.sectionInsets = .zero; $0.columnSpacing = 0; $0.columnCount = 3 }
        let cells = try preparedCells(input(width: 0, p, sections: [section(4)]))
        #expect(cells.map(\.width) == [0, 0, 0, 0])
    }

    @Test func columnsAtZeroBoundsWidthWithTheDefaultInsetsAreRejected() {
        // Wi = 0 - 8 - 8 < 0.
        #expect(rejection(input(width: 0, columns { _ in }, sections: [section(1)]))?.path == "spec.sectionInsets")
    }

    @Test func columnsSingleColumnExactlyInsideTheInsetsIsAccepted() throws {
        // W 16, insets 8 + 8: Wi = 0, colW = 0.
        let cells = try preparedCells(input(width: 16, columns { $0.columnCount = 1 }, sections: [section(2)]))
        #expect(cells.map(\.width) == [0, 0])
    }

    // MARK: flow (Wr = W - left - right)

    @Test func flowInsetsWiderThanTheContentWidthAreRejected() {
        let error = rejection(input(flow { $0.sectionInsets = wideInsets }, sections: [section(3)]))
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "spec.sectionInsets")
    }

    @Test func flowInsetsASectionOverridesAreBlamedOnThatSection() {
        let own = flow { $0.sectionInsets = wideInsets }
        let error = rejection(input(flow { _ in }, sections: [section(1), section(0, parameters: own)]))
        #expect(error?.path == "sections[1].params.sectionInsets")
    }

    @Test func flowRowsOfZeroWidthScaleItemsToNothing() throws {
        // Wr = 0: a 50×20 item is scaled by 0 / 50 to 0×0; fill leaves a zero-width row alone.
        let items = ItemSizes([ItemSizing(height: 20, width: 50), ItemSizing(height: 20, width: 50), ItemSizing(height: 30, isSpan: true)])
        let p = flow { $0.sectionInsets = Insets(left: 175, right: 200); $0.rowTransform = .fill }
        let cells = try preparedCells(input(p, sections: [Section(items: items)]))
        #expect(cells.map(\.width) == [0, 0, 0])
        #expect(cells.map(\.height) == [0, 0, 30])
    }

    @Test func flowAtZeroBoundsWidthIsAccepted() throws {
        let cells = try preparedCells(input(width: 0, flow { _ in }, sections: [section(2)]))
        #expect(cells.map(\.width) == [0, 0])
    }

    // MARK: waterfall (item width W / columns - 2 * cellPadding)

    @Test func waterfallColumnsNarrowerThanTheirPaddingAreBlamedOnColumns() {
        // 375 / 2 - 200 < 0, but one column (375 - 200) would fit: the column count is at fault.
        let error = rejection(input(waterfall { $0.cellPadding = 100 }, sections: [section(2)]))
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "spec.columns")
    }

    @Test func waterfallPaddingWiderThanTheContentIsBlamedOnCellPadding() {
        // 375 - 2 × 200 < 0: no column count helps.
        let error = rejection(input(waterfall { $0.cellPadding = 200 }, sections: [section(2)]))
        #expect(error?.path == "spec.cellPadding")
    }

    @Test func waterfallHugeColumnCountIsBlamedOnColumns() {
        let error = rejection(input(waterfall { $0.columns = .max }, sections: [section(2)]))
        #expect(error?.path == "spec.columns")
    }

    @Test func waterfallPaddingASectionRaisesIsBlamedOnThatSection() {
        let own = waterfall { $0.cellPadding = 100 }
        let error = rejection(input(waterfall { _ in }, sections: [section(1), section(1, parameters: own)]))
        #expect(error?.path == "sections[1].params.cellPadding")
    }

    @Test func waterfallColumnsExactlyTwicePaddingWideGiveZeroWidthItems() throws {
        // 48 / 4 - 2 × 6 = 0.
        let cells = try preparedCells(input(width: 48, waterfall { $0.columns = 4 }, sections: [section(4)]))
        #expect(cells.map(\.width) == [0, 0, 0, 0])
        #expect(cells.map(\.x) == [6, 18, 30, 42])
    }

    @Test func waterfallAtZeroBoundsWidthNeedsZeroPadding() throws {
        #expect(rejection(input(width: 0, waterfall { _ in }, sections: [section(1)]))?.path == "spec.cellPadding")
        let cells = try preparedCells(input(width: 0, waterfall { $0.cellPadding = 0 }, sections: [section(3)]))
        #expect(cells.map(\.width) == [0, 0, 0])
    }

    @Test func waterfallFixedColumnWidthNarrowerThanItsPaddingIsBlamedOnColumnWidth() {
        // 10 - 2 × 6 < 0.
        #expect(rejection(input(waterfall { $0.columnWidth = 10 }, sections: [section(1)]))?.path == "spec.columnWidth")
        // A section that raises the padding is blamed for it.
        let own = waterfall { $0.columnWidth = 20; $0.cellPadding = 11 }
        let spec = waterfall { $0.columnWidth = 20 }
        #expect(rejection(input(spec, sections: [section(1), section(1, parameters: own)]))?.path == "sections[1].params.cellPadding")
    }

    @Test func waterfallFixedColumnsMayReachPastTheContentWidth() throws {
        // Seed 004: columns of 150 at 16 and 200 in a content 320 wide.
        let cells = try preparedCells(input(width: 320, waterfall { $0.columnWidth = 150; $0.columnSpacing = 34; $0.cellPadding = 0; $0.sectionInsets = Insets(left: 16) }, sections: [section(2)]))
        #expect(cells.map(\.x) == [16, 200])
        #expect(cells.map(\.maxX) == [166, 350])
    }

    @Test func waterfallInsetsWiderThanTheContentAreBlamedOnSectionInsets() {
        #expect(rejection(input(waterfall { $0.sectionInsets = wideInsets }, sections: [section(1)]))?.path == "spec.sectionInsets")
    }

    @Test func waterfallSpacingThatLeavesNegativeColumnsIsBlamedOnColumnsOrTheSectionsSpacing() {
        // (375 - 2 × 200) / 3 < 0.
        #expect(rejection(input(waterfall { $0.columns = 3; $0.columnSpacing = 200 }, sections: [section(1)]))?.path == "spec.columns")
        let own = waterfall { $0.columns = 3; $0.columnSpacing = 200 }
        let spec = waterfall { $0.columns = 3 }
        #expect(rejection(input(spec, sections: [section(1, parameters: own)]))?.path == "sections[0].params.columnSpacing")
    }

    @Test func waterfallPaddingWiderThanTheInsetWidthIsBlamedOnCellPadding() {
        // One column would be 375 - 100 - 100 = 175 wide, less than 2 × 90.
        let error = rejection(input(waterfall { $0.sectionInsets = Insets(left: 100, right: 100); $0.cellPadding = 90 }, sections: [section(1)]))
        #expect(error?.path == "spec.cellPadding")
    }

    // MARK: columnFlow (avail = bounds.width - margins.left - margins.right; cellWidth = floor(avail / cols))

    @Test func columnFlowMarginsWiderThanTheBoundsAreRejected() {
        let error = rejection(input(columnFlow { $0.margins = wideInsets }, sections: [section(3)]))
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "spec.margins")
    }

    @Test func columnFlowMarginsASectionOverridesAreBlamedOnThatSection() {
        let own = columnFlow { $0.margins = wideInsets }
        let error = rejection(input(columnFlow { _ in }, sections: [section(1), section(1), section(1), section(1, parameters: own)]))
        #expect(error?.path == "sections[3].params.margins")
    }

    @Test func columnFlowMarginsExactlyAsWideAsTheBoundsGiveZeroWidthCells() throws {
        // avail 0 → cols 1, cellWidth 0, one cell per row centred at (375 - 0) / 2.
        let cells = try preparedCells(input(columnFlow { $0.margins = Insets(left: 175, right: 200) }, sections: [section(2)]))
        #expect(cells.map(\.width) == [0, 0])
        #expect(cells.map(\.x) == [187.5, 187.5])
    }

    @Test func columnFlowAtZeroBoundsWidthGivesZeroWidthCells() throws {
        let cells = try preparedCells(input(width: 0, columnFlow { _ in }, sections: [section(2)]))
        #expect(cells.map(\.width) == [0, 0])
    }

    // MARK: mosaic (second part of a cut: size - ceil(size * fraction) - spacing)

    @Test func mosaicFiftyFiftyTooNarrowForTheSpacingIsBlamedOnSpacing() {
        // 3 items: fullWidth, fiftyFifty. W 1: 1 - ceil(0.5) - 1 = -1.
        let error = rejection(input(width: 1, mosaic { _ in }, sections: [section(3)]))
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "spec.spacing")
    }

    @Test func mosaicSectionsOfFullWidthSegmentsOnlyAcceptAnyWidth() throws {
        // 2 items: two fullWidth segments, nothing is cut.
        let cells = try preparedCells(input(width: 1, mosaic { _ in }, sections: [section(2), section(0)]))
        #expect(cells.map(\.width) == [1, 1])
    }

    @Test func mosaicTwoThirdsSplitIsCheckedOnlyWhenASectionHasOne() throws {
        // W 2, spacing 1: fiftyFifty 2 - 1 - 1 = 0 (accepted); twoThirds 2 - ceil(4/3) - 1 = -1.
        let five = try preparedCells(input(width: 2, mosaic { _ in }, sections: [section(5)]))
        #expect(five[1].width == 1 && five[2].width == 0)
        let error = rejection(input(width: 2, mosaic { _ in }, sections: [section(5), section(6)]))
        #expect(error?.path == "spec.spacing")
    }

    @Test func mosaicStackedPairTooShortForTheSpacingIsBlamedOnSegmentHeight() {
        // 6 items bring twoThirdsOneThird: 1 - ceil(0.5) - 1 = -1.
        let p = mosaic { $0.segmentHeight = 1 }
        #expect(rejection(input(p, sections: [section(5)])) == nil)
        let error = rejection(input(p, sections: [section(6)]))
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "spec.segmentHeight")
    }

    @Test func mosaicStackedPairOfZeroHeightIsAccepted() throws {
        // 2 - ceil(1) - 1 = 0: the lower rect of each stack is 0 tall.
        let cells = try preparedCells(input(mosaic { $0.segmentHeight = 2 }, sections: [section(9)]))
        #expect(cells[5].height == 0 && cells[7].height == 0)
    }

    @Test func mosaicSpacingASectionRaisesIsBlamedOnThatSection() {
        // Section 1 keeps W 375 but spacing 150: its twoThirds cut 375 - 250 - 150 < 0 (its stacks too).
        let own = mosaic { $0.spacing = 150 }
        let error = rejection(input(mosaic { _ in }, sections: [section(9), section(6, parameters: own)]))
        #expect(error?.path == "sections[1].params.spacing")
    }

    @Test func mosaicWidthUnderOnePointWithoutSpacingIsBlamedOnTheWidth() {
        // spacing 0, W 0.5: 0.5 - ceil(0.25) = -0.5.
        let p = mosaic { $0.spacing = 0 }
        #expect(rejection(input(width: 0.5, p, sections: [section(3)]))?.path == "bounds.width")
        #expect(rejection(input(width: 10.5, contentInsets: Insets(left: 10), p, sections: [section(3)]))?.path == "contentInsets")
    }

    @Test func mosaicAtZeroBoundsWidthWithoutSpacingGivesZeroWidthCells() throws {
        let cells = try preparedCells(input(width: 0, mosaic { $0.spacing = 0 }, sections: [section(9)]))
        #expect(cells.count == 9)
        #expect(cells.allSatisfy { $0.width == 0 })
    }
}

@Suite struct LengthLimitTests {
    private func input(_ items: [ItemSizing], kind: LayoutKind = .list) -> LayoutInput {
        LayoutInput(bounds: Size(width: 375, height: 800), parameters: .defaults(for: kind), sections: [Section(items: ItemSizes(items))])
    }

    @Test func sizesBeyondTheLengthLimitAreRejected() {
        #expect(throws: LayoutError.self) { try input([ItemSizing(height: 1e300)]).validate() }
        #expect(throws: LayoutError.self) { try input([ItemSizing(aspectRatio: 1e-12)]).validate() }
        #expect(throws: LayoutError.self) { try input([ItemSizing(width: 2e9)], kind: .flow).validate() }
        var wide = input([])
        wide.bounds.width = 1e12
        #expect(throws: LayoutError.self) { try wide.validate() }
    }

    @Test func theExtremesOfTheAcceptedRangeGiveFiniteFrames() throws {
        let items = [ItemSizing(height: LayoutInput.maxLength), ItemSizing(aspectRatio: LayoutInput.aspectRatioRange.lowerBound), ItemSizing(height: LayoutInput.maxLength, aspectRatio: LayoutInput.aspectRatioRange.upperBound)]
        for kind in LayoutKind.allCases {
            let layout = try PreparedLayout.prepare(input(items, kind: kind))
            #expect(layout.contentSize.height.isFinite, "\(kind)")
            layout.forEachElement { element in
                #expect(element.frame.x.isFinite && element.frame.y.isFinite && element.frame.width.isFinite && element.frame.height.isFinite, "\(kind)")
            }
        }
    }
}
