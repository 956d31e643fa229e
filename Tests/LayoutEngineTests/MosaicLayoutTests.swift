import Testing
@testable import LayoutEngine

/// Mosaic (LAYOUTS.md `mosaic`, seed 000); expectations worked out by hand from the spec, or from a
/// transcription of the seed's sequential loop.
@Suite struct MosaicLayoutTests {
    @Test("the spec's check: 10 items at width 375")
    func checkExample() throws {
        let layout = try prepare(width: 375, sections: [Section(count: 10)])
        #expect(cellFrames(layout) == [
            Rect(x: 0, y: 1, width: 375, height: 200),
            Rect(x: 0, y: 202, width: 188, height: 200), Rect(x: 189, y: 202, width: 186, height: 200),
            Rect(x: 0, y: 403, width: 250, height: 200), Rect(x: 251, y: 403, width: 124, height: 100), Rect(x: 251, y: 504, width: 124, height: 99),
            Rect(x: 0, y: 604, width: 125, height: 100), Rect(x: 0, y: 705, width: 125, height: 99), Rect(x: 126, y: 604, width: 249, height: 200),
            Rect(x: 0, y: 805, width: 375, height: 200),
        ])
        #expect(layout.contentSize == Size(width: 375, height: 1005))
    }

    @Test("segment styles follow the cycle, with 1 left → fullWidth and 2 left → fiftyFifty")
    func styleSequence() throws {
        // Items per segment, read off the seed's loop by hand.
        let expected: [Int: [Int]] = [
            1: [1], 2: [1, 1], 3: [1, 2], 4: [1, 2, 1], 5: [1, 2, 2], 6: [1, 2, 3], 7: [1, 2, 3, 1],
            8: [1, 2, 3, 2], 9: [1, 2, 3, 3], 11: [1, 2, 3, 3, 2], 12: [1, 2, 3, 3, 2, 1],
        ]
        for (count, sizes) in expected {
            let layout = try prepare(width: 300, sections: [Section(count: count)])
            // Segments are 201 apart (200 + spacing 1); an item's segment is its row of 201.
            var perSegment: [Int: Int] = [:]
            for frame in cellFrames(layout) { perSegment[Int(((frame.minY - 1) / 201).rounded(.down)), default: 0] += 1 }
            #expect(perSegment.keys.sorted().map { perSegment[$0] ?? 0 } == sizes, "count \(count)")
        }
    }

    @Test("frames match the seed's sequential loop for every count up to 100")
    func matchesSeedLoop() throws {
        for (width, parameters) in [(375.0, MosaicParameters()), (1024.0, Self.parameters(segmentHeight: 150, spacing: 4)), (101.0, Self.parameters(segmentHeight: 31, spacing: 0))] {
            for count in 0...100 {
                let layout = try prepare(width: width, parameters: parameters, sections: [Section(count: count)])
                #expect(cellFrames(layout) == SeedMosaic.frames(count: count, width: width, parameters: parameters), "width \(width) count \(count)")
            }
        }
    }

    @Test("header on top, first segment `spacing` below it, footer under the last cell")
    func headerAndFooter() throws {
        let layout = try prepare(width: 100, sections: [Section(count: 2, headerHeight: 50, footerHeight: 30)])
        #expect(layout.supplementaryElement(.header, section: 0)?.frame == Rect(x: 0, y: 0, width: 100, height: 50))
        #expect(cellFrames(layout) == [Rect(x: 0, y: 51, width: 100, height: 200), Rect(x: 0, y: 252, width: 100, height: 200)])
        #expect(layout.supplementaryElement(.footer, section: 0)?.frame == Rect(x: 0, y: 452, width: 100, height: 30))
        #expect(layout.contentSize.height == 482)
    }

    @Test("sections stack; empty sections take their header and footer only")
    func severalSections() throws {
        var p = MosaicParameters()
        p.headerHeight = 10 // the spec's header, overridden to 0 by the second section's own field
        let layout = try prepare(width: 200, parameters: p, sections: [
            Section(count: 3),
            Section(count: 0, headerHeight: 0, footerHeight: 0),
            Section(count: 0, footerHeight: 7),
            Section(count: 1, footerHeight: 0),
        ])
        // Section 0: header 0..10, full (0,11,200,200), fifty (0,212,100,200) (101,212,99,200); ends 412.
        #expect(layout.sectionTops == [0, 412, 412, 429])
        #expect(cellFrames(layout, section: 0) == [
            Rect(x: 0, y: 11, width: 200, height: 200),
            Rect(x: 0, y: 212, width: 100, height: 200), Rect(x: 101, y: 212, width: 99, height: 200),
        ])
        // Section 2: header 412..422, footer right under it 422..429.
        #expect(layout.supplementaryElement(.footer, section: 2)?.frame == Rect(x: 0, y: 422, width: 200, height: 7))
        // Section 3: header 429..439, one full segment 440..640.
        #expect(cellFrames(layout, section: 3) == [Rect(x: 0, y: 440, width: 200, height: 200)])
        #expect(layout.contentSize == Size(width: 200, height: 640))
    }

    @Test("contentInsets narrow W and move nothing")
    func contentInsets() throws {
        let input = LayoutInput(bounds: Size(width: 375, height: 600), parameters: .mosaic(MosaicParameters()),
                                contentInsets: Insets(top: 20, left: 10, bottom: 30, right: 15), sections: [Section(count: 3)])
        let layout = try PreparedLayout.prepare(input)
        // W = 350: halves 175 | 1 | 174.
        #expect(cellFrames(layout) == [
            Rect(x: 0, y: 1, width: 350, height: 200),
            Rect(x: 0, y: 202, width: 175, height: 200), Rect(x: 176, y: 202, width: 174, height: 200),
        ])
        #expect(layout.contentSize == Size(width: 375, height: 402))
    }

    @Test("a section's own parameters replace the spec's for that section")
    func perSectionParameters() throws {
        let overrides = Self.parameters(segmentHeight: 100, spacing: 4)
        let layout = try prepare(width: 300, sections: [Section(count: 1), Section(items: ItemSizes(count: 3), parameters: .mosaic(overrides))])
        #expect(layout.sectionTops == [0, 201])
        // Section 1 (local): full (0,4,300,100); fifty: ceil(150) = 150 | 4 | 146 at y 108.
        #expect(cellFrames(layout, section: 1) == [
            Rect(x: 0, y: 205, width: 300, height: 100),
            Rect(x: 0, y: 309, width: 150, height: 100), Rect(x: 154, y: 309, width: 146, height: 100),
        ])
        #expect(layout.contentSize.height == 409)
    }

    @Test("item sizing does not change a mosaic")
    func sizingIgnored() throws {
        let sized = ItemSizes([ItemSizing(height: 40), ItemSizing(aspectRatio: 2), ItemSizing(height: 5, aspectRatio: 0.5), .unspecified])
        let plain = try prepare(width: 320, sections: [Section(count: 4)])
        let withSizing = try prepare(width: 320, sections: [Section(items: sized)])
        #expect(cellFrames(withSizing) == cellFrames(plain))
        #expect(withSizing.contentSize == plain.contentSize)
    }

    @Test("non-integral width: the first part is ceiled, the second takes the rest")
    func fractionalWidth() throws {
        let layout = try prepare(width: 100.5, sections: [Section(count: 6)])
        // halves: ceil(50.25) = 51, second at 52, 100.5 - 51 - 1 = 48.5.
        // ⅔: ceil(67) = 67, second at 68, 32.5 wide; stack: 100 | 1 | 99.
        #expect(cellFrames(layout)[1...] == [
            Rect(x: 0, y: 202, width: 51, height: 200), Rect(x: 52, y: 202, width: 48.5, height: 200),
            Rect(x: 0, y: 403, width: 67, height: 200), Rect(x: 68, y: 403, width: 32.5, height: 100), Rect(x: 68, y: 504, width: 32.5, height: 99),
        ])
    }

    @Test("section backgrounds cover header to footer, x 0…W")
    func sectionBackgrounds() throws {
        let input = LayoutInput(bounds: Size(width: 300, height: 600), parameters: .mosaic(MosaicParameters()),
                                contentInsets: Insets(left: 20, right: 30), sectionBackgrounds: true,
                                sections: [Section(count: 1, headerHeight: 20, footerHeight: 10), Section(count: 0)])
        let layout = try PreparedLayout.prepare(input)
        // Section 0: header 0..20, cell 21..221, footer 221..231.
        #expect(layout.supplementaryElement(.decoration, section: 0)?.frame == Rect(x: 0, y: 0, width: 250, height: 231))
        #expect(layout.supplementaryElement(.decoration, section: 1)?.frame == Rect(x: 0, y: 231, width: 250, height: 0))
        #expect(layout.contentSize.height == 231)
    }

    // MARK: Helpers

    private static func parameters(segmentHeight: Double, spacing: Double) -> MosaicParameters {
        var p = MosaicParameters()
        p.segmentHeight = segmentHeight
        p.spacing = spacing
        return p
    }

    private func prepare(width: Double, parameters: MosaicParameters = MosaicParameters(), sections: [Section]) throws -> PreparedLayout {
        try PreparedLayout.prepare(LayoutInput(bounds: Size(width: width, height: 800), parameters: .mosaic(parameters), sections: sections))
    }

    private func cellFrames(_ layout: PreparedLayout, section: Int = 0) -> [Rect] {
        (0..<layout.itemCount(inSection: section)).compactMap { layout.cell(item: $0, section: section)?.frame }
    }
}

/// Seed 000's `prepare()` transcribed: segments walked one after another from `lastFrame`, styles
/// switched after each segment. An independent model of what the closed forms must reproduce.
private enum SeedMosaic {
    enum Style { case fullWidth, fiftyFifty, twoThirdsOneThird, oneThirdTwoThirds }

    static func frames(count: Int, width: Double, parameters p: MosaicParameters) -> [Rect] {
        var frames: [Rect] = []
        var style = Style.fullWidth
        var lastMaxY = 0.0
        while frames.count < count {
            let segment = Rect(x: 0, y: lastMaxY + p.spacing, width: width, height: p.segmentHeight)
            let rects: [Rect]
            switch style {
            case .fullWidth:
                rects = [segment]
            case .fiftyFifty:
                let (left, right) = divide(segment, fraction: 0.5, vertically: false, spacing: p.spacing)
                rects = [left, right]
            case .twoThirdsOneThird:
                let (left, right) = divide(segment, fraction: 2.0 / 3.0, vertically: false, spacing: p.spacing)
                let (top, bottom) = divide(right, fraction: 0.5, vertically: true, spacing: p.spacing)
                rects = [left, top, bottom]
            case .oneThirdTwoThirds:
                let (left, right) = divide(segment, fraction: 1.0 / 3.0, vertically: false, spacing: p.spacing)
                let (top, bottom) = divide(left, fraction: 0.5, vertically: true, spacing: p.spacing)
                rects = [top, bottom, right]
            }
            for rect in rects {
                frames.append(rect)
                lastMaxY = rect.maxY
            }
            switch count - frames.count {
            case 1: style = .fullWidth
            case 2: style = .fiftyFifty
            default:
                switch style {
                case .fullWidth: style = .fiftyFifty
                case .fiftyFifty: style = .twoThirdsOneThird
                case .twoThirdsOneThird: style = .oneThirdTwoThirds
                case .oneThirdTwoThirds: style = .fiftyFifty
                }
            }
        }
        return frames
    }

    /// `dividedIntegral(fraction:from:)` from minX or minY.
    static func divide(_ rect: Rect, fraction: Double, vertically: Bool, spacing: Double) -> (Rect, Rect) {
        if vertically {
            let first = (rect.height * fraction).rounded(.up)
            return (Rect(x: rect.x, y: rect.y, width: rect.width, height: first),
                    Rect(x: rect.x, y: rect.y + first + spacing, width: rect.width, height: rect.height - first - spacing))
        }
        let first = (rect.width * fraction).rounded(.up)
        return (Rect(x: rect.x, y: rect.y, width: first, height: rect.height),
                Rect(x: rect.x + first + spacing, y: rect.y, width: rect.width - first - spacing, height: rect.height))
    }
}
