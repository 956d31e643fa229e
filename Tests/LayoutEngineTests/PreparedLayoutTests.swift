import Testing
@testable import LayoutEngine

/// What a prepared layout answers: lookups, layout order, invalidation, and the input errors it refuses.
@Suite struct PreparedLayoutTests {
    /// Mosaic at W 100 with backgrounds: section 0 header 10, two cells, footer 5; section 1 empty, nothing
    /// else; section 2 one cell and a footer 3.
    ///
    /// Section 0: header 0..10, cell (0,11,100,200), cell (0,212,100,200), footer 412..417 → ends 417.
    /// Section 1: ends where it starts (417). Section 2: cell (0,418,100,200), footer 618..621.
    private let input = LayoutInput(
        bounds: Size(width: 100, height: 500),
        parameters: .mosaic(MosaicParameters()),
        sectionBackgrounds: true,
        sections: [Section(count: 2, headerHeight: 10, footerHeight: 5), Section(count: 0), Section(count: 1, footerHeight: 3)]
    )

    @Test("cell(item:section:) answers in content coordinates and nil out of range")
    func cellLookup() throws {
        let layout = try PreparedLayout.prepare(input)
        #expect(layout.cell(item: 1, section: 0) == LayoutElement(kind: .cell, section: 0, item: 1, frame: Rect(x: 0, y: 212, width: 100, height: 200)))
        #expect(layout.cell(item: 0, section: 2)?.frame == Rect(x: 0, y: 418, width: 100, height: 200))
        #expect(layout.cell(item: 2, section: 0) == nil)
        #expect(layout.cell(item: -1, section: 0) == nil)
        #expect(layout.cell(item: 0, section: 1) == nil)
        #expect(layout.cell(item: 0, section: 3) == nil)
        #expect(layout.cell(item: 0, section: -1) == nil)
    }

    @Test("supplementaryElement finds headers, footers and backgrounds, item 0, and nil where there is none")
    func supplementaryLookup() throws {
        let layout = try PreparedLayout.prepare(input)
        #expect(layout.supplementaryElement(.header, section: 0) == LayoutElement(kind: .header, section: 0, item: 0, frame: Rect(x: 0, y: 0, width: 100, height: 10)))
        #expect(layout.supplementaryElement(.footer, section: 2) == LayoutElement(kind: .footer, section: 2, item: 0, frame: Rect(x: 0, y: 618, width: 100, height: 3)))
        let background = layout.supplementaryElement(.decoration, section: 0)
        #expect(background?.frame == Rect(x: 0, y: 0, width: 100, height: 417))
        #expect(background?.zIndex == -1)
        #expect(background?.decorationKind == "sectionBackground")
        #expect(layout.supplementaryElement(.decoration, section: 1)?.frame == Rect(x: 0, y: 417, width: 100, height: 0))
        #expect(layout.supplementaryElement(.header, section: 2) == nil)
        #expect(layout.supplementaryElement(.cell, section: 0) == nil)
        #expect(layout.supplementaryElement(.header, section: 3) == nil)

        var plain = input
        plain.sectionBackgrounds = false
        #expect(try PreparedLayout.prepare(plain).supplementaryElement(.decoration, section: 0) == nil)
    }

    @Test("elements come in layout order: per section header, cells, footer, decoration")
    func layoutOrder() throws {
        let layout = try PreparedLayout.prepare(input)
        var order: [String] = []
        layout.forEachElement { order.append("\($0.kind.name) \($0.section).\($0.item)") }
        #expect(order == [
            "header 0.0", "cell 0.0", "cell 0.1", "footer 0.0", "decoration 0.0",
            "decoration 1.0",
            "cell 2.0", "footer 2.0", "decoration 2.0",
        ])
        #expect(layout.elementCount == 9)
        #expect(layout.contentSize == Size(width: 100, height: 621))
        // A rect query answers in the same order.
        var all: [LayoutElement] = []
        layout.forEachElement { all.append($0) }
        #expect(layout.elements(in: Rect(x: -1, y: -1, width: 102, height: 700)) == all)
    }

    @Test("rect queries count positive-area overlap only")
    func touchingEdges() throws {
        let layout = try PreparedLayout.prepare(input)
        // y 212 is where cell 0.1 starts and cell 0.0 ended 1pt above (211): a band 211..212 hits only
        // the gap, so only section 0's background.
        let gap = layout.elements(in: Rect(x: 0, y: 211, width: 100, height: 1)).map(\.kind)
        #expect(gap == [.decoration])
        // A zero-height line inside cell 0.0 still crosses it (and the background).
        let line = layout.elements(in: Rect(x: 0, y: 100, width: 50, height: 0)).map { "\($0.kind.name) \($0.item)" }
        #expect(line == ["cell 0", "decoration 0"])
    }

    @Test("only a size change invalidates")
    func invalidation() throws {
        let layout = try PreparedLayout.prepare(input)
        #expect(!layout.isInvalidated(byBoundsChangeTo: Size(width: 100, height: 500)))
        #expect(layout.isInvalidated(byBoundsChangeTo: Size(width: 101, height: 500)))
        #expect(layout.isInvalidated(byBoundsChangeTo: Size(width: 100, height: 499)))
    }

    @Test("no sections: content height 0")
    func noSections() throws {
        let layout = try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 320, height: 480), parameters: .waterfall(WaterfallParameters()), sections: []))
        #expect(layout.contentSize == Size(width: 320, height: 0))
        #expect(layout.elementCount == 0)
        #expect(layout.elements(in: Rect(x: 0, y: 0, width: 320, height: 480)).isEmpty)
    }

    @Test("every field of the first item survives into the input")
    func firstItemSizing() {
        let items = ItemSizes([ItemSizing(height: 20, aspectRatio: 2, width: 30, isSpan: true), .unspecified])
        #expect(items[0] == ItemSizing(height: 20, aspectRatio: 2, width: 30, isSpan: true))
        #expect(items[1] == .unspecified)
        #expect(items.count == 2)
    }

    // MARK: Validation

    @Test("a negative item height is refused at its path")
    func negativeItemHeight() {
        var items = ItemSizes(count: 5)
        items[3] = ItemSizing(height: -1)
        let error = error(preparing: LayoutInput(bounds: Size(width: 100, height: 100), parameters: .waterfall(WaterfallParameters()),
                                                 sections: [Section(count: 2), Section(items: items)]))
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "sections[1].items[3].height")
    }

    @Test("a non-positive aspect ratio is refused at its path")
    func zeroAspectRatio() {
        let items = ItemSizes([.unspecified, ItemSizing(aspectRatio: 0)])
        let error = error(preparing: LayoutInput(bounds: Size(width: 100, height: 100), parameters: .mosaic(MosaicParameters()), sections: [Section(items: items)]))
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "sections[0].items[1].aspectRatio")
    }

    @Test("an infinite or out-of-range item value is refused at the first item that has one, wherever it sits",
          arguments: [5, 6], [0, 1, 3, 4])
    func firstBadItemValue(count: Int, position: Int) {
        // Per column: a value that is fine, then the bad values. NaN items (unset) are fine everywhere.
        let cases: [(field: String, good: Double, bad: [Double])] = [
            ("height", 0, [-1, -.infinity, .infinity]),
            ("aspectRatio", 2, [0, -3, -.infinity, .infinity]),
            ("width", 0, [-0.5, -.infinity, .infinity]),
        ]
        for (field, good, badValues) in cases {
            for bad in badValues {
                var column = (0..<count).map { $0 % 2 == 0 ? good : Double.nan }
                column[position] = bad
                // A later bad item must not be the one reported.
                if position + 1 < count { column[count - 1] = bad }
                let items: ItemSizes?
                switch field {
                case "height": items = ItemSizes(count: count, heights: column)
                case "aspectRatio": items = ItemSizes(count: count, aspectRatios: column)
                default: items = ItemSizes(count: count, widths: column)
                }
                guard let items else {
                    Issue.record("column of \(column.count) for \(count) items")
                    continue
                }
                let error = error(preparing: LayoutInput(bounds: Size(width: 100, height: 100), parameters: .list(ListParameters()),
                                                         sections: [Section(count: 1), Section(items: items)]))
                #expect(error?.code == .invalidRequest)
                #expect(error?.path == "sections[1].items[\(position)].\(field)", "\(field) \(bad) at \(position) of \(count)")
            }
        }
    }

    @Test("columns of good values, or only unset ones, pass")
    func goodItemValues() {
        let all = ItemSizes(count: 5, heights: [0, 1e9, .nan, 3, -0.0], aspectRatios: [1e-9, .nan, 2, 1e9, 0.5], widths: [.nan, 0, 1, 2, 3])
        let unset = ItemSizes(count: 3, heights: [.nan, .nan, .nan], aspectRatios: [.nan, .nan, .nan], widths: [.nan, .nan, .nan])
        for items in [all, unset] {
            #expect(error(preparing: LayoutInput(bounds: Size(width: 100, height: 100), parameters: .list(ListParameters()),
                                                 sections: [Section(items: items ?? ItemSizes(count: 0))])) == nil)
        }
        #expect(all != nil && unset != nil)
    }

    @Test("a NaN parameter is refused, in the spec or in a section's parameters")
    func nanParameter() {
        var p = MosaicParameters()
        p.spacing = .nan
        let inSpec = error(preparing: LayoutInput(bounds: Size(width: 100, height: 100), parameters: .mosaic(p), sections: [Section(count: 1)]))
        #expect(inSpec?.code == .invalidRequest)
        #expect(inSpec?.path == "spec.spacing")

        var q = ColumnFlowParameters()
        q.cellHeight = .nan
        let inSection = error(preparing: LayoutInput(bounds: Size(width: 100, height: 100), parameters: .columnFlow(ColumnFlowParameters()),
                                                     sections: [Section(count: 1), Section(items: ItemSizes(count: 1), parameters: .columnFlow(q))]))
        #expect(inSection?.code == .invalidRequest)
        #expect(inSection?.path == "sections[1].params.cellHeight")
    }

    @Test("waterfall with 0 columns is refused")
    func zeroColumns() {
        var p = WaterfallParameters()
        p.columns = 0
        let error = error(preparing: LayoutInput(bounds: Size(width: 100, height: 100), parameters: .waterfall(p), sections: []))
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "spec.columns")
    }

    @Test("section parameters of another layout kind are refused")
    func mismatchedSectionParameters() {
        let error = error(preparing: LayoutInput(bounds: Size(width: 100, height: 100), parameters: .mosaic(MosaicParameters()),
                                                 sections: [Section(items: ItemSizes(count: 1), parameters: .waterfall(WaterfallParameters()))]))
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "sections[0].params")
    }

    @Test("a negative header height is refused")
    func negativeHeader() {
        let error = error(preparing: LayoutInput(bounds: Size(width: 100, height: 100), parameters: .mosaic(MosaicParameters()),
                                                 sections: [Section(count: 1), Section(count: 1, headerHeight: -2)]))
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "sections[1].header")
    }

    @Test("contentInsets wider than the bounds are refused, except by columnFlow, which ignores them")
    func negativeContentWidth() throws {
        let insets = Insets(left: 60, right: 60)
        let mosaic = error(preparing: LayoutInput(bounds: Size(width: 100, height: 100), parameters: .mosaic(MosaicParameters()), contentInsets: insets, sections: []))
        #expect(mosaic?.code == .invalidRequest)
        #expect(mosaic?.path == "contentInsets")
        let columnFlow = try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 100, height: 100), parameters: .columnFlow(ColumnFlowParameters()),
                                                                contentInsets: insets, sections: [Section(count: 1)]))
        #expect(columnFlow.cell(item: 0, section: 0)?.frame == Rect(x: 0, y: 10, width: 100, height: 70))
    }

    @Test("more items or sections than the limits allow are too_large")
    func limits() {
        let tooManyItems = error(preparing: LayoutInput(bounds: Size(width: 100, height: 100), parameters: .list(ListParameters()),
                                                        sections: [Section(count: 6), Section(count: 5)]),
                                 limits: InputLimits(maxItems: 10))
        #expect(tooManyItems?.code == .tooLarge)
        #expect(tooManyItems?.path == "sections[1].count")
        let tooManySections = error(preparing: LayoutInput(bounds: Size(width: 100, height: 100), parameters: .list(ListParameters()),
                                                           sections: [Section(count: 1), Section(count: 1), Section(count: 1)]),
                                    limits: InputLimits(maxSections: 2))
        #expect(tooManySections?.code == .tooLarge)
        #expect(tooManySections?.path == "sections")
        #expect(error(preparing: LayoutInput(bounds: Size(width: 100, height: 100), parameters: .list(ListParameters()),
                                             sections: [Section(count: 6), Section(count: 4)]),
                      limits: InputLimits(maxItems: 10)) == nil)
    }

    // MARK: Helpers

    /// The error `prepare` throws, or nil when it succeeds.
    private func error(preparing input: LayoutInput, limits: InputLimits = InputLimits()) -> LayoutError? {
        do {
            _ = try PreparedLayout.prepare(input, options: PrepareOptions(limits: limits))
            return nil
        } catch {
            return error
        }
    }
}
