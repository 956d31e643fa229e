import Testing
@testable import LayoutEngine

/// Batch updates: every rejection rule of LAYOUTS.md, the documented application order, and random
/// valid batches against the naive model.
@Suite struct BatchUpdateTests {
    typealias Model = UpdateModel

    // MARK: Fixture

    /// Three list sections of 5, 3 and 4 default items; ids "s.i" unless `ids` is false for a section.
    static func layout(ids: [Bool] = [true, true, true], options: PrepareOptions = .serial) throws -> PreparedLayout {
        let sections = [5, 3, 4].enumerated().map { s, count in
            Section(items: ItemSizes(count: count), ids: ids[s] ? (0..<count).map { id("\(s).\($0)") } : nil)
        }
        let input = LayoutInput(bounds: Size(width: 320, height: 480), parameters: .defaults(for: .list), sections: sections)
        return try PreparedLayout.prepare(input, options: options)
    }

    static func id(_ name: String) -> ItemID { .string(name) }
    static func at(_ section: Int, _ item: Int) -> ItemPath { ItemPath(section: section, item: item) }
    static let plain = ItemSizing.unspecified

    static func newSection(_ count: Int = 2) -> Section {
        Section(items: ItemSizes(count: count), ids: (0..<count).map { id("new.\($0)") })
    }

    /// The ids of every section after applying `batch` to the fixture.
    static func ids(after batch: BatchUpdate, fixtureIds: [Bool] = [true, true, true]) throws -> [[ItemID]?] {
        try layout(ids: fixtureIds).applying(batch).layout.input.sections.map(\.ids)
    }

    static func rejection(of batch: BatchUpdate, ids: [Bool] = [true, true, true], options: PrepareOptions = .serial) throws -> LayoutError? {
        let layout = try layout(ids: ids)
        do throws(LayoutError) {
            _ = try layout.applying(batch, options: options)
            return nil
        } catch {
            return error
        }
    }

    static func expectInvalidUpdate(_ batch: BatchUpdate, at n: Int, ids: [Bool] = [true, true, true], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let error = try #require(try rejection(of: batch, ids: ids), "the batch was accepted", sourceLocation: sourceLocation)
        #expect(error.code == .invalidUpdate, "\(error)", sourceLocation: sourceLocation)
        #expect(error.path == "updates[\(n)]", "\(error)", sourceLocation: sourceLocation)
    }

    // MARK: Index paths out of range

    @Test func deleteBeyondTheItemsBeforeTheBatchIsRejected() throws {
        try Self.expectInvalidUpdate([.delete(Self.at(0, 0)), .delete(Self.at(0, 5))], at: 1)
        try Self.expectInvalidUpdate([.delete(Self.at(0, -1))], at: 0)
    }

    @Test func itemInASectionThatDoesNotExistBeforeTheBatchIsRejected() throws {
        try Self.expectInvalidUpdate([.delete(Self.at(3, 0))], at: 0)
        try Self.expectInvalidUpdate([.insertSection(3, Self.newSection()), .reload(Self.at(3, 0), Self.plain, id: nil)], at: 1)
    }

    @Test func reloadBeyondTheItemsBeforeTheBatchIsRejected() throws {
        try Self.expectInvalidUpdate([.reload(Self.at(1, 3), Self.plain, id: nil)], at: 0)
    }

    @Test func moveSourceBeyondTheItemsBeforeTheBatchIsRejected() throws {
        try Self.expectInvalidUpdate([.insert(Self.at(2, 0), Self.plain, id: Self.id("x")), .move(from: Self.at(2, 4), to: Self.at(2, 0))], at: 1)
    }

    @Test func insertUsesTheItemCountAfterTheBatch() throws {
        // Section 0 has 5 items; after one insert it has 6, so 5 is the last valid after-index.
        #expect(try Self.rejection(of: [.insert(Self.at(0, 5), Self.plain, id: Self.id("x"))]) == nil)
        try Self.expectInvalidUpdate([.insert(Self.at(0, 6), Self.plain, id: Self.id("x"))], at: 0)
        // With one delete as well, section 1 keeps 3 items: 2 is the last valid after-index.
        #expect(try Self.rejection(of: [.delete(Self.at(1, 0)), .insert(Self.at(1, 2), Self.plain, id: Self.id("x"))]) == nil)
        try Self.expectInvalidUpdate([.delete(Self.at(1, 0)), .insert(Self.at(1, 3), Self.plain, id: Self.id("x"))], at: 1)
    }

    @Test func moveDestinationUsesTheItemCountAfterTheBatch() throws {
        // Section 1 receives one item: 4 items after, indices 0...3.
        #expect(try Self.rejection(of: [.move(from: Self.at(0, 0), to: Self.at(1, 3))]) == nil)
        try Self.expectInvalidUpdate([.move(from: Self.at(0, 0), to: Self.at(1, 4))], at: 0)
    }

    @Test func itemInASectionThatDoesNotExistAfterTheBatchIsRejected() throws {
        try Self.expectInvalidUpdate([.deleteSection(2), .insert(Self.at(2, 0), Self.plain, id: Self.id("x"))], at: 1)
        try Self.expectInvalidUpdate([.move(from: Self.at(0, 0), to: Self.at(-1, 0))], at: 0)
    }

    @Test func sectionIndicesOutOfRangeAreRejected() throws {
        try Self.expectInvalidUpdate([.deleteSection(3)], at: 0)
        try Self.expectInvalidUpdate([.reloadSection(-1, Self.newSection())], at: 0)
        try Self.expectInvalidUpdate([.moveSection(from: 3, to: 0)], at: 0)
        try Self.expectInvalidUpdate([.moveSection(from: 0, to: 3)], at: 0)
        // Three sections plus one insert: 3 is the last valid after-index.
        #expect(try Self.rejection(of: [.insertSection(3, Self.newSection())]) == nil)
        try Self.expectInvalidUpdate([.insertSection(4, Self.newSection())], at: 0)
    }

    // MARK: Conflicting item updates (the later one offends)

    @Test func sameLocationDeletedTwiceIsRejected() throws {
        try Self.expectInvalidUpdate([.delete(Self.at(0, 1)), .delete(Self.at(1, 0)), .delete(Self.at(0, 1))], at: 2)
    }

    @Test func moveAndDeleteOfTheSameLocationAreRejected() throws {
        try Self.expectInvalidUpdate([.move(from: Self.at(0, 1), to: Self.at(0, 0)), .delete(Self.at(0, 1))], at: 1)
        try Self.expectInvalidUpdate([.delete(Self.at(0, 1)), .move(from: Self.at(0, 1), to: Self.at(0, 0))], at: 1)
    }

    @Test func moveAndInsertToTheSameLocationAreRejected() throws {
        try Self.expectInvalidUpdate([.insert(Self.at(0, 2), Self.plain, id: Self.id("x")), .move(from: Self.at(1, 0), to: Self.at(0, 2))], at: 1)
        try Self.expectInvalidUpdate([.move(from: Self.at(1, 0), to: Self.at(0, 2)), .insert(Self.at(0, 2), Self.plain, id: Self.id("x"))], at: 1)
    }

    @Test func twoMovesFromTheSameLocationAreRejected() throws {
        try Self.expectInvalidUpdate([.move(from: Self.at(0, 1), to: Self.at(0, 3)), .move(from: Self.at(0, 1), to: Self.at(1, 0))], at: 1)
    }

    @Test func twoMovesToTheSameLocationAreRejected() throws {
        try Self.expectInvalidUpdate([.move(from: Self.at(0, 1), to: Self.at(1, 0)), .move(from: Self.at(0, 2), to: Self.at(1, 0))], at: 1)
    }

    @Test func twoInsertsAtTheSameLocationAreRejected() throws {
        try Self.expectInvalidUpdate([.insert(Self.at(0, 0), Self.plain, id: Self.id("x")), .insert(Self.at(0, 0), Self.plain, id: Self.id("y"))], at: 1)
    }

    @Test func reloadOfADeletedItemIsRejected() throws {
        try Self.expectInvalidUpdate([.delete(Self.at(0, 2)), .reload(Self.at(0, 2), Self.plain, id: nil)], at: 1)
        try Self.expectInvalidUpdate([.reload(Self.at(0, 2), Self.plain, id: nil), .delete(Self.at(0, 2))], at: 1)
    }

    @Test func reloadOfAMovedItemIsRejected() throws {
        try Self.expectInvalidUpdate([.move(from: Self.at(0, 2), to: Self.at(0, 0)), .reload(Self.at(0, 2), Self.plain, id: nil)], at: 1)
        try Self.expectInvalidUpdate([.reload(Self.at(0, 2), Self.plain, id: nil), .move(from: Self.at(0, 2), to: Self.at(0, 0))], at: 1)
    }

    /// Not in LAYOUTS.md's list; two sizings for one item are ambiguous, so we reject the second.
    @Test func sameItemReloadedTwiceIsRejected() throws {
        try Self.expectInvalidUpdate([.reload(Self.at(0, 2), Self.plain, id: nil), .reload(Self.at(0, 2), ItemSizing(height: 5), id: nil)], at: 1)
    }

    // MARK: Item updates against section updates

    @Test func itemUpdateInsideADeletedSectionIsRejected() throws {
        try Self.expectInvalidUpdate([.deleteSection(1), .delete(Self.at(1, 0))], at: 1)
        try Self.expectInvalidUpdate([.reload(Self.at(1, 0), Self.plain, id: nil), .deleteSection(1)], at: 1)
        try Self.expectInvalidUpdate([.deleteSection(1), .move(from: Self.at(1, 2), to: Self.at(0, 0))], at: 1)
    }

    @Test func itemUpdateInsideAnInsertedSectionIsRejected() throws {
        try Self.expectInvalidUpdate([.insertSection(1, Self.newSection()), .insert(Self.at(1, 0), Self.plain, id: Self.id("x"))], at: 1)
        try Self.expectInvalidUpdate([.move(from: Self.at(0, 0), to: Self.at(1, 0)), .insertSection(1, Self.newSection())], at: 1)
    }

    @Test func itemUpdateInsideAReloadedSectionIsRejected() throws {
        // By before-index.
        try Self.expectInvalidUpdate([.reloadSection(1, Self.newSection()), .delete(Self.at(1, 0))], at: 1)
        try Self.expectInvalidUpdate([.delete(Self.at(1, 0)), .reloadSection(1, Self.newSection())], at: 1)
        // By after-index: section 1 after the batch is the reloaded old section 1.
        try Self.expectInvalidUpdate([.reloadSection(1, Self.newSection()), .insert(Self.at(1, 0), Self.plain, id: Self.id("x"))], at: 1)
        try Self.expectInvalidUpdate([.insert(Self.at(1, 0), Self.plain, id: Self.id("x")), .reloadSection(1, Self.newSection())], at: 1)
        // After deleting section 0, the reloaded old section 2 is after-index 1.
        try Self.expectInvalidUpdate([.deleteSection(0), .move(from: Self.at(1, 0), to: Self.at(1, 0)), .reloadSection(2, Self.newSection())], at: 2)
    }

    @Test func itemUpdatesInsideAMovedSectionUseItsOldIndexBeforeAndItsNewOneAfter() throws {
        // Old section 0 (items 0.0 ... 0.4) moves to the end; it is section 2 after the batch.
        let batch: BatchUpdate = [
            .moveSection(from: 0, to: 2),
            .delete(Self.at(0, 0)),
            .insert(Self.at(2, 3), Self.plain, id: Self.id("x")),
            .move(from: Self.at(0, 1), to: Self.at(0, 0)),
        ]
        let ids = try Self.ids(after: batch)
        #expect(ids == [
            ["0.1", "1.0", "1.1", "1.2"].map(Self.id),
            ["2.0", "2.1", "2.2", "2.3"].map(Self.id),
            ["0.2", "0.3", "0.4", "x"].map(Self.id),
        ])
    }

    // MARK: Conflicting section updates

    @Test func sectionDeletedTwiceIsRejected() throws {
        try Self.expectInvalidUpdate([.deleteSection(1), .deleteSection(0), .deleteSection(1)], at: 2)
    }

    @Test func sectionMovedAndDeletedIsRejected() throws {
        try Self.expectInvalidUpdate([.moveSection(from: 1, to: 0), .deleteSection(1)], at: 1)
        try Self.expectInvalidUpdate([.deleteSection(1), .moveSection(from: 1, to: 0)], at: 1)
    }

    @Test func twoMovesOfOneSectionAreRejected() throws {
        try Self.expectInvalidUpdate([.moveSection(from: 1, to: 0), .moveSection(from: 1, to: 2)], at: 1)
    }

    @Test func twoSectionsMovedToOneIndexAreRejected() throws {
        try Self.expectInvalidUpdate([.moveSection(from: 1, to: 0), .moveSection(from: 2, to: 0)], at: 1)
    }

    @Test func sectionMovedAndInsertedToOneIndexAreRejected() throws {
        try Self.expectInvalidUpdate([.insertSection(0, Self.newSection()), .moveSection(from: 2, to: 0)], at: 1)
        try Self.expectInvalidUpdate([.moveSection(from: 2, to: 0), .insertSection(0, Self.newSection())], at: 1)
    }

    @Test func twoSectionsInsertedAtOneIndexAreRejected() throws {
        try Self.expectInvalidUpdate([.insertSection(1, Self.newSection()), .insertSection(1, Self.newSection())], at: 1)
    }

    @Test func reloadOfADeletedOrMovedSectionIsRejected() throws {
        try Self.expectInvalidUpdate([.deleteSection(2), .reloadSection(2, Self.newSection())], at: 1)
        try Self.expectInvalidUpdate([.reloadSection(2, Self.newSection()), .deleteSection(2)], at: 1)
        try Self.expectInvalidUpdate([.reloadSection(2, Self.newSection()), .moveSection(from: 2, to: 0)], at: 1)
        try Self.expectInvalidUpdate([.reloadSection(2, Self.newSection()), .reloadSection(2, Self.newSection())], at: 1)
    }

    // MARK: Item ids

    @Test func insertWithoutAnIdIntoASectionWithIdsIsRejected() throws {
        try Self.expectInvalidUpdate([.delete(Self.at(0, 0)), .insert(Self.at(0, 0), Self.plain, id: nil)], at: 1)
    }

    @Test func insertWithAnIdIntoASectionWithoutIdsIsRejected() throws {
        try Self.expectInvalidUpdate([.insert(Self.at(1, 0), Self.plain, id: Self.id("x"))], at: 0, ids: [true, false, true])
    }

    @Test func moveBetweenSectionsThatDisagreeOnIdsIsRejected() throws {
        try Self.expectInvalidUpdate([.move(from: Self.at(1, 0), to: Self.at(0, 0))], at: 0, ids: [true, false, true])
        try Self.expectInvalidUpdate([.move(from: Self.at(0, 0), to: Self.at(1, 0))], at: 0, ids: [true, false, true])
    }

    @Test func reloadGivingAnIdInASectionWithoutIdsIsRejected() throws {
        try Self.expectInvalidUpdate([.reload(Self.at(1, 0), Self.plain, id: Self.id("x"))], at: 0, ids: [true, false, true])
    }

    @Test func reloadWithoutAnIdKeepsTheItemsIdAndWithOneReplacesIt() throws {
        let ids = try Self.ids(after: [.reload(Self.at(1, 0), Self.plain, id: nil), .reload(Self.at(1, 2), Self.plain, id: Self.id("z"))])
        #expect(ids[1] == ["1.0", "1.1", "z"].map(Self.id))
    }

    @Test func emptiedSectionTakesTheIdChoiceOfTheFirstArrival() throws {
        // Section 1 has no ids; all its items go, and items with ids arrive.
        let emptied: [BatchUpdate.Operation] = [.delete(Self.at(1, 0)), .delete(Self.at(1, 1)), .delete(Self.at(1, 2))]
        let ids = try Self.ids(after: BatchUpdate(emptied + [.insert(Self.at(1, 0), Self.plain, id: Self.id("x")), .move(from: Self.at(0, 4), to: Self.at(1, 1))]), fixtureIds: [true, false, true])
        #expect(ids[1] == ["x", "0.4"].map(Self.id))
        try Self.expectInvalidUpdate(BatchUpdate(emptied + [.insert(Self.at(1, 0), Self.plain, id: Self.id("x")), .insert(Self.at(1, 1), Self.plain, id: nil)]), at: 4, ids: [true, false, true])
    }

    // MARK: Contents of new items and sections

    @Test func invalidSizingIsAnInvalidRequestAtTheItemsField() throws {
        let height = try #require(try Self.rejection(of: [.delete(Self.at(0, 0)), .insert(Self.at(0, 0), ItemSizing(height: -1), id: Self.id("x"))]))
        #expect(height.code == .invalidRequest)
        #expect(height.path == "updates[1].item.height")
        let ratio = try #require(try Self.rejection(of: [.reload(Self.at(0, 0), ItemSizing(aspectRatio: 0), id: nil)]))
        #expect(ratio.code == .invalidRequest)
        #expect(ratio.path == "updates[0].item.aspectRatio")
        let width = try #require(try Self.rejection(of: [.reload(Self.at(0, 0), ItemSizing(width: .infinity), id: nil)]))
        #expect(width.path == "updates[0].item.width")
    }

    @Test func invalidSectionIsAnInvalidRequestInsideTheUpdate() throws {
        let badItem = Section(items: try #require(ItemSizes(count: 2, heights: [1, -1])))
        let item = try #require(try Self.rejection(of: [.deleteSection(0), .insertSection(0, badItem)]))
        #expect(item.code == .invalidRequest)
        #expect(item.path == "updates[1].section.items[1].height")
        let otherKind = Section(items: ItemSizes(count: 1), parameters: .defaults(for: .mosaic))
        let kind = try #require(try Self.rejection(of: [.reloadSection(2, otherKind)]))
        #expect(kind.code == .invalidRequest)
        #expect(kind.path == "updates[0].section.params")
        let idCount = Section(items: ItemSizes(count: 2), ids: [Self.id("a")])
        let ids = try #require(try Self.rejection(of: [.insertSection(0, idCount)]))
        #expect(ids.path == "updates[0].section.ids")
    }

    @Test func batchThatExceedsTheItemLimitIsTooLarge() throws {
        let options = PrepareOptions(limits: InputLimits(maxItems: 12, maxSections: 3), segments: .serial)
        #expect(try Self.rejection(of: [.delete(Self.at(0, 0)), .insert(Self.at(1, 0), Self.plain, id: Self.id("x"))], options: options) == nil)
        let items = try #require(try Self.rejection(of: [.insert(Self.at(1, 0), Self.plain, id: Self.id("x"))], options: options))
        #expect(items.code == .tooLarge)
        let sections = try #require(try Self.rejection(of: [.insertSection(0, Section(count: 0))], options: options))
        #expect(sections.code == .tooLarge)
    }

    @Test func firstOffendingUpdateIsReported() throws {
        try Self.expectInvalidUpdate([.delete(Self.at(0, 9)), .delete(Self.at(0, 0)), .delete(Self.at(0, 0))], at: 0)
        // Out of after-range at 2, reload conflict blamed on the later update 1: 1 is reported.
        try Self.expectInvalidUpdate([
            .insert(Self.at(2, 0), Self.plain, id: Self.id("x")),
            .reloadSection(2, Self.newSection()),
            .insert(Self.at(0, 9), Self.plain, id: Self.id("y")),
        ], at: 1)
    }

    // MARK: All or nothing

    @Test func rejectedBatchLeavesTheLayoutUntouched() throws {
        let layout = try Self.layout()
        let before = Model.model(layout.input.sections)
        let batch: BatchUpdate = [
            .delete(Self.at(0, 0)),
            .insertSection(1, Self.newSection()),
            .reload(Self.at(2, 1), ItemSizing(height: 99), id: nil),
            .delete(Self.at(0, 0)),
        ]
        #expect(throws: LayoutError.self) { try layout.applying(batch) }
        #expect(Model.model(layout.input.sections) == before)
        let fresh = try PreparedLayout.prepare(layout.input, options: .serial)
        #expect(Model.isIdentical(layout, fresh))
        // And the untouched layout still takes a valid batch as if nothing had happened.
        let applied = try layout.applying([.delete(Self.at(0, 0))]).layout
        #expect(applied.input.sections.map(\.items.count) == [4, 3, 4])
    }
}
