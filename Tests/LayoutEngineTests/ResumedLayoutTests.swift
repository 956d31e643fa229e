import Testing
@testable import LayoutEngine

/// Sections laid out again from part way through (`ResumableSectionLayout`): always the frames, section
/// ends, checkpoints and rect index of a full prepare of the new input, and for the layouts that can
/// resume, a start at (or within a documented distance before) the first item the batch touched.
@Suite struct ResumedLayoutTests {
    typealias Model = UpdateModel

    /// Small segments, so that list sections restart mid-section and segments run in parallel.
    static let parallel = PrepareOptions(segments: Segments(segmentSize: 7, isParallel: true), parallelThreshold: 0)
    static let serial = PrepareOptions(segments: Segments(segmentSize: 7, isParallel: false))
    static let options = [parallel, serial, .serial]

    /// The new sections by the naive model, applied literally (not by the engine).
    static func expectedSections(_ batch: BatchUpdate, from input: LayoutInput) -> [Section] {
        Model.apply(batch, to: Model.model(input.sections)).map(\.section)
    }

    static func fullPrepare(of input: LayoutInput, sections: [Section], options: PrepareOptions) throws -> PreparedLayout {
        var newInput = input
        newInput.sections = sections
        return try PreparedLayout.prepare(newInput, options: options)
    }

    /// Bit for bit, and the stored parts too: section frames with their checkpoints, and every index box.
    /// (Compared into Bools first: a failing `#expect` on the values would print every frame.)
    static func expectIdentical(_ applied: PreparedLayout, _ full: PreparedLayout, _ comment: Comment) {
        let sameElements = Model.isIdentical(applied, full)
        let sameSections = applied.sectionFrames == full.sectionFrames
        let sameIndex = applied.index == full.index
        #expect(sameElements, comment)
        #expect(sameSections, comment)
        #expect(sameIndex, comment)
    }

    /// How far before the first touched item a layout may restart (see each layout's `+Resume` file);
    /// nil: it lays the section out whole.
    static func allowedRestartDistance(for parameters: LayoutParameters, segmentSize: Int, itemCount: Int) -> Int? {
        switch parameters {
        case .list: return segmentSize
        case .columns(let p): return p.placement == .shortestFirst ? nil : 0
        // One interval to the checkpoint's multiple, one more when a row straddles it, plus the row.
        case .flow: return 2 * FlowLayout.checkpointInterval + 100
        case .justified: return 2 * JustifiedLayout.checkpointInterval + 100
        case .waterfall(let p):
            let columnsInUse = min(p.columns, max(itemCount, 1))
            return columnsInUse <= WaterfallLayout.maxCheckpointedColumns ? WaterfallLayout.checkpointInterval : nil
        // Never sizing-dependent: see `expectCopiesOnlyWhatIsSizingIndependent`.
        case .mosaic, .columnFlow: return nil
        }
    }

    @Test(arguments: LayoutKind.allCases)
    func resumingALocalBatchEqualsAFullPrepare(kind: LayoutKind) throws {
        for seed in UInt64(0)..<16 {
            var random = SeededRandom(seed: seed &* 977 &+ UInt64(kind.rawValue.count))
            let input = LocalEdits.input(kind, using: &random)
            let (batch, firstTouched) = LocalEdits.batch(for: input.sections, kind: kind, using: &random)
            let expected = Self.expectedSections(batch, from: input)
            for (o, options) in Self.options.enumerated() {
                let layout = try PreparedLayout.prepare(input, options: options)
                let applied = try layout.applyingBatch(batch, options: options)
                let full = try Self.fullPrepare(of: input, sections: expected, options: options)
                Self.expectIdentical(applied.layout, full, "seed \(seed), options \(o)")
                for (s, touched) in firstTouched {
                    let section = try #require(applied.sections[s], "seed \(seed), section \(s)")
                    let first = section.firstComputedCell
                    let parameters = input.parameters(forSection: s)
                    let oldCount = input.sections[s].items.count
                    let newCount = expected[s].items.count
                    switch parameters.kind {
                    case .mosaic, .columnFlow:
                        #expect(first == 0, "seed \(seed), section \(s)")
                        Self.expectKeepsOnlyWhatIsSizingIndependent(section.unchangedCells, parameters: parameters, oldCount: oldCount, newCount: newCount)
                    default:
                        // The index keeps at least what was copied, and never a touched cell.
                        #expect(section.unchangedCells >= first && section.unchangedCells <= touched, "seed \(seed), section \(s)")
                        // Never a touched item copied.
                        #expect(first <= touched, "seed \(seed), section \(s)")
                        let distance = Self.allowedRestartDistance(for: parameters, segmentSize: options.segments.segmentSize, itemCount: newCount)
                        if let distance {
                            #expect(first >= touched - distance, "seed \(seed), section \(s): restarted at \(first), touched \(touched)")
                        } else {
                            #expect(first == 0, "seed \(seed), section \(s)")
                        }
                    }
                }
            }
        }
    }

    /// mosaic and columnFlow place a cell by its index (and, for mosaic's last segment, the count) alone:
    /// every cell outside the last segment / below the shorter count keeps its frame, whatever the batch
    /// touched (they compute every cell again: cheaper than copying).
    static func expectKeepsOnlyWhatIsSizingIndependent(_ unchanged: Int, parameters: LayoutParameters, oldCount: Int, newCount: Int) {
        let shorter = min(oldCount, newCount)
        switch parameters.kind {
        case .columnFlow:
            #expect(unchanged == shorter)
        default:
            // The last segment holds 1 to 3 items: the earlier of the two last segments starts within
            // 3 items of the shorter count, and never past it.
            #expect(unchanged <= shorter && unchanged >= shorter - 3)
        }
    }

    @Test(arguments: LayoutKind.allCases)
    func chainedLocalBatchesStayIdenticalToAFullPrepare(kind: LayoutKind) throws {
        for seed in UInt64(100)..<106 {
            var random = SeededRandom(seed: seed &+ UInt64(kind.rawValue.count))
            var input = LocalEdits.input(kind, using: &random)
            let options = seed % 2 == 0 ? Self.parallel : Self.serial
            var layout = try PreparedLayout.prepare(input, options: options)
            for step in 0..<5 {
                let (batch, _) = LocalEdits.batch(for: input.sections, kind: kind, using: &random)
                let expected = Self.expectedSections(batch, from: input)
                layout = try layout.applying(batch, options: options).layout
                input.sections = expected
                Self.expectIdentical(layout, try PreparedLayout.prepare(input, options: options), "seed \(seed), step \(step)")
            }
        }
    }

    /// `applyingDiff` lays sections out again through the same resumption, from the first item its batch
    /// touches in each section.
    @Test(arguments: LayoutKind.allCases)
    func applyingALocalDiffEqualsAFullPrepare(kind: LayoutKind) throws {
        for seed in UInt64(200)..<206 {
            var random = SeededRandom(seed: seed &+ UInt64(kind.rawValue.count))
            var input = LocalEdits.input(kind, using: &random)
            input.sections = LocalEdits.withIds(input.sections)
            let (batch, _) = LocalEdits.batch(for: input.sections, kind: kind, using: &random)
            let expected = Self.expectedSections(batch, from: input)
            for options in [Self.parallel, Self.serial] {
                let layout = try PreparedLayout.prepare(input, options: options)
                let applied = try layout.applyingDiff(to: expected, options: options)
                Self.expectIdentical(applied.layout, try Self.fullPrepare(of: input, sections: expected, options: options), "seed \(seed)")
            }
        }
    }

    /// One item inserted 10 from the end of a 3000-item section: only the tail is computed again (mosaic
    /// and columnFlow compute every cell, but only the tail's frames and index boxes change).
    @Test(arguments: LayoutKind.allCases)
    func anInsertNearTheEndRecomputesOnlyTheTail(kind: LayoutKind) throws {
        var random = SeededRandom(seed: 4242)
        var parameters = LayoutParameters.defaults(for: kind)
        if case .waterfall(var p) = parameters {
            p.columns = 3
            parameters = .waterfall(p)
        }
        let section = Section(items: LocalEdits.items(count: 3000, kind: kind, using: &random), headerHeight: 20, footerHeight: 10)
        let input = LayoutInput(bounds: Size(width: 390, height: 800), parameters: parameters, sections: [Section(count: 5), section, Section(count: 7)])
        let batch: BatchUpdate = [.insert(ItemPath(section: 1, item: 2990), LocalEdits.sizing(kind, using: &random), id: nil)]
        for options in Self.options {
            let applied = try PreparedLayout.prepare(input, options: options).applyingBatch(batch, options: options)
            let section = try #require(applied.sections[1])
            let recomputed = 3001 - (kind == .mosaic || kind == .columnFlow ? section.unchangedCells : section.firstComputedCell)
            let bound: Int
            switch kind {
            case .list: bound = 11 + options.segments.segmentSize
            case .columns: bound = 11
            case .flow, .justified: bound = 11 + (Self.allowedRestartDistance(for: parameters, segmentSize: 0, itemCount: 3001) ?? 0)
            case .waterfall: bound = 11 + WaterfallLayout.checkpointInterval
            case .mosaic: bound = 4
            case .columnFlow: bound = 1
            }
            // The list's default segment (65536 items) holds the whole section: it restarts at 0.
            if kind == .list, options.segments.segmentSize > 3000 {
                #expect(recomputed == 3001)
            } else {
                #expect(recomputed <= bound, "\(kind): \(recomputed) items computed again")
            }
            Self.expectIdentical(applied.layout, try Self.fullPrepare(of: input, sections: Self.expectedSections(batch, from: input), options: options), "\(kind)")
            #expect(applied.sections.keys.sorted() == [1])
        }
    }

    @Test func shortestFirstColumnsAreLaidOutWhole() throws {
        var p = ColumnsParameters()
        p.placement = .shortestFirst
        var random = SeededRandom(seed: 9)
        let input = LayoutInput(
            bounds: Size(width: 390, height: 800), parameters: .columns(p),
            sections: [Section(items: LocalEdits.items(count: 500, kind: .columns, using: &random))]
        )
        let batch: BatchUpdate = [.delete(ItemPath(section: 0, item: 498))]
        let applied = try PreparedLayout.prepare(input).applyingBatch(batch)
        // Computed from the top, but the cells before the deleted one are as they were.
        #expect(applied.firstComputedCells == [0: 0] && applied.unchangedCells == [0: 498])
        Self.expectIdentical(applied.layout, try Self.fullPrepare(of: input, sections: Self.expectedSections(batch, from: input), options: PrepareOptions()), "")
    }

    @Test func waterfallWithMoreColumnsThanCheckpointsCoverIsLaidOutWhole() throws {
        var p = WaterfallParameters()
        p.columns = WaterfallLayout.maxCheckpointedColumns + 1
        let input = LayoutInput(bounds: Size(width: 1000, height: 800), parameters: .waterfall(p), sections: [Section(count: 3000)])
        let layout = try PreparedLayout.prepare(input)
        #expect(layout.sectionFrames[0].checkpoints.isEmpty)
        let batch: BatchUpdate = [.delete(ItemPath(section: 0, item: 2999))]
        let applied = try layout.applyingBatch(batch)
        #expect(applied.firstComputedCells == [0: 0] && applied.unchangedCells == [0: 2999])
        Self.expectIdentical(applied.layout, try Self.fullPrepare(of: input, sections: Self.expectedSections(batch, from: input), options: PrepareOptions()), "")
    }

    /// Checkpoints sit where the spec of each layout puts them: waterfall's at every multiple of the
    /// interval short of the count; flow's at row starts, the first one at or past each multiple.
    @Test func checkpointsSitAtTheirDocumentedItems() throws {
        let waterfall = LayoutInput(bounds: Size(width: 390, height: 800), parameters: .defaults(for: .waterfall), sections: [Section(count: 3 * 1024)])
        let interval = WaterfallLayout.checkpointInterval
        #expect(try PreparedLayout.prepare(waterfall).sectionFrames[0].checkpoints.items == [interval, 2 * interval])

        // Default flow items are 60 wide: 390 holds 5 per row (5*60 + 4*8 = 332), so rows start at multiples of 5.
        let flow = LayoutInput(bounds: Size(width: 390, height: 800), parameters: .defaults(for: .flow), sections: [Section(count: 1000)])
        let flowInterval = FlowLayout.checkpointInterval
        let expected = stride(from: flowInterval, to: 1000, by: flowInterval).map { ($0 + 4) / 5 * 5 }
        #expect(try PreparedLayout.prepare(flow).sectionFrames[0].checkpoints.items == expected)
    }

    /// The item at a checkpoint changes so that it joins the row before: the checkpoint there no longer
    /// holds, and the one before it is used.
    @Test(arguments: [ItemSizing(width: 40), ItemSizing(height: 60, width: 50)])
    func aFlowItemAtACheckpointThatNowJoinsTheRowBeforeIsPlacedInThatRow(sizing: ItemSizing) throws {
        // Default items are 60 × 60 with spacing 8: 390 holds 5 per row (332 wide), rows start at multiples
        // of 5, and the first row start past the interval is a checkpoint.
        let input = LayoutInput(bounds: Size(width: 390, height: 800), parameters: .defaults(for: .flow), sections: [Section(count: 1000)])
        let layout = try PreparedLayout.prepare(input)
        let checkpoint = (FlowLayout.checkpointInterval + 4) / 5 * 5
        #expect(layout.sectionFrames[0].checkpoints.items.contains(checkpoint))
        for batch: BatchUpdate in [
            [.reload(ItemPath(section: 0, item: checkpoint), sizing, id: nil)],
            [.insert(ItemPath(section: 0, item: checkpoint), sizing, id: nil)],
        ] {
            let applied = try layout.applyingBatch(batch)
            #expect((applied.firstComputedCells[0] ?? checkpoint) < checkpoint)
            // A sixth item fits: 332 + 8 + 50 <= 390, at x = 5 * (60 + 8).
            let cell = try #require(applied.layout.cell(item: checkpoint, section: 0))
            let rowBefore = try #require(applied.layout.cell(item: checkpoint - 1, section: 0))
            #expect(cell.frame.x == 340 && cell.frame.y == rowBefore.frame.y)
            Self.expectIdentical(applied.layout, try Self.fullPrepare(of: input, sections: Self.expectedSections(batch, from: input), options: PrepareOptions()), "")
        }
    }

    @Test(arguments: LayoutKind.allCases)
    func rectQueriesOnAResumedLayoutMatchAScan(kind: LayoutKind) throws {
        var random = SeededRandom(seed: 31)
        let input = LocalEdits.input(kind, using: &random)
        let (batch, _) = LocalEdits.batch(for: input.sections, kind: kind, using: &random)
        let applied = try PreparedLayout.prepare(input, options: Self.parallel).applying(batch, options: Self.parallel).layout
        let height = applied.contentSize.height
        for _ in 0..<40 {
            let y = random.unit() * height
            let rect = Rect(x: random.unit() * 300, y: y, width: random.unit() * 400 + 1, height: random.unit() * 900 + 1)
            #expect(applied.elements(in: rect) == applied.elementsByScanning(in: rect))
        }
    }
}
