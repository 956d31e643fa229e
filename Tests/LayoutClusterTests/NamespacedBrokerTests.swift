import Foundation
import LayoutServer
import LayoutWire
import Testing
@testable import LayoutCluster

/// A broker with CURVE, driven step by step: each caller's keys are keys of their own namespace in the
/// broker's table, its routing, recipes, rebuilds, lists and events.
@Suite struct NamespacedBrokerTests {
    private let alice = Caller(namespace: "alice", isAdmin: false)
    private let bob = Caller(namespace: "bob", isAdmin: false)
    private let ops = Caller(namespace: "ops", isAdmin: true)

    private func owner(of key: LayoutKey, in cluster: SimulatedCluster) -> String? {
        cluster.core.keys[key]?.owner?.name
    }

    private func result(_ envelope: [[UInt8]], in cluster: SimulatedCluster) -> [String: Any]? {
        cluster.reply(for: envelope)?["result"] as? [String: Any]
    }

    private func items(_ envelope: [[UInt8]], in cluster: SimulatedCluster) -> Int? {
        (result(envelope, in: cluster)?["attributes"] as? [Any])?.count
    }

    @Test func sameNamedKeysOfTwoNamespacesAreTwoKeysAndFailOverInTheirNamespaces() throws {
        let cluster = SimulatedCluster(secured: true)
        cluster.join("a")
        cluster.join("b")
        let names = (0..<16).map { "k\($0)" }
        for name in names {
            cluster.request(prepareBody(name, count: 5), as: alice)
            cluster.request(prepareBody(name, count: 9), as: bob)
        }
        cluster.request(updateBody("k0", insert: "x"), as: alice)
        cluster.deliverAll()
        #expect(cluster.core.keys.count == 32)
        // Routed by the namespaced key: some of alice's and bob's same-named keys live apart.
        #expect(names.contains { owner(of: LayoutKey(namespace: "alice", name: $0), in: cluster) != owner(of: LayoutKey(namespace: "bob", name: $0), in: cluster) })
        for name in names {
            let key = LayoutKey(namespace: "alice", name: name)
            #expect(cluster.workers[owner(of: key, in: cluster) ?? ""]?.store.entry(forKey: key) != nil)
        }

        let dead = try #require(owner(of: LayoutKey(namespace: "alice", name: "k0"), in: cluster))
        let survivor = dead == "a" ? "b" : "a"
        cluster.kill(dead)
        cluster.deliverAll()
        let headers = cluster.sent.compactMap(\.order.restoreHeader)
        #expect(headers.contains(RestoreHeader(layout: "k0", namespace: "alice", version: 2, base: 1)))
        // Each key answers in its namespace, at its version, with its contents; nothing was lost.
        for name in names {
            let aliceQuery = cluster.request(queryBody(name), as: alice)
            let bobQuery = cluster.request(queryBody(name), as: bob)
            cluster.deliverAll()
            #expect(result(aliceQuery, in: cluster)?["version"] as? Int == (name == "k0" ? 2 : 1))
            #expect(items(aliceQuery, in: cluster) == (name == "k0" ? 6 : 5))
            #expect(result(bobQuery, in: cluster)?["version"] as? Int == 1)
            #expect(items(bobQuery, in: cluster) == 9)
            #expect(cluster.workers[survivor]?.store.entry(forKey: LayoutKey(namespace: "bob", name: name)) != nil)
        }
        #expect(cluster.core.counters.lost == 0)
        #expect(cluster.published.isEmpty)
    }

    @Test func anAdminsQueryOfANamespaceGoesToThatKeysOwnerAndListsShowEveryNamespace() throws {
        let cluster = SimulatedCluster(secured: true)
        cluster.join("a")
        cluster.join("b")
        for name in ["feed", "wall", "zeta"] { cluster.request(prepareBody(name, count: 3), as: alice) }
        cluster.request(prepareBody("feed", count: 7), as: bob)
        cluster.deliverAll()

        let query = #"{"v":1,"id":"q","op":"query","layout":"feed","namespace":"bob","rect":{"x":0,"y":0,"width":320,"height":100000}}"#
        let admins = cluster.request(query, as: ops)
        let bobsOwner = try #require(owner(of: LayoutKey(namespace: "bob", name: "feed"), in: cluster))
        #expect(cluster.orders(to: bobsOwner).count == 1)
        cluster.deliverAll()
        #expect(items(admins, in: cluster) == 7)
        // Anyone else naming another namespace learns nothing of it, as from a single daemon.
        let alices = cluster.request(query, as: alice)
        cluster.deliverAll()
        #expect((cluster.reply(for: alices)?["error"] as? [String: Any])?["code"] as? String == "unknown_layout")

        let adminList = cluster.request(#"{"v":1,"id":"l","op":"list"}"#, as: ops)
        let aliceList = cluster.request(#"{"v":1,"id":"l","op":"list"}"#, as: alice)
        cluster.deliverAll()
        let all = try #require(result(adminList, in: cluster)?["layouts"] as? [[String: Any]])
        #expect(all.map { "\($0["namespace"] as? String ?? "?")/\($0["layout"] as? String ?? "?")" } == ["alice/feed", "alice/wall", "alice/zeta", "bob/feed"])
        let own = try #require(result(aliceList, in: cluster)?["layouts"] as? [[String: Any]])
        #expect(own.map { $0["layout"] as? String } == ["feed", "wall", "zeta"])
        #expect(own.allSatisfy { $0["namespace"] == nil })
    }

    @Test func aLostNamespacedKeyIsPublishedToItsNamespace() throws {
        let cluster = SimulatedCluster(recipeBytes: 10, secured: true)
        cluster.join("a")
        cluster.join("b")
        cluster.request(prepareBody("feed"), as: alice)
        cluster.deliverAll()
        cluster.kill(try #require(owner(of: LayoutKey(namespace: "alice", name: "feed"), in: cluster)))
        let event = try #require(cluster.published.first)
        #expect(String(decoding: event.topic, as: UTF8.self) == "invalidated:feed")
        #expect(cluster.publishedNamespaces == ["alice"])
        // Bob's "feed" never existed; alice's count continues past the loss.
        let again = cluster.request(prepareBody("feed"), as: alice)
        let bobs = cluster.request(prepareBody("feed"), as: bob)
        cluster.deliverAll()
        #expect(result(again, in: cluster)?["version"] as? Int == 3)
        #expect(result(bobs, in: cluster)?["version"] as? Int == 1)
    }

    @Test func keysNoClientCanReachAreReleasedAtReady() {
        let shared = LayoutKey(name: "feed")
        let alices = LayoutKey(namespace: "alice", name: "feed")
        let secured = SimulatedCluster(secured: true)
        secured.join("a", keys: [.init(key: shared, version: 3), .init(key: alices, version: 4)])
        #expect(secured.core.keys.keys.sorted() == [alices])
        #expect(secured.sent.compactMap { $0.order.releasedKeys }.flatMap { $0 } == [shared])

        let open = SimulatedCluster()
        open.join("a", keys: [.init(key: shared, version: 3), .init(key: alices, version: 4)])
        #expect(open.core.keys.keys.sorted() == [shared])
        #expect(open.sent.compactMap { $0.order.releasedKeys }.flatMap { $0 } == [alices])
    }

    @Test func aBrokerWithCurveRefusesWorkersOfTheProtocolBeforeNamespaces() {
        let old = ReadyInfo(extensionVersion: WorkerProtocol.namespacelessVersion, workerID: "old", credit: 8, threads: 1, keys: [])
        let secured = SimulatedCluster(secured: true)
        secured.core.workerReady(routingID: Array("old".utf8), ready: old, fileDescriptor: 7, address: "127.0.0.1", now: secured.clock)
        #expect(secured.core.live.isEmpty)
        let open = SimulatedCluster()
        open.core.workerReady(routingID: Array("old".utf8), ready: old, fileDescriptor: 7, address: "127.0.0.1", now: open.clock)
        #expect(open.core.live.map(\.name) == ["old"])
    }

    /// With CURVE the `route` event's audience: a key's owner or epoch concerns its namespace alone, a
    /// change of the live workers every namespace. The keys that changed are recorded with and without
    /// CURVE (the event names them), each namespace's event naming its own.
    @Test func routeChangesAreRecordedPerNamespaceWithCurve() throws {
        let cluster = SimulatedCluster(secured: true)
        cluster.join("a")
        #expect(cluster.core.takeRouteChanges() == RouteChanges(everyone: true))
        #expect(cluster.core.takeRouteChanges() == RouteChanges())

        cluster.request(prepareBody("feed"), as: alice)
        cluster.deliverAll()
        #expect(cluster.core.takeRouteChanges() == RouteChanges(namespaces: ["alice"], keys: [LayoutKey(namespace: "alice", name: "feed")]))
        cluster.request(prepareBody("feed"), as: bob)
        cluster.request(prepareBody("wall"), as: ops)
        cluster.deliverAll()
        #expect(cluster.core.takeRouteChanges() == RouteChanges(namespaces: ["bob", "ops"], keys: [LayoutKey(namespace: "bob", name: "feed"), LayoutKey(namespace: "ops", name: "wall")]))
        // Each namespace's event names its own keys; the event for everyone alike (the loop's, until it
        // asks per namespace) names none.
        #expect(try routeEventNames(cluster.core.routeEvent(in: "bob")) == ["feed"])
        #expect(try routeEventNames(cluster.core.routeEvent(in: "alice")) == [])
        #expect(try routeEventNames(cluster.core.routeEvent) == nil)
        // A change of a key's contents is no change of the table.
        cluster.request(updateBody("feed", insert: "x"), as: alice)
        cluster.deliverAll()
        #expect(cluster.core.takeRouteChanges() == RouteChanges())

        // Keys moving to a worker that joins are part of the change everyone hears of.
        cluster.join("b")
        cluster.deliverAll()
        let versionBeforeLeaving = cluster.core.routeVersion
        #expect(cluster.core.takeRouteChanges().everyone)
        cluster.kill("b")
        cluster.deliverAll()
        #expect(cluster.core.routeVersion > versionBeforeLeaving)
        #expect(cluster.core.takeRouteChanges() == RouteChanges(everyone: true))

        let open = SimulatedCluster()
        open.join("a")
        #expect(open.core.takeRouteChanges() == RouteChanges(everyone: true))
        #expect(try routeEventNames(open.core.routeEvent) == nil)
        open.request(prepareBody("feed"))
        open.deliverAll()
        #expect(open.core.routeVersion > 0)
        #expect(open.core.takeRouteChanges() == RouteChanges(keys: ["feed"]))
        #expect(try routeEventNames(open.core.routeEvent) == ["feed"])
    }
}

/// The `layouts` a `route` event names; nil when it names none.
private func routeEventNames(_ event: WireEvent) throws -> [String]? {
    let body = try JSONSerialization.jsonObject(with: Data(event.body)) as? [String: Any]
    return body?["layouts"] as? [String]
}
