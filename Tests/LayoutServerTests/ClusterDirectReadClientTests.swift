import Foundation
import LayoutClient
import LayoutTestKit
import Testing
import ZeroMQ
@testable import LayoutCluster
@testable import LayoutServer

/// LayoutClient routing reads by itself (issue 25): queries to the key's owner, changes to the broker,
/// and the broker again on any doubt.
@Suite(.serialized) struct ClusterDirectReadClientTests {
    /// The broker's count of `query` requests it answered.
    private func brokerQueries(_ direct: DirectReadCluster) throws -> Double {
        let socket = try Socket(.req, in: direct.context)
        try socket.set(.receiveTimeout, 5_000)
        try socket.connect(direct.cluster.broker.statsEndpoint)
        _ = try socket.send("metrics")
        let text = try #require(try socket.receiveString())
        return try PrometheusText(text: text).value(#"layoutd_requests_total{op="query"}"#) ?? 0
    }

    @Test func queriesGoToTheOwnerAndSeeTheClientsOwnChanges() throws {
        let direct = try DirectReadCluster(workers: ["direct-0", "direct-1"])
        let client = try LayoutClient(endpoint: direct.cluster.broker.frontEndpoint, context: direct.context, timeout: .seconds(10))
        let keys = (0..<6).map { "c-\($0)" }
        for key in keys { #expect(try client.prepare(key: key, jobBytes: Array(mosaicJob(key: nil, count: 10).utf8)).ok) }
        // A worker that has just joined answers once its first lease is granted: until then its reads go
        // to the broker, which is what this waits out.
        let settle = Date().addingTimeInterval(20)
        var before = try brokerQueries(direct)
        while Date() < settle {
            for key in keys { _ = try client.query(key: key, items: [ItemLocation(section: 0, item: 0)]) }
            let now = try brokerQueries(direct)
            if now == before { break }
            before = now
            Thread.sleep(forTimeInterval: 0.02)
        }
        for key in keys {
            let reply = try client.query(key: key, items: [ItemLocation(section: 0, item: 0)])
            #expect(reply.ok && reply.result.int("version") == 1, "\(key): \(reply.object)")
        }
        #expect(try brokerQueries(direct) == before, "every query was answered by a worker")

        // A change through the broker, then a read: it asks for the new version and gets it.
        #expect(try client.update(key: keys[1], updates: [["delete": [0, 0]]]).result.int("version") == 2)
        let after = try client.query(key: keys[1], items: [ItemLocation(section: 0, item: 0)])
        #expect(after.ok && after.result.int("version") == 2)
        #expect(try brokerQueries(direct) == before)

        // A key prepared after the table was fetched is looked up alone, and read at its owner too (the
        // lookup's `version`, the table's, is not taken for the key's).
        #expect(try client.prepare(key: "c-late", jobBytes: Array(mosaicJob(key: nil, count: 10).utf8)).ok)
        let late = try client.query(key: "c-late", items: [ItemLocation(section: 0, item: 0)])
        #expect(late.ok && late.result.int("version") == 1 && late.directEndpoint != nil, "\(late.object)")
        #expect(try brokerQueries(direct) == before)

        // The same client with direct reads off asks the broker.
        let plain = try LayoutClient(endpoint: direct.cluster.broker.frontEndpoint, context: direct.context, timeout: .seconds(10), directReads: .off)
        #expect(try plain.query(key: keys[2], items: [ItemLocation(section: 0, item: 0)]).ok)
        #expect(try brokerQueries(direct) == before + 1)
    }

    @Test func aMovedKeyIsReadThroughTheBrokerThenAtItsNewOwner() throws {
        let direct = try DirectReadCluster(workers: ["direct-0"])
        let client = try LayoutClient(endpoint: direct.cluster.broker.frontEndpoint, context: direct.context, timeout: .seconds(10))
        let keys = (0..<12).map { "m-\($0)" }
        for key in keys { #expect(try client.prepare(key: key, jobBytes: Array(mosaicJob(key: nil, count: 10).utf8)).ok) }
        for key in keys { #expect(try client.query(key: key, items: [ItemLocation(section: 0, item: 0)]).ok) }
        // A second worker wins some keys: the client's table is out of date, and every read still
        // answers, at the version it had.
        try direct.addWorker(named: "direct-1")
        let bound = Date().addingTimeInterval(20)
        while keys.allSatisfy({ (try? direct.entry($0).worker) == "direct-0" }), Date() < bound { Thread.sleep(forTimeInterval: 0.02) }
        for _ in 0..<3 {
            for key in keys {
                let reply = try client.query(key: key, items: [ItemLocation(section: 0, item: 0)])
                #expect(reply.ok && reply.result.int("version") == 1, "\(key): \(reply.object)")
            }
        }
    }

    @Test func aClientThatLooksKeysUpAloneReadsAtTheOwnerToo() throws {
        let direct = try DirectReadCluster(workers: ["direct-0"])
        let keys = ["a-0", "a-1"]
        let writer = try LayoutClient(endpoint: direct.cluster.broker.frontEndpoint, context: direct.context, timeout: .seconds(10), directReads: .off)
        for key in keys { #expect(try writer.prepare(key: key, jobBytes: Array(mosaicJob(key: nil, count: 10).utf8)).ok) }
        #expect(try writer.update(key: keys[0], updates: [["delete": [0, 0]]]).result.int("version") == 2)

        // As layoutctl does: a client per command, each key's route asked for alone. Until the worker's
        // first lease arrives its reads go to the broker, which is what this waits out.
        func readOnce(_ key: String) throws -> Reply {
            let client = try LayoutClient(
                endpoints: [direct.cluster.broker.frontEndpoint], context: direct.context, timeout: .seconds(10), directReads: .automaticByKey)
            return try client.query(key: key, items: [ItemLocation(section: 0, item: 0)])
        }
        let bound = Date().addingTimeInterval(20)
        while try readOnce(keys[0]).directEndpoint == nil, Date() < bound { Thread.sleep(forTimeInterval: 0.02) }
        let before = try brokerQueries(direct)
        for (key, version) in zip(keys, [2, 1]) {
            let reply = try readOnce(key)
            #expect(reply.ok && reply.result.int("version") == version, "\(key): \(reply.object)")
            #expect(reply.directEndpoint == direct.directEndpoints["direct-0"])
        }
        #expect(try brokerQueries(direct) == before, "the broker answered the route lookups, not the queries")

        // A key the broker does not keep has no route: the query goes to the broker, which says so.
        let unknown = try readOnce("nowhere")
        #expect(unknown.error?.code == .unknownLayout && unknown.directEndpoint == nil)
        #expect(try brokerQueries(direct) == before + 1)
    }

    @Test func aSingleDaemonIsAskedForRoutesOnce() throws {
        let daemon = try TestDaemon(.single)
        let client = try LayoutClient(endpoint: daemon.running.frontEndpoint, context: daemon.context, timeout: .seconds(10))
        #expect(try client.prepare(key: "feed", jobBytes: Array(mosaicJob(key: nil, count: 10).utf8)).ok)
        for _ in 0..<3 { #expect(try client.query(key: "feed", items: [ItemLocation(section: 0, item: 0)]).ok) }
        let metrics = try PrometheusText(text: try daemon.metrics())
        #expect(metrics.value(#"layoutd_requests_total{op="query"}"#) == 3)
        // Answered as a daemon (`role`), counted as an op and never as an error (PROTOCOL.md §11).
        #expect(metrics.value(#"layoutd_requests_total{op="route"}"#) == 1, "one `route`")
        #expect((metrics.value(#"layoutd_errors_total{code="unknown_op"}"#) ?? 0) == 0)
        let answer = try daemon.call(#"{"v":1,"id":7,"op":"route","layout":"feed"}"#)
        let result = answer["result"] as? [String: Any]
        #expect(answer["ok"] as? Bool == true && answer["id"] as? Int == 7)
        #expect(result?["role"] as? String == "daemon" && (result?["workers"] as? [Any])?.isEmpty == true && (result?["keys"] as? [Any])?.isEmpty == true)
    }
}
