import Foundation
import LayoutClient
import Testing
import ZeroMQ
@testable import LayoutCluster
@testable import LayoutServer

/// An admin's `list` in pages with CURVE (PROTOCOL.md §5.8): over every namespace, with cursors of
/// `"<namespace>|<key>"`, on a single daemon and on a broker with two workers; a client's pages stay in
/// its own namespace.
@Suite(.serialized) struct AdminListPagesTests {
    private let alice: CurveKeyPair
    private let bob: CurveKeyPair
    private let ops: CurveKeyPair

    init() throws {
        alice = try CurveKeyPair.generate()
        bob = try CurveKeyPair.generate()
        ops = try CurveKeyPair.generate()
    }

    private func job() -> [String: Any] {
        ["bounds": ["width": 375, "height": 800], "spec": ["type": "list"], "sections": [["count": 2]]]
    }

    /// Prepares Alice's keys and Bob's (a namespace named by his public key, which may hold `/`), then
    /// walks the admin's pages and Alice's.
    private func check(aliceClient: LayoutClient, bobClient: LayoutClient, admin: LayoutClient) throws {
        let aliceKeys = ["a-0", "a-1", "a-2", "shared"]
        let bobKeys = ["b|0", "b/1", "shared"]
        for key in aliceKeys { #expect(try aliceClient.prepare(key: key, job: job()).ok) }
        for key in bobKeys { #expect(try bobClient.prepare(key: key, job: job()).ok) }
        let bobNamespace = bob.publicKey.z85
        let expected = (aliceKeys.map { ("alice", $0) } + bobKeys.map { (bobNamespace, $0) })
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map { "\($0.0)|\($0.1)" }

        var walked: [String] = []
        var after: String?
        var pages = 0
        repeat {
            let reply = try admin.list(after: after, limit: 2)
            #expect(reply.ok, "\(reply.object)")
            let layouts = reply.result.objects("layouts") ?? []
            #expect(layouts.count <= 2)
            walked += layouts.map { "\($0.string("namespace") ?? "?")|\($0.string("layout") ?? "?")" }
            after = reply.result.string("next")
            if let after { #expect(after == walked.last) }
            pages += 1
        } while after != nil && pages < 10
        #expect(walked == expected)

        // The prefix applies to the key within each namespace.
        let shared = try admin.list(prefix: "sh").result.objects("layouts") ?? []
        #expect(shared.map { "\($0.string("namespace") ?? "?")|\($0.string("layout") ?? "?")" } == ["alice|shared", "\(bobNamespace)|shared"].sorted())

        // A client's pages name its own keys only, with plain cursors.
        let first = try aliceClient.list(limit: 3)
        #expect((first.result.objects("layouts") ?? []).map { $0.string("layout") } == ["a-0", "a-1", "a-2"])
        #expect(first.result.string("next") == "a-2")
        let rest = try aliceClient.listAll(pageSize: 3)
        #expect(rest.layouts.compactMap { $0.string("layout") } == aliceKeys)
        #expect((try bobClient.listAll(pageSize: 1)).layouts.compactMap { $0.string("layout") } == bobKeys.sorted())
    }

    @Test func anAdminPagesThroughEveryNamespaceOnADaemon() throws {
        let daemon = try SecureTestDaemon(clients: [listed(alice, "alice"), listed(bob), listed(ops, "ops", admin: true)])
        try check(aliceClient: daemon.client(alice), bobClient: daemon.client(bob), admin: daemon.client(ops))
    }

    @Test func anAdminPagesThroughEveryNamespaceOnABroker() throws {
        let secured = try SecureTestCluster(
            workers: 2, clients: [listed(alice, "alice"), listed(bob), listed(ops, "ops", admin: true)], admin: ops, heartbeatMilliseconds: 1000
        )
        try check(aliceClient: secured.client(alice), bobClient: secured.client(bob), admin: secured.client(ops))
    }
}
