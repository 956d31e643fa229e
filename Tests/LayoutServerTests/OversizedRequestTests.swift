import Foundation
import Testing
import ZeroMQ
@testable import LayoutServer

/// Bodies over `limits.maxMessageBytes` are answered `too_large`; only frames over the transport cap
/// (ZMQ_MAXMSGSIZE) cost the connection. Small limits, so the bodies stay small.
@Suite(.serialized) struct OversizedRequestTests {
    static let limit = 64 * 1024
    static let transportCap = 256 * 1024

    private func daemon() throws -> TestDaemon {
        try TestDaemon { configuration in
            configuration.maxMessageBytes = Int64(Self.limit)
            configuration.maxTransportBytes = Int64(Self.transportCap)
        }
    }

    /// A `layout` body of exactly `bytes` bytes, its id first or after the padding.
    private func body(bytes: Int, id: String, idFirst: Bool = true) -> String {
        let head = idFirst ? #"{"v":1,"id":"\#(id)","op":"layout","pad":""# : #"{"v":1,"op":"layout","pad":""#
        let tail = idFirst ? #""}"# : #"","id":"\#(id)"}"#
        return head + String(repeating: "x", count: bytes - head.utf8.count - tail.utf8.count) + tail
    }

    @Test func aBodyOverTheLimitIsAnsweredTooLargeWithItsIdAndTheConnectionKeepsWorking() throws {
        let daemon = try daemon()
        let dealer = try daemon.dealer()
        let oversized = body(bytes: Self.limit + 1, id: "big-1")
        #expect(oversized.utf8.count == Self.limit + 1)

        let reply = try daemon.call(oversized, on: dealer)
        #expect(reply["id"] as? String == "big-1")
        #expect(reply.errorCode == "too_large")
        #expect(reply.errorPath == nil)
        let message = try #require((reply["error"] as? [String: Any])?["message"] as? String)
        #expect(message.contains("\(Self.limit + 1) bytes") && message.contains("limits.maxMessageBytes"))

        // The same connection is answered next, and a body of exactly the limit is served as usual.
        let ping = try daemon.call(#"{"v":1,"id":"after","op":"ping"}"#, on: dealer)
        #expect(ping.ok && ping["id"] as? String == "after")
        let atLimit = try daemon.call(body(bytes: Self.limit, id: "at-limit"), on: dealer)
        #expect(atLimit.errorCode == "invalid_request", "decoded by a worker: the body has no input")
        #expect(atLimit["id"] as? String == "at-limit")

        let errors = try daemon.stats()["errors"] as? [String: Any]
        #expect(errors?["too_large"] as? Int == 1)
    }

    @Test func theIdIsEchoedOnlyFromTheFirstBytes() throws {
        // The I/O thread reads at most `idSearchBytes` for the id, as for `busy`.
        let daemon = try daemon()
        let reply = try daemon.call(body(bytes: Self.transportCap - 1, id: "late", idFirst: false))
        #expect(reply.errorCode == "too_large")
        #expect(reply["id"] is NSNull)
    }

    @Test func aFrameOverTheTransportCapCostsTheConnectionButNotTheDaemon() throws {
        let daemon = try daemon()
        let dealer = try daemon.dealer()
        try dealer.set(.receiveTimeout, 1_000)
        _ = try dealer.send(multipart: [[], Array(body(bytes: Self.transportCap + 1, id: "huge").utf8)])
        // libzmq disconnects the peer in the middle of the frame: no reply, the request is lost.
        #expect(try dealer.receiveMultipart() == nil)

        // Other clients are served throughout.
        let other = try daemon.call(#"{"v":1,"id":"other","op":"ping"}"#)
        #expect(other.ok && other["id"] as? String == "other")

        // The client's socket reconnects by itself (libzmq's reconnect interval), and later requests
        // on it are answered.
        try dealer.set(.receiveTimeout, 10_000)
        let again = try daemon.call(#"{"v":1,"id":"again","op":"ping"}"#, on: dealer)
        #expect(again.ok && again["id"] as? String == "again")
    }

    @Test func routingFramesOverTheirLimitAreAnsweredTooLargeAndTheConnectionKeepsWorking() throws {
        let daemon = try daemon()
        let dealer = try daemon.dealer()
        try dealer.set(.receiveTimeout, 10_000)
        let frame = [UInt8](repeating: 0x61, count: FrontSocket.maxEnvelopeBytes)
        _ = try dealer.send(multipart: [frame, [], Array(#"{"v":1,"id":"routed","op":"ping"}"#.utf8)])
        // One answer, behind an empty delimiter only: the oversized frames are not sent back.
        let frames = try #require(try dealer.receiveMultipart())
        #expect(frames.count == 2 && frames[0].isEmpty)
        let refused = try TestDaemon.object(frames[frames.count - 1])
        #expect(refused.errorCode == "too_large")
        #expect(refused["id"] as? String == "routed")

        try dealer.set(.receiveTimeout, 10_000)
        let ping = try daemon.call(#"{"v":1,"id":"next","op":"ping"}"#, on: dealer)
        #expect(ping.ok && ping["id"] as? String == "next")
        let errors = try daemon.stats()["errors"] as? [String: Any]
        #expect(errors?["too_large"] as? Int == 1)
    }
}
