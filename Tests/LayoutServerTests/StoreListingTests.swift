import LayoutEngine
import LayoutTestKit
import LayoutWire
import Testing
@testable import LayoutServer

/// The store's order of keys and its pages: what `list` answers from.
@Suite struct StoreListingTests {
    private func layout(items: Int = 3) throws -> PreparedLayout {
        try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 100, height: 100), parameters: .list(ListParameters()), sections: [Section(count: items)]))
    }

    /// Every key of `page`, the slow way: a filter and a sort of all the keys.
    private func expected(_ all: Set<LayoutKey>, _ page: KeyPage) -> (keys: [LayoutKey], more: Bool) {
        let range = all.filter { key in page.covers(key) && (page.after.map { $0 < key } ?? true) }.sorted()
        return (Array(range.prefix(page.limit)), range.count > page.limit)
    }

    @Test func theOrderMatchesASortThroughInsertsAndRemovals() {
        var generator = SeededGenerator(seed: 36)
        var keys = SortedKeys()
        var truth: Set<LayoutKey> = []
        let namespaces = ["", "alice", "bob"]
        // Enough keys for several chunk splits, and removals that empty chunks.
        for step in 0..<6_000 {
            let key = LayoutKey(namespace: namespaces[Int.random(in: 0..<3, using: &generator)], name: "k-\(Int.random(in: 0..<2_500, using: &generator))")
            if step % 3 == 2 {
                #expect(keys.remove(key) == (truth.remove(key) != nil))
            } else {
                #expect(keys.insert(key) == truth.insert(key).inserted)
            }
        }
        #expect(keys.count == truth.count)
        let all = keys.keys(of: KeyPage(namespace: nil, limit: .max))
        #expect(all.keys == truth.sorted() && !all.more)
        for key in truth.prefix(50) { #expect(keys.contains(key)) }

        for _ in 0..<200 {
            let namespace: String? = Bool.random(using: &generator) ? nil : namespaces[Int.random(in: 0..<3, using: &generator)]
            let prefix = ["", "k-1", "k-23", "k-9", "x"][Int.random(in: 0..<5, using: &generator)]
            let afterNamespace = namespace ?? namespaces[Int.random(in: 0..<3, using: &generator)]
            let after = Bool.random(using: &generator) ? LayoutKey(namespace: afterNamespace, name: "k-\(Int.random(in: 0..<2_500, using: &generator))") : nil
            let page = KeyPage(namespace: namespace, after: after, prefix: prefix, limit: Int.random(in: 1..<400, using: &generator))
            let got = keys.keys(of: page)
            let want = expected(truth, page)
            #expect(got.keys == want.keys, "\(page)")
            #expect(got.more == want.more, "\(page)")
        }
    }

    @Test func theStoreListsWhatItKeepsAndForgetsWhatLeaves() throws {
        let store = LayoutStore(capacityBytes: 1 << 30) { _ in }
        let small = try layout()
        for name in ["c", "a", "b", "d"] { _ = store.store(small, forKey: LayoutKey(name: name), cause: .prepare) }
        _ = store.store(small, forKey: LayoutKey(namespace: "alice", name: "a"), cause: .prepare)
        _ = store.drop(LayoutKey(name: "b"))
        _ = store.release(LayoutKey(name: "d"))
        let page = store.listing(KeyPage(namespace: "", limit: 10))
        #expect(page.entries.map(\.key.name) == ["a", "c"] && !page.more)
        #expect(page.entries.allSatisfy { $0.summary?.version == 1 && $0.summary?.items == 3 })
        let admin = store.listing(KeyPage(namespace: nil, limit: 2))
        #expect(admin.entries.map(\.key) == [LayoutKey(name: "a"), LayoutKey(name: "c")] && admin.more)
        let next = store.listing(KeyPage(namespace: nil, after: LayoutKey(name: "c"), limit: 2))
        #expect(next.entries.map(\.key) == [LayoutKey(namespace: "alice", name: "a")] && !next.more)
    }

    @Test func anEvictedKeyLeavesTheListWithoutAJournalAndStaysWithOne() throws {
        let small = try layout(items: 10)
        for backing in [LayoutStore.Backing.memoryOnly, .journal] {
            // Room for one such layout only: storing b evicts a.
            let store = LayoutStore(capacityBytes: small.byteCount + small.byteCount / 2, backing: backing) { _ in }
            _ = store.store(small, forKey: "a", cause: .prepare)
            _ = store.store(small, forKey: "b", cause: .prepare)
            let listed = store.listing(KeyPage(namespace: "", limit: 10)).entries
            switch backing {
            case .memoryOnly:
                #expect(listed.map(\.key.name) == ["b"])
            case .journal:
                // a is still kept (by the journal): listed, with no summary from memory.
                #expect(listed.map(\.key.name) == ["a", "b"])
                #expect(listed[0].summary == nil && listed[1].summary != nil)
            }
        }
    }
}
