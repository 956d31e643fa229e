import Foundation
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
}
