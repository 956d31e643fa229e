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
}
