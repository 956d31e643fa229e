import Foundation
import Testing
import ZeroMQ
@testable import LayoutServer

/// Every error code the daemon can produce, each with exactly one reply, and the daemon serving on.
@Suite(.serialized) struct ErrorReplyTests {
    @Test(arguments: [
        (#"not json"#, "invalid_json", nil as String?),
        (#"[1,2]"#, "invalid_request", nil),
        (#"{"v":1,"id":1,"op":"teleport"}"#, "unknown_op", "op"),
        (#"{"v":1,"id":1}"#, "invalid_request", "op"),
        (#"{"v":1,"id":1,"op":"layout","bounds":{"width":375,"height":800},"spec":{"type":"mosaic"},"sections":[{"items":[{"height":-3}]}]}"#, "invalid_request", "sections[0].items[0].height"),
        (#"{"v":1,"id":1,"op":"layout","bounds":{"width":1e309,"height":800},"spec":{"type":"mosaic"},"sections":[]}"#, "invalid_request", "bounds.width"),
        (#"{"v":1,"id":1,"op":"layout","bounds":{"width":375,"height":800},"spec":{"type":"hexagons"},"sections":[]}"#, "invalid_request", "spec.type"),
        (#"{"v":1,"id":1,"op":"layout","bounds":{"width":375,"height":800},"spec":{"type":"waterfall","columns":0},"sections":[]}"#, "invalid_request", "spec.columns"),
        (#"{"v":1,"id":1,"op":"query","layout":"nowhere","rect":{"x":0,"y":0,"width":1,"height":1}}"#, "unknown_layout", "layout"),
        (#"{"v":1,"id":1,"op":"layout","bounds":{"width":375,"height":800},"spec":{"type":"list"},"sections":[{"count":2000}]}"#, "too_large", "sections[0].count"),
    ], Topology.all)
    func badBodyGetsOneTypedErrorAndTheDaemonServesOn(_ bad: (body: String, code: String, path: String?), _ topology: Topology) throws {
        let (body, code, path) = bad
        let daemon = try TestDaemon(topology) { $0.maxItems = 1000 }
        let dealer = try daemon.dealer()
        let reply = try daemon.call(body, on: dealer)
        #expect(reply.ok == false)
        #expect(reply.errorCode == code)
        if let path { #expect(reply.errorPath == path) }
        #expect((reply["error"] as? [String: Any])?["message"] as? String != nil)
        // Exactly one reply: nothing else is waiting.
        try dealer.set(.receiveTimeout, 200)
        #expect(try dealer.receiveMultipart() == nil)
        try dealer.set(.receiveTimeout, 10_000)
        // And good requests still work, on the same connection.
        let good = try daemon.call(#"{"v":1,"id":"ok","op":"ping"}"#, on: dealer)
        #expect(good.ok)
    }

    @Test(arguments: Topology.all) func errorRepliesEchoTheRequestID(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        let reply = try daemon.call(#"{"v":1,"id":"abc-9","op":"query","layout":"none","rect":{}}"#)
        #expect(reply["id"] as? String == "abc-9")
        #expect(reply.ok == false)
    }

    @Test(arguments: Topology.oneStore) func fullQueueAnswersBusyAtOnce(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology) { $0.workers = 1; $0.queueCapacity = 0 }
        let dealer = try daemon.dealer()
        _ = try dealer.send(multipart: [[], Array(mosaicJob(key: "slow", count: 3_000_000).utf8)])
        _ = try dealer.send(multipart: [[], Array(#"{"v":1,"id":"second","op":"ping"}"#.utf8)])
        var codes: [String: String] = [:]
        for _ in 0..<2 {
            let frames = try #require(try dealer.receiveMultipart())
            let reply = try TestDaemon.object(frames[frames.count - 1])
            codes[reply["id"] as? String ?? "?"] = reply.errorCode ?? "ok"
        }
        #expect(codes["second"] == "busy")
        #expect(codes["prepare-1"] == "ok")
    }

    @Test(arguments: Topology.all) func aLayoutLargerThanTheWholeStoreIsTooLarge(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology) { $0.storeCapacityBytes = 10_000 }
        let reply = try daemon.call(mosaicJob(key: "huge", count: 5_000))
        #expect(reply.errorCode == "too_large")
    }
}
