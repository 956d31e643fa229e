import LayoutEngine
import LayoutWire
import Synchronization
import Testing
@testable import LayoutServer

@Suite struct LayoutStoreTests {
    private func layout(items: Int) throws -> PreparedLayout {
        try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 100, height: 100), parameters: .list(ListParameters()), sections: [Section(count: items)]))
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
        let store = LayoutStore(capacityBytes: small.byteCount + small.byteCount / 2) { changes.record($0) }
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
        let store = LayoutStore(capacityBytes: 2 * one.byteCount + one.byteCount / 2) { changes.record($0) }
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
        #expect(store.usage.count == 0 && store.usage.bytes == 0)
        #expect(!store.release("m"))
        #expect(store.store(try layout(items: 3), forKey: "m", cause: .prepare) == .stored(version: 1))
        #expect(changes.recorded.withLock { $0 }.isEmpty)
    }
}
