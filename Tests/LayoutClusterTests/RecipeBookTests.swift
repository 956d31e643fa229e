import Testing
@testable import LayoutCluster

@Suite struct RecipeBookTests {
    private func body(_ size: Int, _ fill: UInt8 = 1) -> HeldBody { HeldBody([UInt8](repeating: fill, count: size)) }

    @Test func aPrepareStartsTheRecipeAndChangesFollowInOrder() {
        let book = RecipeBook(capacityBytes: 1000)
        #expect(book.start("k", base: 3, prepare: body(100, 1)).isEmpty)
        #expect(book.append("k", change: body(10, 2)).isEmpty)
        #expect(book.append("k", change: body(20, 3)).isEmpty)
        let recipe = book.recipe(for: "k")
        #expect(recipe?.base == 3)
        #expect(recipe?.bodies.map { $0.array.first } == [1, 2, 3])
        #expect(book.totalBytes == 130)
        // A new prepare starts over.
        #expect(book.start("k", base: 9, prepare: body(50)).isEmpty)
        #expect(book.recipe(for: "k")?.bodies.count == 1)
        #expect(book.totalBytes == 50)
        // A change to a key without a recipe is not recorded.
        #expect(book.append("none", change: body(5)).isEmpty)
        #expect(book.recipe(for: "none") == nil)
    }

    @Test func theLeastRecentlyUsedRecipesGoFirstWhenOverTheBound() {
        let book = RecipeBook(capacityBytes: 300)
        _ = book.start("a", base: 1, prepare: body(100))
        _ = book.start("b", base: 1, prepare: body(100))
        _ = book.start("c", base: 1, prepare: body(100))
        book.touch("a")
        #expect(book.keysByAge == ["b", "c", "a"])
        #expect(book.start("d", base: 1, prepare: body(100)) == ["b"])
        #expect(book.append("c", change: body(150)) == ["a", "d"])
        #expect(book.keysByAge == ["c"])
        #expect(book.totalBytes == 250)
        // A body over the whole bound is not kept at all.
        #expect(book.start("huge", base: 1, prepare: body(400)) == ["c", "huge"])
        #expect(book.count == 0 && book.totalBytes == 0)
    }

    @Test func removeForgetsARecipe() {
        let book = RecipeBook(capacityBytes: 1000)
        _ = book.start("a", base: 1, prepare: body(10))
        _ = book.start("b", base: 1, prepare: body(10))
        book.remove("a")
        book.remove("nothing")
        #expect(book.keysByAge == ["b"])
        #expect(book.totalBytes == 10)
    }

    @Test func aSnapshotReplacesTheBodiesUpToItsVersionAndKeepsTheChangesAfterIt() throws {
        let book = RecipeBook(capacityBytes: 10_000, compaction: CompactionPolicy(afterBytes: 100, afterChanges: 0))
        _ = book.start("k", base: 5, prepare: body(80, 1))
        // Versions 6 … 10, 30 bytes each.
        for fill in UInt8(2)...6 { _ = book.append("k", change: body(30, fill)) }
        let recipe = try #require(book.recipe(for: "k"))
        #expect(recipe.lastVersion == 10 && recipe.changes == 5 && recipe.changeBytes == 150)
        #expect(book.isDueForCompaction(recipe))

        // Taken at version 8: bodies 5 … 8 (80 + 3 × 30 bytes) become the snapshot; 9 and 10 stay.
        #expect(book.compact(recipe, at: 8, snapshot: body(120, 9)) == .compacted(savedBytes: 50))
        #expect(recipe.base == 8 && recipe.lastVersion == 10)
        #expect(recipe.bodies.map { $0.array.first } == [9, 5, 6])
        #expect(book.totalBytes == 180 && recipe.bytes == 180)
        // Due again only once the changes outgrow the new prepare.
        #expect(!book.isDueForCompaction(recipe))
        _ = book.append("k", change: body(80))
        #expect(book.isDueForCompaction(recipe))
    }

    @Test func aSnapshotThatWouldNotShrinkTheRecipeOrIsOutdatedChangesNothing() throws {
        let book = RecipeBook(capacityBytes: 10_000)
        _ = book.start("k", base: 1, prepare: body(100))
        _ = book.append("k", change: body(10))
        let recipe = try #require(book.recipe(for: "k"))
        #expect(book.compact(recipe, at: 2, snapshot: body(110)) == .notSmaller)
        #expect(book.compact(recipe, at: 3, snapshot: body(5)) == .stale, "a version the recipe does not hold")
        #expect(book.compact(recipe, at: 0, snapshot: body(5)) == .stale)
        // A prepare started the recipe over: a snapshot asked for the old one is outdated.
        _ = book.start("k", base: 4, prepare: body(100))
        #expect(book.compact(recipe, at: 2, snapshot: body(5)) == .stale)
        #expect(book.recipe(for: "k")?.bodies.count == 1 && book.totalBytes == 100)
    }

    @Test func compactionIsDueByBytesOverThePrepareOrTheFloorAndByCountAndAFailurePostponesIt() throws {
        let book = RecipeBook(capacityBytes: 1 << 20, compaction: CompactionPolicy(afterBytes: 50, afterChanges: 4))
        _ = book.start("big", base: 1, prepare: body(200))
        let big = try #require(book.recipe(for: "big"))
        _ = book.append("big", change: body(120))
        // Over the floor (50) but not over the prepare's own 200 bytes, and only 1 change.
        #expect(!book.isDueForCompaction(big))
        _ = book.append("big", change: body(90))
        #expect(book.isDueForCompaction(big), "210 bytes of changes over a 200-byte prepare")

        _ = book.start("small", base: 1, prepare: body(10))
        let small = try #require(book.recipe(for: "small"))
        for _ in 0..<4 { _ = book.append("small", change: body(1)) }
        #expect(!book.isDueForCompaction(small))
        _ = book.append("small", change: body(1))
        #expect(book.isDueForCompaction(small), "5 changes over a count of 4")
        // Not taken: the next attempt waits until the recipe has doubled (10 changes).
        book.postponeCompaction(of: small)
        for _ in 0..<5 { _ = book.append("small", change: body(1)) }
        #expect(!book.isDueForCompaction(small))
        _ = book.append("small", change: body(1))
        #expect(book.isDueForCompaction(small))

        let off = RecipeBook(capacityBytes: 1 << 20, compaction: CompactionPolicy(afterBytes: 0, afterChanges: 0))
        _ = off.start("k", base: 1, prepare: body(1))
        for _ in 0..<100 { _ = off.append("k", change: body(100)) }
        #expect(!off.isDueForCompaction(try #require(off.recipe(for: "k"))))
    }
}
