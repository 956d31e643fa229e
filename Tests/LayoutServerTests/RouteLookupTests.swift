import Foundation
import LayoutClient
import LayoutTestKit
import Testing
import ZeroMQ
@testable import LayoutCluster
@testable import LayoutServer

/// `route` lookups of named keys and the `route` event's `layouts` (PROTOCOL.md §11), on a broker whose
/// workers have direct endpoints, over real sockets.
@Suite(.serialized) struct RouteLookupTests {
    private func keyNames(_ result: [String: Any]) -> [String] {
        (result["keys"] as? [[String: Any]] ?? []).compactMap { $0["layout"] as? String }
    }

    @Test func aLookupAnswersOnlyTheKeptKeysItNames() throws {
        let direct = try DirectReadCluster(workers: ["direct-0"])
        let socket = try direct.dealer()
        for key in ["a", "b", "c"] { #expect(try direct.call(mosaicJob(key: key, count: 3), on: socket).ok) }
        #expect(try direct.call(#"{"v":1,"id":1,"op":"drop","layout":"b"}"#, on: socket).ok)

        let lookup = try direct.call(#"{"v":1,"id":2,"op":"route","layouts":["c","a","b","nowhere","a"]}"#, on: socket)
        #expect(lookup.ok)
        #expect(lookup.result["role"] as? String == "broker")
        #expect(keyNames(lookup.result) == ["a", "c"], "each kept key once, in name order: \(lookup)")
        #expect((lookup.result["workers"] as? [[String: Any]])?.first?["direct"] as? String == direct.directEndpoints["direct-0"])
        #expect((lookup.result["keys"] as? [[String: Any]])?.allSatisfy { $0["worker"] as? String == "direct-0" } == true)
        // `layout` alone, and the whole table, as before.
        #expect(keyNames(try direct.route(layout: "c")) == ["c"])
        #expect(keyNames(try direct.route()) == ["a", "c"])

        let refused = try direct.call(#"{"v":1,"id":3,"op":"route","layouts":"a"}"#, on: socket)
        #expect(refused.errorCode == "invalid_request" && refused.errorPath == "layouts")
        #expect(refused["id"] as? Int == 3)
    }

    /// The next `route` event on `events` that `matches`, within a generous bound.
    private func routeEvent(on events: Socket, within seconds: Double = 20, where matches: ([String: Any]) -> Bool) throws -> [String: Any]? {
        let bound = Date().addingTimeInterval(seconds)
        while Date() < bound {
            guard let frames = try events.receiveMultipart(), frames.count == 2 else { continue }
            let body = try TestDaemon.object(frames[1])
            if body["event"] as? String == "route", matches(body) { return body }
        }
        return nil
    }

    @Test func theRouteEventNamesTheKeysThatChanged() throws {
        let direct = try DirectReadCluster(workers: ["direct-0"])
        let events = try Socket(.sub, in: direct.context)
        defer { events.close() }
        try events.set(.receiveTimeout, 200)
        try events.subscribe("route")
        try events.connect(direct.cluster.broker.eventsEndpoint)
        let socket = try direct.dealer()
        // Subscribed once an event published after the subscription arrives: keep preparing until one does.
        var index = 0
        var first: [String: Any]?
        while first == nil, index < 200 {
            #expect(try direct.call(mosaicJob(key: "warm-\(index)", count: 2), on: socket).ok)
            first = try routeEvent(on: events, within: 0.5) { ($0["layouts"] as? [String])?.contains("warm-\(index)") == true }
            index += 1
        }
        #expect(first != nil, "a prepare's route event names its key")

        #expect(try direct.call(mosaicJob(key: "fresh", count: 2), on: socket).ok)
        let fresh = try #require(try routeEvent(on: events) { ($0["layouts"] as? [String])?.contains("fresh") == true })
        #expect((fresh["layouts"] as? [String] ?? []).allSatisfy { $0 == "fresh" || $0.hasPrefix("warm-") })
        #expect(fresh["version"] is Int)

        // A worker joins: the live workers changed, so the event names no key (look yours up again).
        try direct.addWorker(named: "direct-1")
        let joined = try routeEvent(on: events) { $0["layouts"] == nil }
        #expect(joined != nil, "the event of a change of the live workers has no `layouts`")
    }

    /// The broker's count of `route` requests.
    private func routeLookups(_ direct: DirectReadCluster) throws -> Double {
        let text = String(decoding: try direct.ask("metrics"), as: UTF8.self)
        return try PrometheusText(text: text).value(#"layoutd_requests_total{op="route"}"#) ?? 0
    }

    @Test func theClientLooksUpEachKeyItReadsAndNoMore() throws {
        let direct = try DirectReadCluster(workers: ["direct-0"])
        let client = try LayoutClient(endpoint: direct.cluster.broker.frontEndpoint, context: direct.context, timeout: .seconds(10))
        let keys = (0..<8).map { "r-\($0)" }
        let writer = try LayoutClient(endpoint: direct.cluster.broker.frontEndpoint, context: direct.context, timeout: .seconds(10), directReads: .off)
        for key in keys { #expect(try writer.prepare(key: key, jobBytes: Array(mosaicJob(key: nil, count: 4).utf8)).ok) }
        // Until the worker's first lease its reads are answered `moved` (and looked up again): wait it out.
        let bound = Date().addingTimeInterval(20)
        while try client.query(key: keys[0], items: [ItemLocation(section: 0, item: 0)]).directEndpoint == nil, Date() < bound {
            Thread.sleep(forTimeInterval: 0.02)
        }
        for key in keys { #expect(try client.query(key: key, items: [ItemLocation(section: 0, item: 0)]).ok) }
        let settled = try routeLookups(direct)
        var allDirect = true
        for _ in 0..<3 {
            for key in keys {
                let reply = try client.query(key: key, items: [ItemLocation(section: 0, item: 0)])
                #expect(reply.ok, "\(key): \(reply.object)")
                allDirect = allDirect && reply.directEndpoint != nil
            }
        }
        // A read answered at the owner leaves the key's route as it was. (On a loaded machine a lease may
        // lapse between two heartbeats: that read goes to the broker and its key is looked up again.)
        if allDirect { #expect(try routeLookups(direct) == settled, "reads of keys looked up ask no more routes") }

        // Keys move to a new worker: each moved key costs at most a lookup or two (one after `moved`, one
        // more if the new worker's first lease had not come yet), never a table per read.
        try direct.addWorker(named: "direct-1")
        let moveBound = Date().addingTimeInterval(20)
        while keys.allSatisfy({ (try? direct.entry($0).worker) == "direct-0" }), Date() < moveBound { Thread.sleep(forTimeInterval: 0.02) }
        let beforeReads = try routeLookups(direct)
        for _ in 0..<3 {
            for key in keys { #expect(try client.query(key: key, items: [ItemLocation(section: 0, item: 0)]).ok) }
        }
        let lookups = try routeLookups(direct) - beforeReads
        #expect(lookups <= Double(2 * keys.count), "\(lookups) route lookups for \(keys.count) keys read 3 times")
    }
}
