import Testing
@testable import LayoutEngine

/// Diff by identity: applied to the old sections it gives the new ones exactly, with the fewest moves.
@Suite struct DiffTests {
    typealias Model = UpdateModel

    static func id(_ n: Int) -> ItemID { .integer(Int64(n)) }

    /// A section whose items are identified by `ids`, each with height = its id (so sizing follows the item).
    static func section(_ ids: [Int], heights: [Int: Double] = [:]) -> Section {
        let items = ids.map { ItemSizing(height: heights[$0] ?? Double($0)) }
        return Section(items: UpdateModel.itemSizes(items), ids: ids.map(id))
    }

    static func counts(_ batch: BatchUpdate) -> (deletes: Int, inserts: Int, moves: Int, reloads: Int, sections: Int) {
        var counts = (deletes: 0, inserts: 0, moves: 0, reloads: 0, sections: 0)
        for operation in batch.operations {
            switch operation {
            case .delete: counts.deletes += 1
            case .insert: counts.inserts += 1
            case .move: counts.moves += 1
            case .reload: counts.reloads += 1
            case .deleteSection, .insertSection, .moveSection, .reloadSection: counts.sections += 1
            }
        }
        return counts
    }

    /// Applies `batch` to `old` with the naive model and compares with `new`.
    static func appliesExactly(_ batch: BatchUpdate, from old: [Section], to new: [Section]) -> Bool {
        Model.apply(batch, to: Model.model(old)).map(\.ignoringIdsWhenEmpty) == Model.model(new).map(\.ignoringIdsWhenEmpty)
    }

    // MARK: Fewest moves

    @Test func rotationByOneIsOneMove() throws {
        let old = [Self.section([1, 2, 3, 4, 5, 6])]
        for new in [Self.section([2, 3, 4, 5, 6, 1]), Self.section([6, 1, 2, 3, 4, 5])] {
            let batch = try Diff.batch(from: old, to: [new])
            let counts = Self.counts(batch)
            #expect(counts.moves == 1 && counts.deletes == 0 && counts.inserts == 0 && counts.reloads == 0)
            #expect(Self.appliesExactly(batch, from: old, to: [new]))
        }
    }

    @Test func swapOfTwoNeighboursIsOneMove() throws {
        let old = [Self.section([1, 2, 3, 4, 5])]
        for new in [Self.section([2, 1, 3, 4, 5]), Self.section([1, 2, 4, 3, 5])] {
            let batch = try Diff.batch(from: old, to: [new])
            #expect(Self.counts(batch).moves == 1)
            #expect(batch.operations.count == 1)
            #expect(Self.appliesExactly(batch, from: old, to: [new]))
        }
    }

    /// A move lifts one item while all others keep their order, so swapping 2 and 5 across 3 and 4
    /// takes two: no single item can be lifted to turn 1 2 3 4 5 into 1 5 3 4 2.
    @Test func swapOfTwoDistantItemsIsTwoMoves() throws {
        let old = [Self.section([1, 2, 3, 4, 5])]
        let new = [Self.section([1, 5, 3, 4, 2])]
        let batch = try Diff.batch(from: old, to: new)
        #expect(Self.counts(batch).moves == 2)
        #expect(batch.operations.count == 2)
        #expect(Self.appliesExactly(batch, from: old, to: new))
    }

    @Test func reversalOfNItemsIsNMinusOneMoves() throws {
        let old = [Self.section(Array(1...8))]
        let new = [Self.section(Array((1...8).reversed()))]
        let batch = try Diff.batch(from: old, to: new)
        #expect(Self.counts(batch).moves == 7)
        #expect(Self.appliesExactly(batch, from: old, to: new))
    }

    @Test func unchangedSectionsGiveAnEmptyBatch() throws {
        let sections = [Self.section([1, 2, 3]), Self.section([])]
        #expect(try Diff.batch(from: sections, to: sections).isEmpty)
    }

    /// The fewest moves for matched items is (matched - longest increasing subsequence); the LIS is
    /// computed here by the quadratic textbook recurrence, independently of the engine's.
    @Test func movesAreFewestOnRandomPermutations() throws {
        var random = Model.RandomNumbers(seed: 7)
        for _ in 0..<200 {
            let count = Int.random(in: 0...30, using: &random)
            let old = Array(0..<count)
            let new = old.shuffled(using: &random)
            let batch = try Diff.batch(from: [Self.section(old)], to: [Self.section(new)])
            var longest = [Int](repeating: 1, count: new.count)
            for j in new.indices {
                for k in 0..<j where new[k] < new[j] { longest[j] = max(longest[j], longest[k] + 1) }
            }
            #expect(Self.counts(batch).moves == count - (longest.max() ?? 0), "\(new)")
            #expect(Self.appliesExactly(batch, from: [Self.section(old)], to: [Self.section(new)]), "\(new)")
        }
    }

    // MARK: Identity rules

    @Test func idThatChangesSectionIsADeleteAndAnInsert() throws {
        let old = [Self.section([1, 2, 3]), Self.section([4, 5])]
        let new = [Self.section([1, 3]), Self.section([4, 2, 5])]
        let batch = try Diff.batch(from: old, to: new)
        let counts = Self.counts(batch)
        #expect(counts.deletes == 1 && counts.inserts == 1 && counts.moves == 0)
        #expect(batch.operations.contains(.delete(ItemPath(section: 0, item: 1))))
        #expect(batch.operations.contains(.insert(ItemPath(section: 1, item: 1), ItemSizing(height: 2), id: Self.id(2))))
        #expect(Self.appliesExactly(batch, from: old, to: new))
    }

    @Test func changedSizingIsAReloadWhereTheItemStays() throws {
        let old = [Self.section([1, 2, 3])]
        let new = [Self.section([1, 2, 3], heights: [2: 50])]
        let batch = try Diff.batch(from: old, to: new)
        #expect(batch.operations == [.reload(ItemPath(section: 0, item: 1), ItemSizing(height: 50), id: nil)])
        #expect(Self.appliesExactly(batch, from: old, to: new))
    }

    /// A batch may not move and reload one item, so a moved item whose sizing changed is replaced.
    @Test func changedSizingOfAMovedItemIsADeleteAndAnInsert() throws {
        let old = [Self.section([1, 2, 3])]
        let new = [Self.section([2, 3, 1], heights: [1: 50])]
        let batch = try Diff.batch(from: old, to: new)
        #expect(Set(batch.operations) == [.delete(ItemPath(section: 0, item: 0)), .insert(ItemPath(section: 0, item: 2), ItemSizing(height: 50), id: Self.id(1))])
        #expect(Self.appliesExactly(batch, from: old, to: new))
    }

    @Test func negativeZeroIsAChange() throws {
        let old = [Self.section([1], heights: [1: 0])]
        let new = [Self.section([1], heights: [1: -0.0])]
        #expect(Self.counts(try Diff.batch(from: old, to: new)).reloads == 1)
    }

    @Test func duplicateIdsAreRejected() throws {
        let old = [Self.section([1, 2]), Self.section([3])]
        let new = [Self.section([1, 2]), Self.section([3, 4, 5, 4, 4])]
        #expect {
            try Diff.batch(from: old, to: new)
        } throws: { error in
            (error as? LayoutError).map { $0.code == .invalidRequest && $0.path == "sections[1].ids[3]" } ?? false
        }
    }

    @Test func nonEmptySectionWithoutIdsIsRejected() throws {
        let new = [Self.section([1]), Section(count: 2)]
        #expect {
            try Diff.batch(from: [Self.section([1])], to: new)
        } throws: { error in
            (error as? LayoutError).map { $0.code == .invalidRequest && $0.path == "sections[1].ids" } ?? false
        }
        #expect(try Diff.batch(from: [Self.section([1])], to: [Self.section([1]), Section(count: 0)]).operations.count == 1)
    }

    @Test func oldItemsWithoutIdsAreAllReplaced() throws {
        let old = [Section(count: 3)]
        let new = [Self.section([1, 2])]
        let batch = try Diff.batch(from: old, to: new)
        let counts = Self.counts(batch)
        #expect(counts.deletes == 3 && counts.inserts == 2)
        #expect(Self.appliesExactly(batch, from: old, to: new))
    }

    /// Old state with a repeated id (prepare does not forbid it): only the first can match.
    @Test func repeatedOldIdsMatchOnlyTheirFirstOccurrence() throws {
        let old = [Self.section([1, 2, 1, 3])]
        let new = [Self.section([3, 1, 2])]
        let batch = try Diff.batch(from: old, to: new)
        #expect(batch.operations.contains(.delete(ItemPath(section: 0, item: 2))))
        #expect(Self.appliesExactly(batch, from: old, to: new))
    }

    // MARK: Sections

    @Test func extraNewSectionsAreInsertedAndMissingOnesDeleted() throws {
        let old = [Self.section([1]), Self.section([2]), Self.section([3])]
        let fewer = [Self.section([1])]
        let fewerBatch = try Diff.batch(from: old, to: fewer)
        #expect(Set(fewerBatch.operations) == [.deleteSection(1), .deleteSection(2)])
        #expect(Self.appliesExactly(fewerBatch, from: old, to: fewer))

        let more = old + [Self.section([4, 5]), Self.section([])]
        let moreBatch = try Diff.batch(from: old, to: more)
        #expect(Set(moreBatch.operations) == [.insertSection(3, more[3]), .insertSection(4, more[4])])
        #expect(Self.appliesExactly(moreBatch, from: old, to: more))
    }

    @Test func changedHeaderFooterOrParametersReloadTheSection() throws {
        let old = [Self.section([1, 2]), Self.section([3]), Self.section([4])]
        var new = [Self.section([2, 1]), Self.section([3]), Self.section([4, 5])]
        new[0].headerHeight = 30
        new[1].footerHeight = 0
        new[2].parameters = .defaults(for: .list)
        let batch = try Diff.batch(from: old, to: new)
        #expect(Set(batch.operations) == [.reloadSection(0, new[0]), .reloadSection(1, new[1]), .reloadSection(2, new[2])])
        #expect(Self.appliesExactly(batch, from: old, to: new))
    }

    // MARK: Random

    /// New contents built from the old ones by deleting, inserting, shuffling, changing sizes, moving
    /// ids across sections, and adding or dropping sections.
    static func mutated(_ old: [Section], random: inout Model.RandomNumbers, nextId: inout Int) -> [Section] {
        var groups: [[Int]] = old.map { section in
            (section.ids ?? []).compactMap { if case .integer(let n) = $0 { Int(n) } else { nil } }
        }
        var heights: [Int: Double] = [:]
        for s in groups.indices {
            groups[s] = groups[s].filter { _ in random.chance(0.8) }.shuffled(using: &random)
            if groups[s].count > 3, random.chance(0.5) {
                // Keep most of the order: only a few items move.
                groups[s] = Array(groups[s].dropFirst(2)) + groups[s].prefix(2)
            }
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                nextId += 1
                groups[s].insert(nextId, at: Int.random(in: 0...groups[s].count, using: &random))
            }
            for id in groups[s] where random.chance(0.15) { heights[id] = Double(Int.random(in: 1000...2000, using: &random)) }
        }
        if groups.count > 1, random.chance(0.3), let taken = groups[0].first {
            groups[0].removeFirst()
            groups[groups.count - 1].append(taken)
        }
        if random.chance(0.2), !groups.isEmpty { groups.removeLast() }
        if random.chance(0.2) {
            nextId += 2
            groups.append([nextId - 1, nextId])
        }
        return groups.map { section($0, heights: heights) }
    }

    @Test func randomDiffsApplyExactly() throws {
        var random = Model.RandomNumbers(seed: 42)
        for round in 0..<300 {
            var nextId = 0
            let old: [Section] = (0..<Int.random(in: 0...4, using: &random)).map { _ in
                let ids = (0..<Int.random(in: 0...15, using: &random)).map { _ in nextId += 1; return nextId }
                return Self.section(ids)
            }
            let new = Self.mutated(old, random: &random, nextId: &nextId)
            let batch = try Diff.batch(from: old, to: new)
            #expect(Self.appliesExactly(batch, from: old, to: new), "round \(round)")

            // The engine accepts the diff and lands on the same contents.
            let input = LayoutInput(bounds: Size(width: 375, height: 600), parameters: .defaults(for: .list), sections: old)
            let layout = try PreparedLayout.prepare(input, options: .serial)
            let applied = try layout.applyingDiff(to: new, options: .serial)
            #expect(Model.model(applied.layout.input.sections).map(\.ignoringIdsWhenEmpty) == Model.model(new).map(\.ignoringIdsWhenEmpty), "round \(round)")
        }
    }
}
