import Foundation
import LayoutClient
import Testing
import ZeroMQ
@testable import LayoutServer

/// `list` in pages (PROTOCOL.md §5.8) over real sockets, on a single daemon and on a broker whose keys
/// are spread over two workers: the same pages either way.
@Suite(.serialized) struct ListPagesTests {
    static let topologies: [Topology] = [.single, .cluster(workers: 2)]

    private func names(_ reply: [String: Any]) -> [String] {
        (reply.result["layouts"] as? [[String: Any]] ?? []).compactMap { $0["layout"] as? String }
    }

    /// 24 keys `k-00` … `k-23` and 5 keys `other-0` … `other-4`, prepared small.
    private func prepareKeys(on daemon: TestDaemon, socket: Socket) throws -> [String] {
        let keys = (0..<24).map { String(format: "k-%02d", $0) } + (0..<5).map { "other-\($0)" }
        for key in keys { #expect(try daemon.call(mosaicJob(key: key, count: 2), on: socket).ok) }
        return keys.sorted()
    }

    @Test(arguments: topologies)
    func pagesWalkEveryKeyOnceInOrder(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        let socket = try daemon.dealer()
        let keys = try prepareKeys(on: daemon, socket: socket)

        // A list as today's clients send it: every key, and no `next`.
        let whole = try daemon.call(#"{"v":1,"id":1,"op":"list"}"#, on: socket)
        #expect(names(whole) == keys)
        #expect(whole.result["next"] == nil)

        var walked: [String] = []
        var after: String?
        var pages = 0
        repeat {
            let cursor = after.map { #","after":"\#($0)""# } ?? ""
            let page = try daemon.call(#"{"v":1,"id":2,"op":"list","limit":7\#(cursor)}"#, on: socket)
            #expect(page.ok, "\(page)")
            #expect(names(page).count <= 7)
            walked += names(page)
            after = page.result["next"] as? String
            if let after { #expect(after == names(page).last) }
            pages += 1
        } while after != nil && pages < 20
        #expect(walked == keys)
        #expect(pages == 5)
    }

    @Test(arguments: topologies)
    func aPrefixNarrowsThePages(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        let socket = try daemon.dealer()
        _ = try prepareKeys(on: daemon, socket: socket)

        let tens = try daemon.call(#"{"v":1,"id":3,"op":"list","prefix":"k-1"}"#, on: socket)
        #expect(names(tens) == (10..<20).map { "k-\($0)" })
        #expect(tens.result["next"] == nil)
        let first = try daemon.call(#"{"v":1,"id":4,"op":"list","prefix":"k-1","limit":4}"#, on: socket)
        #expect(names(first) == ["k-10", "k-11", "k-12", "k-13"])
        #expect(first.result["next"] as? String == "k-13")
        let rest = try daemon.call(#"{"v":1,"id":5,"op":"list","prefix":"k-1","after":"k-13","limit":10}"#, on: socket)
        #expect(names(rest) == (14..<20).map { "k-\($0)" })
        #expect(rest.result["next"] == nil)
        // A cursor between keys, and one past every key.
        #expect(names(try daemon.call(#"{"v":1,"id":6,"op":"list","after":"other-2a"}"#, on: socket)) == ["other-3", "other-4"])
        #expect(names(try daemon.call(#"{"v":1,"id":7,"op":"list","after":"zzz"}"#, on: socket)).isEmpty)
        #expect(names(try daemon.call(#"{"v":1,"id":8,"op":"list","prefix":"nothing"}"#, on: socket)).isEmpty)
    }

    @Test(arguments: topologies)
    func aBadLimitIsRefusedAtItsPath(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        let socket = try daemon.dealer()
        for body in [#"{"v":1,"id":9,"op":"list","limit":0}"#, #"{"v":1,"id":9,"op":"list","limit":10001}"#, #"{"v":1,"id":9,"op":"list","limit":"5"}"#] {
            let reply = try daemon.call(body, on: socket)
            let error = reply["error"] as? [String: Any]
            #expect(error?["code"] as? String == "invalid_request" && error?["path"] as? String == "limit", "\(reply)")
            #expect(reply["id"] as? Int == 9)
        }
    }

    @Test(arguments: topologies)
    func theSwiftClientWalksThePages(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        let keys = try prepareKeys(on: daemon, socket: try daemon.dealer())
        let client = try LayoutClient(endpoint: daemon.running.frontEndpoint, context: daemon.context, timeout: .seconds(10))
        let all = try client.listAll(pageSize: 4)
        #expect(all.error == nil)
        #expect(all.layouts.compactMap { $0.string("layout") } == keys)
        let others = try client.listAll(prefix: "other-", pageSize: 2)
        #expect(others.layouts.compactMap { $0.string("layout") } == (0..<5).map { "other-\($0)" })
        let refused = try client.listAll(pageSize: 0)
        #expect(refused.error?.code == .invalidRequest && refused.layouts.isEmpty)
    }

    /// Past 10,000 keys a list without `limit` answers the first 10,000 and a `next`.
    @Test func anUnpagedListStopsAtTenThousand() throws {
        let daemon = try TestDaemon(.single)
        let socket = try daemon.dealer()
        let count = 10_003
        // Pipelined in windows of 200, within the daemon's queue.
        for window in stride(from: 0, to: count, by: 200) {
            let indices = window..<min(window + 200, count)
            for index in indices {
                let body = #"{"v":1,"id":\#(index),"op":"prepare","layout":"\#(String(format: "n-%05d", index))","bounds":{"width":100,"height":100},"spec":{"type":"list"},"sections":[{"count":1}]}"#
                _ = try socket.send(multipart: [[], Array(body.utf8)])
            }
            for _ in indices {
                guard let frames = try socket.receiveMultipart() else { throw TestFailure("no reply to a prepare") }
                let reply = try TestDaemon.object(frames[frames.count - 1])
                guard reply.ok else { throw TestFailure("a prepare failed: \(reply)") }
            }
        }
        let first = try daemon.call(#"{"v":1,"id":"all","op":"list"}"#, on: socket)
        let listed = names(first)
        #expect(listed.count == 10_000)
        #expect(listed.first == "n-00000" && listed.last == "n-09999")
        #expect(first.result["next"] as? String == "n-09999")
        let rest = try daemon.call(#"{"v":1,"id":"rest","op":"list","after":"n-09999"}"#, on: socket)
        #expect(names(rest) == ["n-10000", "n-10001", "n-10002"])
        #expect(rest.result["next"] == nil)
    }
}
