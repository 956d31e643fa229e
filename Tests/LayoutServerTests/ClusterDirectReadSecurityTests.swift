import Foundation
import LayoutClient
import Testing
import ZeroMQ
@testable import LayoutCluster
@testable import LayoutServer

/// Direct reads with CURVE (issue 25): a worker's direct endpoint admits the broker's clients under the
/// broker's key, and each reads its own namespace there, as through the broker.
@Suite(.serialized) struct ClusterDirectReadSecurityTests {
    @Test func eachClientReadsItsOwnNamespaceOnTheDirectEndpoint() throws {
        let alice = try CurveKeyPair.generate(), bob = try CurveKeyPair.generate(), admin = try CurveKeyPair.generate()
        let secure = try SecureTestCluster(
            workers: 1, clients: [(alice, "alice", false), (bob, "bob", false), (admin, "ops", true)], admin: admin, directReads: true
        )
        let context = secure.context
        let serverKey = secure.keys.serverKeys.publicKey
        func dealer(_ endpoint: String, _ keys: CurveKeyPair, timeout: Int32 = 10_000) throws -> Socket {
            let socket = try Socket(.dealer, in: context)
            try socket.set(.receiveTimeout, timeout)
            try socket.makeCurveClient(keys: keys, serverKey: serverKey)
            try socket.connect(endpoint)
            return socket
        }
        func call(_ body: String, on socket: Socket) throws -> [String: Any]? {
            _ = try socket.send(multipart: [[], Array(body.utf8)])
            guard let frames = try socket.receiveMultipart() else { return nil }
            return try TestDaemon.object(frames[frames.count - 1])
        }
        let aliceFront = try dealer(secure.frontEndpoint, alice)
        let bobFront = try dealer(secure.frontEndpoint, bob)
        #expect(try call(mosaicJob(key: "feed", count: 10), on: aliceFront)?.ok == true)

        // The table is the caller's: alice's feed, and nothing for bob.
        let aliceTable = try #require(try call(#"{"v":1,"op":"route"}"#, on: aliceFront)?.result)
        let entry = try #require((aliceTable["keys"] as? [[String: Any]])?.first)
        #expect(entry["layout"] as? String == "feed")
        let epoch = try #require(entry["epoch"] as? Int)
        let endpoint = try #require((aliceTable["workers"] as? [[String: Any]])?.first?["direct"] as? String)
        #expect((try call(#"{"v":1,"op":"route"}"#, on: bobFront)?.result["keys"] as? [[String: Any]])?.isEmpty == true)

        // Alice reads her layout on the direct endpoint.
        let aliceDirect = try dealer(endpoint, alice)
        let query = #"{"v":1,"op":"query","layout":"feed","epoch":\#(epoch),"items":[[0,0]]}"#
        var answer = try call(query, on: aliceDirect)
        let bound = Date().addingTimeInterval(20)
        while answer?.ok != true, Date() < bound {
            Thread.sleep(forTimeInterval: 0.02)
            answer = try call(query, on: aliceDirect)
        }
        #expect(answer?.ok == true && answer?.result["version"] as? Int == 1, "\(answer ?? [:])")

        // Bob's "feed" is another key, which this worker does not keep.
        let bobAnswer = try call(query, on: try dealer(endpoint, bob))
        #expect((bobAnswer?["error"] as? [String: Any])?["code"] as? String == "moved", "\(bobAnswer ?? [:])")

        // Taken off the list and the keys reread (what SIGHUP does), alice gets nothing more from the
        // worker, even on the connection she has; bob, still listed, is answered.
        try secure.allow([(bob, "bob", false), (admin, "ops", true)])
        #expect(secure.cluster.workers.first?.reloadClientKeys(logger: SecureTestDaemon.logger) == true)
        try aliceDirect.set(.receiveTimeout, 1_000)
        #expect(try call(query, on: aliceDirect) == nil)
        #expect(try call(#"{"v":1,"op":"ping"}"#, on: try dealer(endpoint, bob))?.ok == true)

        // A client the broker does not list gets nothing from the worker either (its handshake fails).
        let stranger = try dealer(endpoint, try CurveKeyPair.generate(), timeout: 1_000)
        #expect(try call(query, on: stranger) == nil)
        // Nor does a plain ZeroMQ client.
        let plain = try Socket(.dealer, in: context)
        try plain.set(.receiveTimeout, 1_000)
        try plain.connect(endpoint)
        #expect(try call(query, on: plain) == nil)
    }

    /// With CURVE the `route` event goes to each namespace whose table changed, under each subscriber's
    /// own key: alice hears of her key's change and bob does not (he hears of his own), while a change
    /// of the live workers reaches every namespace, a client without keys and an admin too.
    @Test func theRouteEventReachesEachNamespaceWhoseTableChanged() throws {
        let alice = try CurveKeyPair.generate(), bob = try CurveKeyPair.generate()
        let carol = try CurveKeyPair.generate(), admin = try CurveKeyPair.generate()
        let secure = try SecureTestCluster(
            workers: 1, spareWorkers: 1,
            clients: [(alice, "alice", false), (bob, "bob", false), (carol, "carol", false), (admin, "ops", true)],
            admin: admin, directReads: true
        )
        let context = secure.context
        let serverKey = secure.keys.serverKeys.publicKey
        func dealer(_ keys: CurveKeyPair) throws -> Socket {
            let socket = try Socket(.dealer, in: context)
            try socket.set(.receiveTimeout, 10_000)
            try socket.makeCurveClient(keys: keys, serverKey: serverKey)
            try socket.connect(secure.frontEndpoint)
            return socket
        }
        func call(_ body: String, on socket: Socket) throws -> [String: Any] {
            _ = try socket.send(multipart: [[], Array(body.utf8)])
            guard let frames = try socket.receiveMultipart(), let last = frames.last else { throw TestFailure("no reply to \(body)") }
            return try TestDaemon.object(last)
        }
        // The table's version is the broker's, the same whoever asks.
        func tableVersion(on socket: Socket) throws -> Int {
            let reply = try call(#"{"v":1,"op":"route"}"#, on: socket)
            guard let version = reply.result["version"] as? Int else { throw TestFailure("no route table: \(reply)") }
            return version
        }
        // A SUB socket of `keys` subscribed to `<its key>route` as the docs say; its receive timeout
        // only paces `nextRouteEvent`'s polling.
        func subscriber(_ keys: CurveKeyPair) throws -> Socket {
            let socket = try Socket(.sub, in: context)
            try socket.set(.receiveTimeout, 100)
            try socket.makeCurveClient(keys: keys, serverKey: serverKey)
            try socket.subscribe(keys.publicKey.z85 + "route")
            try socket.connect(secure.eventsEndpoint)
            return socket
        }
        // The version of the next `route` event `events` receives, checked to come under `keys`'s own
        // prefix with the event's body; nil when none came within the bound.
        func nextRouteEvent(on events: Socket, of keys: CurveKeyPair, within seconds: Double = 20) throws -> Int? {
            let bound = Date().addingTimeInterval(seconds)
            while Date() < bound {
                guard let frames = try events.receiveMultipart() else { continue }
                #expect(frames.count == 2)
                #expect(frames.first.map { String(decoding: $0, as: UTF8.self) } == keys.publicKey.z85 + "route")
                let body = try TestDaemon.object(frames[frames.count - 1])
                #expect(body["event"] as? String == "route")
                guard let version = body["version"] as? Int else { throw TestFailure("a route event without a version: \(body)") }
                return version
            }
            return nil
        }
        // The first `route` event above `version`, skipping those of the subscriber's own earlier changes.
        func routeEvent(on events: Socket, of keys: CurveKeyPair, after version: Int) throws -> Int? {
            while let received = try nextRouteEvent(on: events, of: keys) {
                if received > version { return received }
            }
            return nil
        }

        let aliceEvents = try subscriber(alice), bobEvents = try subscriber(bob)
        let carolEvents = try subscriber(carol), opsEvents = try subscriber(admin)
        // A subscription reaches the broker's XPUB asynchronously: wait until the broker has filed all
        // four (it counts each one after filing it), so that every event published from here on reaches
        // whoever it is meant for, and an event that does not come is one that was not sent to them.
        let filedBy = Date().addingTimeInterval(20)
        var filed = try secure.stats(admin: admin).int("subscribers") ?? 0
        while filed < 4, Date() < filedBy {
            Thread.sleep(forTimeInterval: 0.02)
            filed = try secure.stats(admin: admin).int("subscribers") ?? 0
        }
        try #require(filed == 4, "the broker filed \(filed) of 4 subscriptions")

        // Alice prepares a key: alice hears of it, under her own key.
        let aliceFront = try dealer(alice), bobFront = try dealer(bob)
        let start = try tableVersion(on: aliceFront)
        #expect(try call(mosaicJob(key: "feed", count: 10), on: aliceFront).ok)
        let aliceEvent = try #require(try routeEvent(on: aliceEvents, of: alice, after: start), "alice heard nothing of her own key")
        #expect(aliceEvent <= (try tableVersion(on: aliceFront)))

        // Bob does not: every event of alice's change has a version up to the table's now, and the first
        // event bob receives is of his own prepare, after it. Events reach a subscriber in the order they
        // are published, which is the order of versions, so one of alice's would have come first.
        let afterAlice = try tableVersion(on: bobFront)
        #expect(try call(mosaicJob(key: "feed", count: 10), on: bobFront).ok)
        let bobEvent = try #require(try nextRouteEvent(on: bobEvents, of: bob), "bob heard nothing of his own key")
        #expect(bobEvent > afterAlice, "bob heard of the table at version \(bobEvent), before his own change (after \(afterAlice))")

        // A worker joins: every namespace hears it, carol's (no keys) and the admin's too, and for them
        // it is the first event of all: neither heard of alice's or bob's keys.
        let beforeJoin = try tableVersion(on: aliceFront)
        try secure.startWorker(1)
        let carolJoin = try #require(try nextRouteEvent(on: carolEvents, of: carol), "carol heard nothing of the join")
        #expect(carolJoin > beforeJoin)
        let opsJoin = try #require(try nextRouteEvent(on: opsEvents, of: admin), "the admin heard nothing of the join")
        #expect(opsJoin > beforeJoin)
        #expect(try routeEvent(on: aliceEvents, of: alice, after: beforeJoin) != nil, "alice heard nothing of the join")
        #expect(try routeEvent(on: bobEvents, of: bob, after: beforeJoin) != nil, "bob heard nothing of the join")

        // It leaves: everyone hears that too.
        let beforeLeave = try tableVersion(on: aliceFront)
        secure.cluster.workers[1].stop()
        try secure.cluster.waitForWorkers(1)
        #expect(try routeEvent(on: carolEvents, of: carol, after: beforeLeave) != nil, "carol heard nothing of the leave")
        #expect(try routeEvent(on: opsEvents, of: admin, after: beforeLeave) != nil, "the admin heard nothing of the leave")
        #expect(try routeEvent(on: aliceEvents, of: alice, after: beforeLeave) != nil, "alice heard nothing of the leave")
        #expect(try routeEvent(on: bobEvents, of: bob, after: beforeLeave) != nil, "bob heard nothing of the leave")
    }
}
