import Foundation
import LayoutClient
import Testing
import ZeroMQ
@testable import LayoutServer

/// A daemon with CURVE over real sockets: who is admitted, what each client sees, reloads.
@Suite(.serialized) struct SecurityTests {
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

    private func items(of reply: Reply) -> Int? {
        reply.result.object("counts")?.int("items")
    }

    @Test func aListedClientIsServed() throws {
        let daemon = try SecureTestDaemon(clients: [listed(alice, "alice")])
        let client = try daemon.client(alice)
        #expect(try client.ping().ok)
        #expect(try client.prepare(key: "feed", job: job(count: 3)).ok)
        let reply = try client.query(key: "feed", items: [ItemLocation(section: 0, item: 2)])
        #expect(reply.ok)
        #expect(reply.result.objects("attributes")?.first?.double("y") == 88)
    }

    /// Three ways not to be admitted.
    enum Stranger: String, CaseIterable, CustomTestStringConvertible {
        /// An unlisted key that knows the server's public key: refused by the ZAP handler.
        case unlistedKey
        /// Plain ZeroMQ: refused at the handshake, before any ZAP request.
        case plainZeroMQ
        /// A listed key with a wrong server key: its handshake does not decrypt.
        case wrongServerKey

        var testDescription: String { rawValue }
    }

    @Test(arguments: Stranger.allCases)
    func aStrangerGetsNothingAndIsCounted(stranger: Stranger) throws {
        let daemon = try SecureTestDaemon(clients: [listed(alice, "alice"), listed(ops, "ops", admin: true)])
        #expect(try daemon.stats(admin: ops).int("authFailures") == 0)
        let client: LayoutClient
        switch stranger {
        case .unlistedKey:
            client = try daemon.client(CurveKeyPair.generate(), timeout: .milliseconds(400))
        case .plainZeroMQ:
            client = try daemon.client(nil, timeout: .milliseconds(400))
        case .wrongServerKey:
            client = try LayoutClient(
                endpoint: daemon.running.frontEndpoint, context: daemon.context, timeout: .milliseconds(400),
                curve: CurveCredentials(clientKeys: alice, serverKey: bob.publicKey)
            )
        }
        #expect(throws: ClientError.timeout(endpoint: daemon.running.frontEndpoint, after: .milliseconds(400))) { try client.ping() }
        client.close()
        #expect(try daemon.authFailures(atLeast: 1, admin: ops) >= 1)
        // The listed client is served all along.
        #expect(try daemon.client(alice).ping().ok)
    }

    @Test func twoClientsWithTheSameKeySeeOnlyTheirOwn() throws {
        let daemon = try SecureTestDaemon(clients: [listed(alice, "alice"), listed(bob)])
        let aliceClient = try daemon.client(alice)
        let bobClient = try daemon.client(bob)
        #expect(try aliceClient.prepare(key: "feed", job: job(count: 5)).ok)
        #expect(try aliceClient.prepare(key: "only-alice", job: job(count: 2)).ok)
        #expect(try bobClient.prepare(key: "feed", job: job(count: 7)).ok)

        // Each client's "feed" is its own: no collision, no overwrite (both at version 1).
        let aliceFeed = try aliceClient.query(key: "feed", rect: QueryRect(x: 0, y: 0, width: 375, height: 10_000))
        let bobFeed = try bobClient.query(key: "feed", rect: QueryRect(x: 0, y: 0, width: 375, height: 10_000))
        #expect(aliceFeed.result.objects("attributes")?.count == 5)
        #expect(bobFeed.result.objects("attributes")?.count == 7)
        #expect(aliceFeed.result.int("version") == 1 && bobFeed.result.int("version") == 1)

        // Alice's other layout does not exist for Bob, whatever he does with it.
        let unknown = ReplyError.Code.unknownLayout
        #expect(try bobClient.query(key: "only-alice", items: [ItemLocation(section: 0, item: 0)]).error?.code == unknown)
        #expect(try bobClient.bounds(key: "only-alice", width: 100, height: 100).error?.code == unknown)
        #expect(try bobClient.update(key: "only-alice", updates: [["delete": [0, 0]]]).error?.code == unknown)
        #expect(try bobClient.diff(key: "only-alice", sections: [["count": 1]]).error?.code == unknown)
        #expect(try bobClient.drop(key: "only-alice").error?.code == unknown)
        // Nor may he name Alice's namespace.
        #expect(try bobClient.query(key: "only-alice", items: [ItemLocation(section: 0, item: 0)], namespace: "alice").error?.code == unknown)

        // Lists are per client, in the wire's own terms (no namespace shown).
        let bobList = try bobClient.list().result.objects("layouts") ?? []
        #expect(bobList.map { $0.string("layout") } == ["feed"])
        #expect(bobList.allSatisfy { $0.string("namespace") == nil })
        #expect((try aliceClient.list().result.objects("layouts") ?? []).map { $0.string("layout") } == ["feed", "only-alice"])

        // Alice's layout is untouched by all of that.
        let after = try aliceClient.query(key: "only-alice", items: [ItemLocation(section: 0, item: 1)])
        #expect(after.result.int("version") == 1)
        #expect(after.result.objects("attributes")?.count == 1)
    }

    @Test func aSubscriberReceivesOnlyItsOwnNamespacesEvents() throws {
        let daemon = try SecureTestDaemon(clients: [listed(alice, "alice"), listed(bob, "bob"), listed(ops, "ops", admin: true)])
        let aliceClient = try daemon.client(alice)
        let bobClient = try daemon.client(bob)
        #expect(try aliceClient.prepare(key: "feed", job: job(count: 3)).ok)
        #expect(try bobClient.prepare(key: "feed", job: job(count: 3)).ok)

        let aliceEvents = try daemon.subscriber(alice, prefixes: ["invalidated:"])
        // Bob tries to listen in on Alice: her key in front of the prefix gets him nothing.
        let eavesdropper = try Socket(.sub, in: daemon.context)
        try eavesdropper.makeCurveClient(keys: bob, serverKey: daemon.keys.serverKeys.publicKey)
        try eavesdropper.connect(daemon.running.eventsEndpoint)
        try eavesdropper.subscribe(Array(alice.publicKey.z85.utf8) + Array("invalidated:".utf8))
        try eavesdropper.subscribe("")
        let bobEvents = try daemon.subscriber(bob, prefixes: ["invalidated:"])
        try daemon.waitForSubscriptions(4, admin: ops)

        #expect(try bobClient.bounds(key: "feed", width: 300, height: 800).ok)     // bob's v2
        #expect(try aliceClient.drop(key: "feed").ok)                              // alice's v2

        let bobsEvent = try #require(try bobEvents.next(timeout: .seconds(5)))
        #expect(bobsEvent.topic == "invalidated:feed")
        #expect(bobsEvent.reason == "bounds")
        let alicesEvent = try #require(try aliceEvents.next(timeout: .seconds(5)))
        #expect(alicesEvent.topic == "invalidated:feed")
        #expect(alicesEvent.reason == "dropped")
        // Neither saw the other's event; the eavesdropper saw Bob's own (under his key), never Alice's.
        #expect(try aliceEvents.next(timeout: .milliseconds(300)) == nil)
        #expect(try bobEvents.next(timeout: .milliseconds(100)) == nil)
        try eavesdropper.set(.receiveTimeout, 300)
        var overheard: [String] = []
        while let frames = try eavesdropper.receiveMultipart() {
            overheard.append(String(decoding: frames[0], as: UTF8.self))
        }
        #expect(overheard == [bob.publicKey.z85 + "invalidated:feed"])
    }

    @Test func anAdminReadsEveryNamespaceAndTheStats() throws {
        let daemon = try SecureTestDaemon(clients: [listed(alice, "alice"), listed(bob), listed(ops, "ops", admin: true)])
        #expect(try daemon.client(alice).prepare(key: "feed", job: job(count: 4)).ok)
        #expect(try daemon.client(bob).prepare(key: "feed", job: job(count: 6)).ok)
        let admin = try daemon.client(ops)

        let layouts = try admin.list().result.objects("layouts") ?? []
        let seen = Set(layouts.map { "\($0.string("namespace") ?? "?")/\($0.string("layout") ?? "?")" })
        #expect(seen == ["alice/feed", "\(bob.publicKey.z85)/feed"])

        let aliceFeed = try admin.query(key: "feed", rect: QueryRect(x: 0, y: 0, width: 375, height: 10_000), namespace: "alice")
        #expect(aliceFeed.result.objects("attributes")?.count == 4)
        let bobFeed = try admin.query(key: "feed", rect: QueryRect(x: 0, y: 0, width: 375, height: 10_000), namespace: bob.publicKey.z85)
        #expect(bobFeed.result.objects("attributes")?.count == 6)
        // Without a namespace, an admin works in its own, like anyone.
        #expect(try admin.query(key: "feed", items: [ItemLocation(section: 0, item: 0)]).error?.code == .unknownLayout)

        #expect(try daemon.statsClient(ops).stats().int("authFailures") == 0)
        // Anyone else gets no stats: the handshake is refused, so no reply comes.
        let refused = try daemon.statsClient(alice, timeout: .milliseconds(400))
        #expect(throws: ClientError.self) { try refused.stats() }
        #expect(try daemon.authFailures(atLeast: 1, admin: ops) >= 1)
    }

    @Test func aReloadAdmitsNewKeysAndRefusesRemovedOnesEvenOnOpenConnections() throws {
        let carol = try CurveKeyPair.generate()
        let daemon = try SecureTestDaemon(clients: [listed(alice, "alice"), listed(ops, "ops", admin: true)])
        let aliceClient = try daemon.client(alice, timeout: .milliseconds(400))
        #expect(try aliceClient.ping().ok)
        #expect(throws: ClientError.self) { try daemon.client(carol, timeout: .milliseconds(400)).ping() }

        // Carol replaces Alice: what SIGHUP does.
        try daemon.keys.allow([listed(carol, "carol"), listed(ops, "ops", admin: true)])
        #expect(daemon.running.reloadClientKeys(logger: SecureTestDaemon.logger))
        #expect(try daemon.client(carol).ping().ok)
        // Alice's connection was admitted before; her next request is refused all the same.
        #expect(throws: ClientError.self) { try aliceClient.ping() }

        // A file that is not valid changes nothing.
        try "not a key\n".write(toFile: daemon.keys.clientKeysFile, atomically: true, encoding: .utf8)
        #expect(!daemon.running.reloadClientKeys(logger: SecureTestDaemon.logger))
        #expect(try daemon.client(carol).ping().ok)
    }

    @Test func clientsThatShareANameShareANamespace() throws {
        // Key rotation: the old and the new key listed under one name for a while.
        let newAlice = try CurveKeyPair.generate()
        let daemon = try SecureTestDaemon(clients: [listed(alice, "alice"), listed(newAlice, "alice")])
        #expect(try daemon.client(alice).prepare(key: "feed", job: job(count: 2)).ok)
        let reply = try daemon.client(newAlice).query(key: "feed", items: [ItemLocation(section: 0, item: 1)])
        #expect(reply.result.objects("attributes")?.count == 1)
    }

    @Test func aDaemonWithoutCurveRefusesNothingAndSharesOneNamespace() throws {
        let daemon = try TestDaemon()
        #expect(try daemon.call(mosaicJob(key: "feed")).ok)
        let list = try daemon.call(#"{"v":1,"id":1,"op":"list"}"#)
        let layouts = list.result["layouts"] as? [[String: Any]] ?? []
        #expect(layouts.map { $0["layout"] as? String } == ["feed"])
        #expect(layouts.allSatisfy { $0["namespace"] == nil })
        #expect(try daemon.stats()["authFailures"] as? Int == 0)
    }
}
