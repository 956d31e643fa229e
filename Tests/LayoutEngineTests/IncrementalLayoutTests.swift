import Testing
@testable import LayoutEngine

/// `applying` lays out only the sections a batch changed; the result must be bit-identical to a full
/// prepare of the new input (computed here from the naive model's sections, not the engine's).
@Suite struct IncrementalLayoutTests {
    typealias Model = UpdateModel

    static func fullPrepare(of input: LayoutInput, sections: [Model.SectionModel], options: PrepareOptions = .serial) throws -> PreparedLayout {
        var newInput = input
        newInput.sections = sections.map(\.section)
        return try PreparedLayout.prepare(newInput, options: options)
    }

    @Test(arguments: LayoutKind.allCases)
    func applyingABatchEqualsAFullPrepareOfTheNewInput(kind: LayoutKind) throws {
        for seed in UInt64(0)..<150 {
            var generator = Model.Generator(seed: seed &* 31 &+ UInt64(kind.rawValue.count), kind: kind)
            let old = generator.sections()
            let input = generator.input(old)
            let layout = try PreparedLayout.prepare(input, options: .serial)
            let (batch, expected) = generator.batch(for: old)
            let applied = try layout.applying(batch, options: .serial).layout
            #expect(Model.model(applied.input.sections) == expected, "seed \(seed)")
            #expect(Model.isIdentical(applied, try Self.fullPrepare(of: input, sections: expected)), "seed \(seed)")
        }
    }

    @Test(arguments: LayoutKind.allCases)
    func chainedBatchesStayIdenticalToAFullPrepare(kind: LayoutKind) throws {
        for seed in UInt64(500)..<530 {
            var generator = Model.Generator(seed: seed, kind: kind)
            var sections = generator.sections()
            let input = generator.input(sections)
            var layout = try PreparedLayout.prepare(input, options: .serial)
            for step in 0..<6 {
                let (batch, expected) = generator.batch(for: sections)
                layout = try layout.applying(batch, options: .serial).layout
                sections = expected
                #expect(Model.isIdentical(layout, try Self.fullPrepare(of: input, sections: expected)), "seed \(seed), step \(step)")
            }
        }
    }

    @Test(arguments: LayoutKind.allCases)
    func applyingADiffEqualsAFullPrepareOfTheNewSections(kind: LayoutKind) throws {
        for seed in UInt64(900)..<960 {
            var generator = Model.Generator(seed: seed, kind: kind)
            let old = generator.sections()
            let input = generator.input(old)
            let layout = try PreparedLayout.prepare(input, options: .serial)
            // Diff needs ids everywhere: take the expected result of a random batch and give it ids.
            var new = generator.batch(for: old).expected
            for s in new.indices where !new[s].hasIds {
                new[s].hasIds = true
                for i in new[s].items.indices { new[s].items[i].id = generator.id() }
            }
            let applied = try layout.applyingDiff(to: new.map(\.section), options: .serial)
            #expect(Model.model(applied.layout.input.sections).map(\.ignoringIdsWhenEmpty) == new.map(\.ignoringIdsWhenEmpty), "seed \(seed)")
            #expect(Model.isIdentical(applied.layout, try Self.fullPrepare(of: input, sections: new)), "seed \(seed)")
            // The diff path skips the batch checks; a client sending the same batch is told the same.
            #expect(applied.batch == (try layout.applying(applied.update, options: .serial)).batch, "seed \(seed)")
        }
    }

    /// Large sections, split into small segments and run in parallel: the same bits as the same segments
    /// run serially. (Segment boundaries do change the bits of two-pass layouts such as list: prepare and
    /// update must use the same `segmentSize`.)
    @Test(arguments: LayoutKind.allCases)
    func parallelRelayoutIsIdenticalToSerial(kind: LayoutKind) throws {
        var generator = Model.Generator(seed: 77, kind: kind)
        let old = (0..<3).map { _ in generator.section(maxItems: 3000) }
        let input = generator.input(old)
        let parallel = PrepareOptions(segments: Segments(segmentSize: 97, isParallel: true), parallelThreshold: 0)
        let layout = try PreparedLayout.prepare(input, options: parallel)
        let (batch, expected) = generator.batch(for: old)
        let applied = try layout.applying(batch, options: parallel).layout
        let serial = PrepareOptions(segments: Segments(segmentSize: 97, isParallel: false))
        #expect(Model.isIdentical(applied, try Self.fullPrepare(of: input, sections: expected, options: serial)))
    }

    /// The seam for resuming inside a section: below `firstAffectedItem` the items, and so the frames of
    /// a layout that stacks items in order (list), are the same before and after.
    @Test func itemsBelowTheFirstAffectedItemAreUnchanged() throws {
        for seed in UInt64(0)..<200 {
            var generator = Model.Generator(seed: seed)
            let old = generator.sections()
            let input = generator.input(old)
            let layout = try PreparedLayout.prepare(input, options: .serial)
            let (batch, expected) = generator.batch(for: old)
            let plan = try BatchPlan(batch, for: input, limits: InputLimits())
            let applied = try layout.applying(batch, options: .serial).layout
            for (t, source) in plan.sources.enumerated() {
                guard case .continued(let s, let edit?) = source else { continue }
                let first = edit.firstAffectedItem
                #expect(first <= old[s].items.count && first <= expected[t].items.count, "seed \(seed)")
                let prefix = min(first, old[s].items.count, expected[t].items.count)
                #expect(Array(old[s].items.prefix(prefix)) == Array(expected[t].items.prefix(prefix)), "seed \(seed), section \(t)")
                for i in 0..<prefix {
                    #expect(layout.sectionFrames[s].cells[i] == applied.sectionFrames[t].cells[i], "seed \(seed), section \(t), item \(i)")
                }
            }
        }
    }

    @Test func untouchedSectionsKeepTheirFramesWhileLaterSectionsMove() throws {
        let sections = [Section(count: 2), Section(count: 3), Section(count: 1)]
        let input = LayoutInput(bounds: Size(width: 200, height: 400), parameters: .defaults(for: .list), sections: sections)
        let layout = try PreparedLayout.prepare(input)
        let applied = try layout.applying([.insert(ItemPath(section: 0, item: 0), ItemSizing(height: 10), id: nil)]).layout
        // By hand (list, itemHeight 36): section 0 grows by 10 + 2*36 → 82; section 1 starts there.
        #expect(applied.sectionTops == [0, 82, 82 + 108])
        #expect(applied.sectionFrames[1] == layout.sectionFrames[1])
        #expect(applied.cell(item: 0, section: 1)?.frame == Rect(x: 0, y: 82, width: 200, height: 36))
        #expect(applied.contentSize == Size(width: 200, height: 82 + 108 + 36))
    }
}
