import LayoutEngine
import Synchronization
import Testing
@testable import LayoutServer

/// The store keeps layouts per (namespace, key): what CURVE's per-client namespaces rest on.
@Suite struct NamespacedStoreTests {
    private func layout(items: Int) throws -> PreparedLayout {
        try PreparedLayout.prepare(LayoutInput(bounds: Size(width: 100, height: 100), parameters: .list(ListParameters()), sections: [Section(count: items)]))
    }

    @Test func oneNameInTwoNamespacesIsTwoLayoutsWithVersionsOfTheirOwn() throws {
        let published = Mutex<[String]>([])
        let store = LayoutStore(capacityBytes: 1 << 20) { change in
            if case let .invalidated(key, version, reason, _, _) = change {
                published.withLock { $0.append("\(key.namespace)|\(key.name) v\(version) \(reason.rawValue)") }
            }
        }
        let alice = LayoutKey(namespace: "alice", name: "feed")
        let bob = LayoutKey(namespace: "bob", name: "feed")
        #expect(store.store(try layout(items: 3), forKey: alice, cause: .prepare) == .stored(version: 1))
        #expect(store.store(try layout(items: 5), forKey: bob, cause: .prepare) == .stored(version: 1))
        #expect(store.store(try layout(items: 4), forKey: bob, cause: .prepare) == .stored(version: 2))
        #expect(store.entry(forKey: alice)?.layout.itemCount == 3)
        #expect(store.entry(forKey: bob)?.layout.itemCount == 4)
        #expect(store.entry(forKey: "feed") == nil, "the shared namespace has no feed")

        #expect(try store.drop(alice).get() == 2)
        #expect(store.entry(forKey: bob)?.version == 2)
        #expect(published.withLock { $0 } == ["bob|feed v2 replaced", "alice|feed v2 dropped"])
    }

    @Test func summariesOfOneNamespaceOrOfAll() throws {
        let store = LayoutStore(capacityBytes: 1 << 20) { _ in }
        _ = store.store(try layout(items: 1), forKey: LayoutKey(namespace: "b", name: "x"), cause: .prepare)
        _ = store.store(try layout(items: 1), forKey: LayoutKey(namespace: "a", name: "y"), cause: .prepare)
        _ = store.store(try layout(items: 1), forKey: LayoutKey(namespace: "a", name: "x"), cause: .prepare)
        #expect(store.summaries(in: "a").map(\.key.name) == ["x", "y"])
        #expect(store.summaries().map(\.key.description) == ["a/x", "a/y", "b/x"])
        #expect(store.summaries(in: "").isEmpty)
    }

    @Test func theSchedulingKeyIsTheNameAloneInTheSharedNamespace() {
        #expect(LayoutKey(name: "feed").schedulingKey == "feed")
        #expect(LayoutKey(namespace: "alice", name: "feed").schedulingKey != LayoutKey(namespace: "bob", name: "feed").schedulingKey)
    }
}
