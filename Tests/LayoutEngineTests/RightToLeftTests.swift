import Testing
@testable import LayoutEngine

/// Right to left (LAYOUTS.md, Layout direction): for every layout, the mirror image of left to right bit
/// for bit, with exact rect queries, and batches, diffs and parallel runs identical to a full serial
/// prepare, as left to right. The hand-worked fixtures run in both directions in `LayoutFixtureTests`.
@Suite struct RightToLeftTests {
    typealias Model = UpdateModel

    static let parallel = ResumedLayoutTests.parallel
    static let serial = ResumedLayoutTests.serial

    static func rightToLeft(_ input: LayoutInput) -> LayoutInput {
        var input = input
        input.layoutDirection = .rightToLeft
        return input
    }

    /// The elements of `layout` mirrored by the documented rule, restated: x becomes `M - (x + width)`
    /// with `M` = `W`, or `bounds.width` for columnFlow.
    static func mirroredBits(of layout: PreparedLayout) -> [Model.ElementBits] {
        let input = layout.input
        let m = input.parameters.kind == .columnFlow
            ? input.bounds.width : input.bounds.width - input.contentInsets.left - input.contentInsets.right
        var bits: [Model.ElementBits] = []
        layout.forEachElement { element in
            let f = element.frame
            bits.append(Model.ElementBits(
                kind: element.kind, section: element.section, item: element.item,
                x: (m - (f.x + f.width)).bitPattern, y: f.y.bitPattern, width: f.width.bitPattern, height: f.height.bitPattern
            ))
        }
        return bits
    }

    /// `rtl` is `ltr` mirrored, element by element; content size and section tops are the same bits.
    static func expectMirrored(_ rtl: PreparedLayout, of ltr: PreparedLayout, _ comment: Comment) {
        let (elements, size) = Model.bits(of: rtl)
        let (_, ltrSize) = Model.bits(of: ltr)
        let expected = mirroredBits(of: ltr)
        let firstDifference = zip(elements, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(elements.count == expected.count && firstDifference == nil, "\(comment): first difference at element \(String(describing: firstDifference))")
        #expect(size == ltrSize && rtl.sectionTops.map(\.bitPattern) == ltr.sectionTops.map(\.bitPattern), comment)
    }

    @Test(arguments: LayoutKind.allCases)
    func rightToLeftIsTheMirroredLeftToRight(kind: LayoutKind) throws {
        var random = SeededRandom(seed: 0x2710_0000 + UInt64(kind.rawValue.count))
        for n in 0..<20 {
            let input = RandomInputs.input(kind, maxItemsPerSection: 120, using: &random)
            #expect(input.layoutDirection == .leftToRight)
            for (o, options) in [PrepareOptions(), Self.parallel].enumerated() {
                let ltr = try PreparedLayout.prepare(input, options: options)
                let rtl = try PreparedLayout.prepare(Self.rightToLeft(input), options: options)
                Self.expectMirrored(rtl, of: ltr, "\(kind), input \(n), options \(o)")
            }
        }
    }

    @Test(arguments: LayoutKind.allCases)
    func rectQueriesMatchTheScan(kind: LayoutKind) throws {
        var random = SeededRandom(seed: 0x2711_0000 + UInt64(kind.rawValue.count))
        for _ in 0..<10 {
            let layout = try PreparedLayout.prepare(Self.rightToLeft(RandomInputs.input(kind, using: &random)))
            var elements: [LayoutElement] = []
            layout.forEachElement { elements.append($0) }
            for _ in 0..<500 {
                let rect = PropertyTests.randomRect(near: elements, in: layout.contentSize, using: &random)
                let found = layout.elements(in: rect)
                let expected = layout.elementsByScanning(in: rect)
                if found != expected {
                    Issue.record("\(kind): elements(in: \(rect)) returned \(found.count) elements, the scan \(expected.count)")
                    return
                }
            }
        }
    }

    @Test(arguments: LayoutKind.allCases)
    func parallelIsIdenticalToSerial(kind: LayoutKind) throws {
        var random = SeededRandom(seed: 0x2712_0000 + UInt64(kind.rawValue.count))
        for n in 0..<10 {
            let input = Self.rightToLeft(RandomInputs.input(kind, maxItemsPerSection: 200, using: &random))
            let parallel = try PreparedLayout.prepare(input, options: Self.parallel)
            let serial = try PreparedLayout.prepare(input, options: Self.serial)
            ResumedLayoutTests.expectIdentical(parallel, serial, "\(kind), input \(n)")
        }
    }

    @Test(arguments: LayoutKind.allCases)
    func batchesAndDiffsAreIdenticalToAFullPrepare(kind: LayoutKind) throws {
        for seed in UInt64(0)..<60 {
            var generator = Model.Generator(seed: seed &* 131 &+ UInt64(kind.rawValue.count), kind: kind)
            var sections = generator.sections()
            let input = Self.rightToLeft(generator.input(sections))
            var layout = try PreparedLayout.prepare(input, options: .serial)
            for step in 0..<3 {
                let (batch, expected) = generator.batch(for: sections)
                layout = try layout.applying(batch, options: .serial).layout
                sections = expected
                let full = try IncrementalLayoutTests.fullPrepare(of: input, sections: expected)
                #expect(layout.input.layoutDirection == .rightToLeft)
                ResumedLayoutTests.expectIdentical(layout, full, "seed \(seed), step \(step)")
            }
            // A diff back to sections with ids everywhere.
            var new = generator.batch(for: sections).expected
            for s in new.indices where !new[s].hasIds {
                new[s].hasIds = true
                for i in new[s].items.indices { new[s].items[i].id = generator.id() }
            }
            let diffed = try layout.applyingDiff(to: new.map(\.section), options: .serial).layout
            ResumedLayoutTests.expectIdentical(diffed, try IncrementalLayoutTests.fullPrepare(of: input, sections: new), "seed \(seed), diff")
        }
    }

    /// Large sections resumed part way through: the kept cells are copied from the mirrored layout and
    /// only the computed ones mirrored, which must give a full right-to-left prepare's bits, index included.
    @Test(arguments: LayoutKind.allCases)
    func resumedSectionsAreIdenticalToAFullPrepare(kind: LayoutKind) throws {
        var resumedPartWay = false
        for seed in UInt64(0)..<12 {
            var random = SeededRandom(seed: seed &* 7919 &+ UInt64(kind.rawValue.count))
            var input = Self.rightToLeft(LocalEdits.input(kind, using: &random))
            let options = [Self.parallel, Self.serial, .serial][Int(seed % 3)]
            var layout = try PreparedLayout.prepare(input, options: options)
            for step in 0..<3 {
                let (batch, _) = LocalEdits.batch(for: input.sections, kind: kind, using: &random)
                let expected = ResumedLayoutTests.expectedSections(batch, from: input)
                let applied = try layout.applyingBatch(batch, options: options)
                resumedPartWay = resumedPartWay || applied.sections.values.contains { $0.firstComputedCell > 0 }
                layout = applied.layout
                input.sections = expected
                ResumedLayoutTests.expectIdentical(layout, try PreparedLayout.prepare(input, options: options), "seed \(seed), step \(step)")
            }
        }
        // Mosaic and columnFlow compute every cell again; the others must have copied a kept prefix.
        #expect(resumedPartWay == ![.mosaic, .columnFlow].contains(kind))
    }

    @Test func headersFootersAndBackgroundsAreMirroredToo() throws {
        var list = ListParameters()
        list.sectionInsets = Insets(top: 0, left: 10, bottom: 0, right: 30)
        list.insetSupplementaryViews = true
        list.headerHeight = 20
        list.footerHeight = 5
        let input = LayoutInput(
            bounds: Size(width: 200, height: 400), parameters: .list(list), contentInsets: Insets(top: 0, left: 0, bottom: 0, right: 40),
            sectionBackgrounds: true, layoutDirection: .rightToLeft, sections: [Section(count: 1)]
        )
        // W = 160; left to right the header, cell and footer are at x 10, 120 wide: mirrored, x = 160 - 130 = 30.
        let layout = try PreparedLayout.prepare(input)
        var elements: [LayoutElement] = []
        layout.forEachElement { elements.append($0) }
        #expect(elements.map(\.frame) == [
            Rect(x: 30, y: 0, width: 120, height: 20),
            Rect(x: 30, y: 20, width: 120, height: 36),
            Rect(x: 30, y: 56, width: 120, height: 5),
            Rect(x: 0, y: 0, width: 160, height: 61),
        ])
        #expect(layout.elements(in: Rect(x: 0, y: 0, width: 30, height: 100)).map(\.kind) == [.decoration])
    }
}
