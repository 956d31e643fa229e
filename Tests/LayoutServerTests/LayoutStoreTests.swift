import LayoutEngine
import LayoutWire
import Synchronization
import Testing
@testable import LayoutServer

@Suite struct LayoutStoreTests {
    private func layout(items: Int) throws -> PreparedLayout {
        try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 100, height: 100), parameters: .list(ListParameters()), sections: [Section(count: items)]))
    }

    /// What the store's own tables take once it knows `keys` keys: a store without a bound, filled.
    private func tableBytes(keys: Int, of one: PreparedLayout) -> Int {
        let probe = LayoutStore(capacityBytes: .max) { _ in }
        for key in 0..<keys { _ = probe.store(one, forKey: LayoutKey(name: "t\(key)"), cause: .prepare) }
        return probe.usage.bytes - keys * one.byteCount
    }

    /// Records what the store publishes.
    private final class Changes: Sendable {
        let recorded = Mutex<[String]>([])
        func record(_ change: StoreChange) {
            recorded.withLock { list in
                switch change {
                case let .invalidated(key, version, reason, _, _): list.append("\(key) v\(version) \(reason.rawValue)")
                case let .batch(key, version, _, _): list.append("\(key) v\(version) batch")
                }
            }
        }
    }

    @Test func aChangeComputedFromAnEvictedLayoutIsRefusedAndPublishesNothing() throws {
        let changes = Changes()
        let small = try layout(items: 10)
        // Room for one such layout only: storing b evicts a.
        let store = LayoutStore(capacityBytes: small.byteCount + small.byteCount / 2 + tableBytes(keys: 2, of: small)) { changes.record($0) }
        #expect(store.store(small, forKey: "a", cause: .prepare) == .stored(version: 1))
        let readForUpdate = try #require(store.entry(forKey: "a"))
        #expect(store.store(small, forKey: "b", cause: .prepare) == .stored(version: 1))
        #expect(store.entry(forKey: "a") == nil)
        // The update of a, computed from version 1, must not bring a back.
        #expect(store.store(small, forKey: "a", cause: .batch([]), expectedVersion: readForUpdate.version) == .stale)
        #expect(store.entry(forKey: "a") == nil)
        #expect(changes.recorded.withLock { $0 } == ["a v2 evicted"])
    }

    @Test func aChangeFromTheCurrentVersionIsKeptAndPublished() throws {
        let changes = Changes()
        let store = LayoutStore(capacityBytes: 1 << 20) { changes.record($0) }
        #expect(store.store(try layout(items: 3), forKey: "k", cause: .prepare) == .stored(version: 1))
        #expect(store.store(try layout(items: 4), forKey: "k", cause: .bounds, expectedVersion: 1) == .stored(version: 2))
        #expect(store.store(try layout(items: 4), forKey: "k", cause: .bounds, expectedVersion: 1) == .stale)
        #expect(changes.recorded.withLock { $0 } == ["k v2 bounds"])
    }

    @Test func evictionTakesTheLeastRecentlyUsedFirst() throws {
        let changes = Changes()
        let one = try layout(items: 10)
        let store = LayoutStore(capacityBytes: 2 * one.byteCount + one.byteCount / 2 + tableBytes(keys: 3, of: one)) { changes.record($0) }
        _ = store.store(one, forKey: "a", cause: .prepare)
        _ = store.store(one, forKey: "b", cause: .prepare)
        _ = store.entry(forKey: "a")
        _ = store.store(one, forKey: "c", cause: .prepare)
        #expect(changes.recorded.withLock { $0 } == ["b v2 evicted"])
        #expect(store.usage.count == 2)
        #expect(store.store(try layout(items: 100_000), forKey: "huge", cause: .prepare) == .tooLarge)
    }

    @Test func aRestoredLayoutKeepsItsVersionAndPublishesNothing() throws {
        let changes = Changes()
        let store = LayoutStore(capacityBytes: 1 << 20) { changes.record($0) }
        #expect(store.restore(try layout(items: 5), forKey: "k", version: 7) == .stored(version: 7))
        #expect(store.entry(forKey: "k")?.version == 7)
        // The count continues from the restored version, as if this store had made every change.
        #expect(store.store(try layout(items: 6), forKey: "k", cause: .prepare) == .stored(version: 8))
        #expect(changes.recorded.withLock { $0 } == ["k v8 replaced"])
    }

    @Test func aVersionOnlyRestoreContinuesTheCountAndVersionZeroForgetsIt() throws {
        let changes = Changes()
        let store = LayoutStore(capacityBytes: 1 << 20) { changes.record($0) }
        #expect(store.restore(nil, forKey: "gone", version: 4) == .stored(version: 4))
        #expect(store.entry(forKey: "gone") == nil)
        #expect(store.store(try layout(items: 1), forKey: "gone", cause: .prepare) == .stored(version: 5))
        // Version 0: never kept here, so a first prepare is version 1 and publishes nothing.
        _ = store.restore(nil, forKey: "fresh", version: 0)
        #expect(store.store(try layout(items: 1), forKey: "fresh", cause: .prepare) == .stored(version: 1))
        #expect(changes.recorded.withLock { $0 } == ["gone v5 replaced"])
    }

    @Test func releaseForgetsLayoutAndVersionSilently() throws {
        let changes = Changes()
        let store = LayoutStore(capacityBytes: 1 << 20) { changes.record($0) }
        _ = store.store(try layout(items: 3), forKey: "m", cause: .prepare)
        #expect(store.release("m"))
        #expect(store.entry(forKey: "m") == nil)
        // Only the tables' emptied room is left.
        let oneLayout = try layout(items: 3).byteCount
        #expect(store.usage.count == 0 && store.usage.bytes < oneLayout)
        #expect(!store.release("m"))
        #expect(store.store(try layout(items: 3), forKey: "m", cause: .prepare) == .stored(version: 1))
        #expect(changes.recorded.withLock { $0 }.isEmpty)
    }

    @Test func whatAKeyCostsIncludesTheTablesAndWhatOthersKeepPerKey() throws {
        let one = try layout(items: 20)
        let store = LayoutStore(capacityBytes: .max, perKeyBytes: 100) { _ in }
        for key in 0..<1_000 { _ = store.store(one, forKey: LayoutKey(name: "k\(key)"), cause: .prepare) }
        let usage = store.usage
        #expect(usage.count == 1_000)
        // The tables take room beyond the layouts and the 100 bytes a key kept elsewhere.
        #expect(usage.bytes > 1_000 * (one.byteCount + 100))
        let summary = try #require(store.summary(forKey: "k7"))
        #expect(summary.bytes > one.byteCount + 100)
        // The keys' shares add up to what the store counts, give or take rounding.
        let shares = store.summaries().reduce(0) { $0 + $1.bytes }
        #expect(abs(shares - usage.bytes) <= 1_000)
    }

    @Test func evictionAmongManyKeysKeepsTheRecentlyUsed() throws {
        let one = try layout(items: 20)
        let changes = Changes()
        let keys = 2_000
        let store = LayoutStore(capacityBytes: keys / 2 * one.byteCount + tableBytes(keys: keys, of: one)) { changes.record($0) }
        for key in 0..<keys {
            _ = store.store(one, forKey: LayoutKey(name: "k\(key)"), cause: .prepare)
            // Key 0 is read after every store: it is never the least recently used.
            if key > 0 { #expect(store.entry(forKey: "k0") != nil) }
        }
        #expect(store.usage.count >= keys / 2 - 1 && store.usage.count < keys)
        #expect(store.usage.bytes <= store.capacityBytes)
        // The oldest others went first, in the order they were stored.
        let evicted = changes.recorded.withLock { $0 }
        #expect(evicted.first == "k1 v2 evicted")
        #expect(evicted == (1...evicted.count).map { "k\($0) v2 evicted" })
        // An evicted key keeps its version: its next prepare goes on from it.
        #expect(store.store(one, forKey: "k1", cause: .prepare) == .stored(version: 3))
    }
}
