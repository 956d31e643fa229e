import Foundation
import LayoutClient
import Testing
import ZeroMQ
@testable import LayoutCluster
@testable import LayoutServer

/// A broker with CURVE over real sockets, with workers in this process: a client meets the same
/// security as against a single daemon (SecurityTests): who is admitted, namespaces across workers,
/// events, stats, reloads, and failover of namespaced keys.
@Suite(.serialized) struct ClusterClientSecurityTests {
    private let alice: CurveKeyPair
    private let bob: CurveKeyPair
    private let ops: CurveKeyPair

    init() throws {
        alice = try CurveKeyPair.generate()
        bob = try CurveKeyPair.generate()
        ops = try CurveKeyPair.generate()
    }

    /// A list job of `count` items, each `height` tall.
    private func job(count: Int, height: Double = 44) -> [String: Any] {
        ["bounds": ["width": 375, "height": 800], "spec": ["type": "list", "itemHeight": height], "sections": [["count": count]]]
    }

    private let everything = QueryRect(x: 0, y: 0, width: 375, height: 100_000)

    private func cluster(workers: Int = 2, heartbeatMilliseconds: Int = 1000, liveness: Int = 3) throws -> SecureTestCluster {
        try SecureTestCluster(
            workers: workers, clients: [listed(alice, "alice"), listed(bob, "bob"), listed(ops, "ops", admin: true)],
            admin: ops, heartbeatMilliseconds: heartbeatMilliseconds, liveness: liveness
        )
    }

    @Test func anUnlistedClientGetsNothingAndIsCounted() throws {
        let secured = try cluster()
        #expect(try secured.stats(admin: ops).int("authFailures") == 0)
        let stranger = try secured.client(CurveKeyPair.generate(), timeout: .milliseconds(400))
        #expect(throws: ClientError.timeout(endpoint: secured.frontEndpoint, after: .milliseconds(400))) { try stranger.ping() }
        stranger.close()
        // A plain ZeroMQ client is refused too.
        let plain = try secured.client(nil, timeout: .milliseconds(400))
        #expect(throws: ClientError.self) { try plain.ping() }
        plain.close()
        #expect(try secured.authFailures(atLeast: 2, admin: ops) >= 2)
        // The listed client is served all along.
        #expect(try secured.client(alice).ping().ok)
    }

    @Test func twoNamespacesWithTheSameKeyStaySeparate() throws {
        let secured = try cluster()
        let aliceClient = try secured.client(alice)
        let bobClient = try secured.client(bob)
        let admin = try secured.client(ops)
        #expect(try aliceClient.prepare(key: "feed", job: job(count: 5)).ok)
        #expect(try aliceClient.prepare(key: "only-alice", job: job(count: 2)).ok)
        #expect(try bobClient.prepare(key: "feed", job: job(count: 7)).ok)

        // Two keys at the broker, each at version 1 in its namespace.
        #expect(try secured.clusterStats(admin: ops).object("totals")?.int("keys") == 3)
        let aliceFeed = try aliceClient.query(key: "feed", rect: everything)
        let bobFeed = try bobClient.query(key: "feed", rect: everything)
        #expect(aliceFeed.result.objects("attributes")?.count == 5)
        #expect(bobFeed.result.objects("attributes")?.count == 7)
        #expect(aliceFeed.result.int("version") == 1 && bobFeed.result.int("version") == 1)
        // Alice's other layout does not exist for Bob, nor may he name her namespace.
        #expect(try bobClient.query(key: "only-alice", rect: everything).error?.code == .unknownLayout)
        #expect(try bobClient.query(key: "only-alice", rect: everything, namespace: "alice").error?.code == .unknownLayout)

        // Lists across the workers keep the daemon's namespaces.
        let bobList = try bobClient.list().result.objects("layouts") ?? []
        #expect(bobList.map { $0.string("layout") } == ["feed"])
        #expect(bobList.allSatisfy { $0.string("namespace") == nil })
        #expect((try aliceClient.list().result.objects("layouts") ?? []).map { $0.string("layout") } == ["feed", "only-alice"])
        let adminList = try admin.list().result.objects("layouts") ?? []
        #expect(adminList.map { "\($0.string("namespace") ?? "?")/\($0.string("layout") ?? "?")" } == ["alice/feed", "alice/only-alice", "bob/feed"])
        // An admin's query with a namespace reaches that namespace's key, wherever it lives.
        #expect(try admin.query(key: "feed", rect: everything, namespace: "alice").result.objects("attributes")?.count == 5)
        #expect(try admin.query(key: "feed", rect: everything, namespace: "bob").result.objects("attributes")?.count == 7)
        #expect(try admin.query(key: "feed", rect: everything).error?.code == .unknownLayout)

        // Alice drops hers; Bob's stays.
        #expect(try aliceClient.drop(key: "feed").result.int("version") == 2)
        #expect(try aliceClient.query(key: "feed", rect: everything).error?.code == .unknownLayout)
        let after = try bobClient.query(key: "feed", rect: everything)
        #expect(after.result.int("version") == 1)
        #expect(after.result.objects("attributes")?.count == 7)
    }

    @Test func aSubscriberReceivesOnlyItsOwnNamespacesEvents() throws {
        let secured = try cluster()
        let aliceClient = try secured.client(alice)
        let bobClient = try secured.client(bob)
        #expect(try aliceClient.prepare(key: "feed", job: job(count: 3)).ok)
        #expect(try bobClient.prepare(key: "feed", job: job(count: 3)).ok)

        let aliceEvents = try secured.subscriber(alice, prefixes: ["invalidated:"])
        // Bob tries to listen in on Alice: her key in front of the prefix gets him nothing.
        let eavesdropper = try Socket(.sub, in: secured.context)
        defer { eavesdropper.close() }
        try eavesdropper.makeCurveClient(keys: bob, serverKey: secured.keys.serverKeys.publicKey)
        try eavesdropper.connect(secured.eventsEndpoint)
        try eavesdropper.subscribe(Array(alice.publicKey.z85.utf8) + Array("invalidated:".utf8))
        try eavesdropper.subscribe("")
        let bobEvents = try secured.subscriber(bob, prefixes: ["invalidated:"])
        try secured.waitForSubscriptions(4, admin: ops)

        #expect(try bobClient.bounds(key: "feed", width: 300, height: 800).ok)     // bob's v2
        #expect(try aliceClient.drop(key: "feed").ok)                              // alice's v2

        let bobsEvent = try #require(try bobEvents.next(timeout: .seconds(5)))
        #expect(bobsEvent.topic == "invalidated:feed")
        #expect(bobsEvent.reason == "bounds")
        #expect(bobsEvent.version == 2)
        let alicesEvent = try #require(try aliceEvents.next(timeout: .seconds(5)))
        #expect(alicesEvent.topic == "invalidated:feed")
        #expect(alicesEvent.reason == "dropped")
        // Neither saw the other's event; the eavesdropper saw Bob's own (under his key), never Alice's.
        #expect(try aliceEvents.next(timeout: .milliseconds(300)) == nil)
        #expect(try bobEvents.next(timeout: .milliseconds(100)) == nil)
        try eavesdropper.set(.receiveTimeout, 300)
        var overheard: [String] = []
        while let frames = try eavesdropper.receiveMultipart() {
            #expect(frames.count == 2)
            overheard.append(String(decoding: frames[0], as: UTF8.self))
        }
        #expect(overheard == [bob.publicKey.z85 + "invalidated:feed"])
    }

    @Test func statsAnswerAdminsOnly() throws {
        let secured = try cluster(workers: 1)
        let stats = try secured.statsClient(ops).stats()
        #expect(stats.int("authFailures") == 0)
        #expect(stats.object("cluster")?.string("role") == "broker")
        // Anyone else gets no stats: the handshake is refused, so no reply comes.
        let refused = try secured.statsClient(alice, timeout: .milliseconds(400))
        #expect(throws: ClientError.self) { try refused.stats() }
        #expect(try secured.authFailures(atLeast: 1, admin: ops) >= 1)
    }

    @Test func aReloadRevokesKeysEvenOnOpenConnectionsAndDropsRevokedWorkers() throws {
        let carol = try CurveKeyPair.generate()
        // Short heartbeats drop the revoked worker soon; a liveness of 15 keeps the other one alive through
        // a loaded machine's stalls of up to 3 s (a revoked worker is dropped at its next heartbeat).
        let secured = try cluster(workers: 2, heartbeatMilliseconds: 200, liveness: 15)
        let aliceClient = try secured.client(alice, timeout: .milliseconds(400))
        #expect(try aliceClient.prepare(key: "feed", job: job(count: 3)).ok)
        #expect(throws: ClientError.self) { try secured.client(carol, timeout: .milliseconds(400)).ping() }

        // Carol replaces Alice, and worker-1's key goes: what SIGHUP does.
        try secured.allow([listed(carol, "carol"), listed(bob, "bob"), listed(ops, "ops", admin: true)], workers: [0])
        #expect(secured.cluster.broker.reloadClientKeys(logger: SecureTestDaemon.logger))
        #expect(try secured.client(carol).ping().ok)
        // Alice's connection was admitted before; her next request is refused all the same.
        #expect(throws: ClientError.self) { try aliceClient.ping() }
        // The revoked worker is dropped at its next heartbeat and cannot join again.
        try secured.cluster.waitForWorkers(1)
        let workers = try secured.clusterStats(admin: ops).objects("workers") ?? []
        #expect(workers.filter { $0.string("state") == "alive" }.map { $0.string("id") } == ["worker-0"])
        #expect(try secured.client(bob).prepare(key: "feed", job: job(count: 2)).ok)

        // A file that is not valid changes nothing.
        try "not a key\n".write(toFile: secured.keys.clientKeysFile, atomically: true, encoding: .utf8)
        #expect(!secured.cluster.broker.reloadClientKeys(logger: SecureTestDaemon.logger))
        #expect(try secured.client(carol).ping().ok)
    }

    @Test func aStoppedWorkersNamespacedKeysAreRebuiltInTheirNamespaces() throws {
        let secured = try cluster(workers: 2)
        let aliceClient = try secured.client(alice)
        let bobClient = try secured.client(bob)
        let names = (0..<6).map { "key-\($0)" }
        for name in names {
            #expect(try aliceClient.prepare(key: name, job: job(count: 4)).ok)
            #expect(try aliceClient.update(key: name, updates: [["delete": [0, 0]]]).ok)       // alice's at v2, 3 items
            #expect(try bobClient.prepare(key: name, job: job(count: 9)).ok)                    // bob's at v1, 9 items
        }
        let owned = try secured.clusterStats(admin: ops).objects("workers") ?? []
        let keysOnStopped = owned.first { $0.string("id") == "worker-0" }?.int("keys") ?? 0
        #expect(keysOnStopped > 0)

        secured.cluster.workers[0].stop()
        try secured.cluster.waitForWorkers(1)

        // Every key answers in its own namespace, at its version, with its own contents.
        for name in names {
            let aliceReply = try aliceClient.query(key: name, rect: everything)
            #expect(aliceReply.result.int("version") == 2)
            #expect(aliceReply.result.objects("attributes")?.count == 3)
            let bobReply = try bobClient.query(key: name, rect: everything)
            #expect(bobReply.result.int("version") == 1)
            #expect(bobReply.result.objects("attributes")?.count == 9)
        }
        let stats = try secured.clusterStats(admin: ops)
        #expect(stats.object("routing")?.int("restores") == keysOnStopped)
        #expect(stats.object("routing")?.int("lost") == 0)
        let adminList = try secured.client(ops).list().result.objects("layouts") ?? []
        #expect(adminList.count == 12)
        #expect(Set(adminList.compactMap { $0.string("namespace") }) == ["alice", "bob"])
    }
}
