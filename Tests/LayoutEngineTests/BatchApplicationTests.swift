import Testing
@testable import LayoutEngine

/// Batch updates that are accepted: the documented application order, and random valid batches against
/// the naive model (the fixture and the rejection rules: `BatchUpdateTests`).
@Suite struct BatchApplicationTests {
    typealias Model = UpdateModel
    typealias Fixture = BatchUpdateTests

    // MARK: Application order

    /// The seed's example, by hand: a b c d e; delete 1, insert x at 0, move 3 → 4, reload 2.
    /// Deletes (b, d) descending: a c e; inserts ascending: x at 0 → x a c e; d at 4 → x a c e d.
    @Test func movesAreDeleteAndInsertWithDeletesDescendingThenInsertsAscending() throws {
        let batch: BatchUpdate = [
            .delete(Fixture.at(0, 1)),
            .insert(Fixture.at(0, 0), ItemSizing(height: 7), id: Fixture.id("x")),
            .move(from: Fixture.at(0, 3), to: Fixture.at(0, 4)),
            .reload(Fixture.at(0, 2), ItemSizing(height: 99), id: nil),
        ]
        let result = try Fixture.layout().applying(batch).layout.input.sections[0]
        #expect(result.ids == ["x", "0.0", "0.2", "0.4", "0.3"].map(Fixture.id))
        #expect((0..<5).map { result.items[$0].height } == [7, nil, 99, nil, nil])
    }

    @Test func itemMovesAcrossSectionsCarryTheirSizing() throws {
        let layout = try Fixture.layout()
        let sized = try layout.applying([.reload(Fixture.at(0, 1), ItemSizing(height: 50, aspectRatio: 2), id: nil)]).layout
        let moved = try sized.applying([.move(from: Fixture.at(0, 1), to: Fixture.at(2, 0))]).layout
        #expect(moved.input.sections[2].items[0] == ItemSizing(height: 50, aspectRatio: 2))
        #expect(moved.input.sections[2].ids?.first == Fixture.id("0.1"))
        #expect(moved.input.sections[0].items.count == 4)
    }

    /// Sections A B C; A moves to the end, C goes, a new section N comes in at 1, B loses its first item,
    /// A's second item goes to B's front. By hand: item deletes → A[0.0 0.2 0.3 0.4] B[1.1 1.2];
    /// sections out (C, A) → B; in ascending (N at 1, A at 2) → B N A; item inserts → B[0.1 1.1 1.2].
    @Test func sectionAndItemUpdatesComposeInTheDocumentedOrder() throws {
        let batch: BatchUpdate = [
            .move(from: Fixture.at(0, 1), to: Fixture.at(0, 0)),
            .delete(Fixture.at(1, 0)),
            .moveSection(from: 0, to: 2),
            .deleteSection(2),
            .insertSection(1, Fixture.newSection(1)),
        ]
        // Old C (section 2) is deleted; a new section is inserted at 1: B, new, A.
        let ids = try Fixture.ids(after: batch)
        #expect(ids == [
            ["0.1", "1.1", "1.2"].map(Fixture.id),
            ["new.0"].map(Fixture.id),
            ["0.0", "0.2", "0.3", "0.4"].map(Fixture.id),
        ])
    }

    @Test func normalizedBatchListsDeletesDescendingInsertsAscendingAndMovesAsPairs() throws {
        let batch: BatchUpdate = [
            .insert(Fixture.at(0, 1), Fixture.plain, id: Fixture.id("x")),
            .delete(Fixture.at(0, 0)),
            .move(from: Fixture.at(2, 3), to: Fixture.at(0, 0)),
            .delete(Fixture.at(2, 1)),
            .insert(Fixture.at(0, 3), Fixture.plain, id: Fixture.id("y")),
            .reload(Fixture.at(1, 2), Fixture.plain, id: nil),
            .move(from: Fixture.at(0, 4), to: Fixture.at(2, 0)),
            .reload(Fixture.at(0, 2), Fixture.plain, id: nil),
        ]
        let normalized = try Fixture.layout().applying(batch).batch
        #expect(normalized.deletes == [Fixture.at(2, 1), Fixture.at(0, 0)])
        #expect(normalized.inserts == [Fixture.at(0, 1), Fixture.at(0, 3)])
        #expect(normalized.moves == [
            NormalizedBatch.Move(from: Fixture.at(0, 4), to: Fixture.at(2, 0)),
            NormalizedBatch.Move(from: Fixture.at(2, 3), to: Fixture.at(0, 0)),
        ])
        #expect(normalized.reloads == [Fixture.at(0, 2), Fixture.at(1, 2)])
        #expect(normalized.sections.isEmpty)

        let sections = try Fixture.layout().applying([
            .insertSection(3, Fixture.newSection()), .deleteSection(0), .insertSection(0, Fixture.newSection()),
            .reloadSection(2, Fixture.newSection()), .moveSection(from: 1, to: 2), .insertSection(1, Fixture.newSection()),
        ]).batch.sections
        #expect(sections.deletes == [0])
        #expect(sections.inserts == [0, 1, 3])
        #expect(sections.moves == [NormalizedBatch.SectionMove(from: 1, to: 2)])
        #expect(sections.reloads == [2])
    }

    @Test func emptyBatchChangesNothing() throws {
        let layout = try Fixture.layout()
        let result = try layout.applying([])
        #expect(result.batch.isEmpty)
        #expect(Model.isIdentical(result.layout, layout))
    }

    // MARK: Random valid batches against the naive model

    @Test func randomValidBatchesMatchTheNaiveModel() throws {
        for seed in UInt64(0)..<300 {
            var generator = Model.Generator(seed: seed)
            let old = generator.sections()
            let layout = try PreparedLayout.prepare(generator.input(old), options: .serial)
            let (batch, expected) = generator.batch(for: old)
            let (applied, normalized) = try layout.applying(batch, options: .serial)
            #expect(Model.model(applied.input.sections) == expected, "seed \(seed)")
            #expect(Model.apply(batch, to: old) == expected, "seed \(seed): the model disagrees with the generator")
            #expect(Self.isNormalized(normalized, of: batch), "seed \(seed)")
        }
    }

    @Test func randomItemOnlyBatchesMatchTheNaiveModel() throws {
        for seed in UInt64(1000)..<1200 {
            var generator = Model.Generator(seed: seed)
            generator.allowsSectionUpdates = false
            let old = generator.sections()
            let layout = try PreparedLayout.prepare(generator.input(old), options: .serial)
            let (batch, expected) = generator.batch(for: old)
            let applied = try layout.applying(batch, options: .serial).layout
            #expect(Model.model(applied.input.sections) == expected, "seed \(seed)")
            #expect(Model.apply(batch, to: old) == expected, "seed \(seed)")
        }
    }

    /// The normalized batch holds exactly the request's updates, in the documented order.
    static func isNormalized(_ normalized: NormalizedBatch, of batch: BatchUpdate) -> Bool {
        var deletes: [ItemPath] = [], inserts: [ItemPath] = [], reloads: [ItemPath] = []
        var moves: [NormalizedBatch.Move] = []
        var sections = NormalizedBatch.SectionChanges()
        for operation in batch.operations {
            switch operation {
            case .delete(let p): deletes.append(p)
            case .insert(let p, _, _): inserts.append(p)
            case let .move(from, to): moves.append(.init(from: from, to: to))
            case .reload(let p, _, _): reloads.append(p)
            case .deleteSection(let s): sections.deletes.append(s)
            case .insertSection(let s, _): sections.inserts.append(s)
            case let .moveSection(from, to): sections.moves.append(.init(from: from, to: to))
            case .reloadSection(let s, _): sections.reloads.append(s)
            }
        }
        func isDescending<T: Comparable>(_ values: [T]) -> Bool { zip(values, values.dropFirst()).allSatisfy { $0 > $1 } }
        func isAscending<T: Comparable>(_ values: [T]) -> Bool { zip(values, values.dropFirst()).allSatisfy { $0 < $1 } }
        return Set(normalized.deletes) == Set(deletes) && normalized.deletes.count == deletes.count && isDescending(normalized.deletes)
            && Set(normalized.inserts) == Set(inserts) && normalized.inserts.count == inserts.count && isAscending(normalized.inserts)
            && Set(normalized.reloads) == Set(reloads) && normalized.reloads.count == reloads.count && isAscending(normalized.reloads)
            && Set(normalized.moves) == Set(moves) && normalized.moves.count == moves.count && isAscending(normalized.moves.map(\.from))
            && Set(normalized.sections.deletes) == Set(sections.deletes) && isDescending(normalized.sections.deletes)
            && Set(normalized.sections.inserts) == Set(sections.inserts) && isAscending(normalized.sections.inserts)
            && Set(normalized.sections.moves) == Set(sections.moves) && isAscending(normalized.sections.moves.map(\.from))
            && Set(normalized.sections.reloads) == Set(sections.reloads) && isAscending(normalized.sections.reloads)
    }
}
