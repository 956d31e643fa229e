import Foundation
import Testing
import ZeroMQ
@testable import LayoutCluster
@testable import LayoutServer

/// Every front answers PROTOCOL.md §1 alike: a single daemon's, a cluster broker's (with a worker), and a
/// worker's direct endpoint, where only reads are served and the rest is answered `read_only`. One suite
/// over real sockets, run against each (issue 33: the three fronts had drifted apart).
@Suite(.serialized) struct FrontConformanceTests {
    static let limit = 64 * 1024
    static let transportCap = 256 * 1024

    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case daemon, broker, direct
        var testDescription: String { rawValue }
    }

    /// A running front of `kind` with small size limits, and its stats endpoint.
    final class Front {
        let kind: Kind
        let context: Context
        let endpoint: String
        let statsEndpoint: String
        /// The process behind the front: the daemon, the broker, or the worker of the direct endpoint.
        let node: RunningNode
        /// The epoch a direct read of `feed` names (0 for the other fronts, which need none).
        private(set) var epoch = 0
        private let daemon: TestDaemon?
        private let cluster: DirectReadCluster?

        init(_ kind: Kind) throws {
            self.kind = kind
            let configure: (inout ServerConfiguration) -> Void = {
                $0.maxMessageBytes = Int64(FrontConformanceTests.limit)
                $0.maxTransportBytes = Int64(FrontConformanceTests.transportCap)
            }
            switch kind {
            case .daemon, .broker:
                let daemon = try TestDaemon(kind == .daemon ? .single : .cluster(workers: 1), configure: configure)
                self.daemon = daemon
                cluster = nil
                context = daemon.context
                endpoint = daemon.running.frontEndpoint
                statsEndpoint = daemon.running.statsEndpoint
                node = daemon.running
            case .direct:
                let cluster = try DirectReadCluster(workers: ["direct-0"], configure: configure)
                self.cluster = cluster
                daemon = nil
                context = cluster.context
                endpoint = try #require(cluster.directEndpoints["direct-0"])
                statsEndpoint = try #require(cluster.workerStatsEndpoints["direct-0"])
                node = try #require(cluster.cluster.workers.first)
                // A worker that has just joined answers reads only once its first lease arrives.
                let key = try cluster.dealer()
                #expect(try cluster.call(mosaicJob(key: "feed"), on: key).ok)
                let route = try cluster.call(#"{"v":1,"id":"r","op":"route","layout":"feed"}"#, on: key)
                epoch = ((route["result"] as? [String: Any])?["keys"] as? [[String: Any]])?.first?["epoch"] as? Int ?? -1
                _ = try cluster.callUntilAnswered(#"{"v":1,"id":"q","op":"query","layout":"feed","epoch":\#(epoch),"items":[[0,0]]}"#, on: try cluster.dealer(endpoint))
            }
        }

        func dealer() throws -> Socket {
            let socket = try Socket(.dealer, in: context)
            try socket.set(.receiveTimeout, 10_000)
            try socket.connect(endpoint)
            return socket
        }

        /// Sends `frames` on `socket` and returns the reply's frames.
        func exchange(_ frames: [[UInt8]], on socket: Socket) throws -> [[UInt8]] {
            _ = try socket.send(multipart: frames)
            return try #require(try socket.receiveMultipart(), "no reply from the \(kind) front")
        }

        /// `[empty, body]` on a DEALER; the reply parsed.
        func call(_ body: String, on socket: Socket? = nil) throws -> [String: Any] {
            let frames = try exchange([[], Array(body.utf8)], on: try socket ?? dealer())
            #expect(frames.count == 2 && frames[0].isEmpty, "the reply carries the request's envelope back")
            return try TestDaemon.object(frames[frames.count - 1])
        }

        func stats() throws -> [String: Any] {
            let socket = try Socket(.req, in: context)
            try socket.set(.receiveTimeout, 5_000)
            try socket.connect(statsEndpoint)
            _ = try socket.send("stats")
            return try TestDaemon.object(try #require(try socket.receiveBytes(), "no stats answer"))
        }

        /// The number of `code` errors the front's process counted.
        func errors(_ code: String) throws -> Int {
            (try stats()["errors"] as? [String: Any])?[code] as? Int ?? 0
        }
    }

    /// A `ping` body of exactly `bytes` bytes, its id first or after the padding.
    static func paddedPing(bytes: Int, id: String, idFirst: Bool = true) -> String {
        let head = idFirst ? #"{"v":1,"id":"\#(id)","op":"ping","pad":""# : #"{"v":1,"op":"ping","pad":""#
        let tail = idFirst ? #""}"# : #"","id":"\#(id)"}"#
        return head + String(repeating: "x", count: bytes - head.utf8.count - tail.utf8.count) + tail
    }

    @Test(arguments: Kind.allCases) func aBodyOverTheLimitIsAnsweredTooLargeWithItsId(_ kind: Kind) throws {
        let front = try Front(kind)
        let dealer = try front.dealer()
        let reply = try front.call(Self.paddedPing(bytes: Self.limit + 1, id: "big-1"), on: dealer)
        #expect(reply["id"] as? String == "big-1" && reply.errorCode == "too_large" && reply.errorPath == nil)
        // The same connection is served next.
        let ping = try front.call(#"{"v":1,"id":"after","op":"ping"}"#, on: dealer)
        #expect(ping.ok && ping["id"] as? String == "after")
        #expect(try front.errors("too_large") == 1)
    }

    @Test(arguments: Kind.allCases) func aBodyOverTheLimitWithItsIdLateIsAnsweredWithoutIt(_ kind: Kind) throws {
        let front = try Front(kind)
        let reply = try front.call(Self.paddedPing(bytes: Self.transportCap - 1, id: "late", idFirst: false))
        #expect(reply.errorCode == "too_large")
        #expect(reply["id"] is NSNull)
    }

    @Test(arguments: Kind.allCases) func routingFramesOverTheirLimitAreAnsweredTooLarge(_ kind: Kind) throws {
        let front = try Front(kind)
        let dealer = try front.dealer()
        let frame = [UInt8](repeating: 0x61, count: FrontSocket.maxEnvelopeBytes)
        let frames = try front.exchange([frame, [], Array(#"{"v":1,"id":"routed","op":"ping"}"#.utf8)], on: dealer)
        // One answer, behind an empty delimiter only: the oversized frames are not sent back.
        #expect(frames.count == 2 && frames[0].isEmpty)
        let refused = try TestDaemon.object(frames[frames.count - 1])
        #expect(refused.errorCode == "too_large" && refused["id"] as? String == "routed")
        #expect(try front.call(#"{"v":1,"id":"next","op":"ping"}"#, on: dealer).ok)
    }

    @Test(arguments: Kind.allCases) func aFrameOverTheTransportCapCostsOnlyItsConnection(_ kind: Kind) throws {
        let front = try Front(kind)
        let dealer = try front.dealer()
        try dealer.set(.receiveTimeout, 1_000)
        _ = try dealer.send(multipart: [[], Array(Self.paddedPing(bytes: Self.transportCap + 1, id: "huge").utf8)])
        // libzmq drops the peer in the middle of the frame: no reply.
        #expect(try dealer.receiveMultipart() == nil)
        #expect(try front.call(#"{"v":1,"id":"other","op":"ping"}"#).ok, "other clients are served throughout")
        // The socket reconnects by itself, and is answered again.
        try dealer.set(.receiveTimeout, 10_000)
        let again = try front.call(#"{"v":1,"id":"again","op":"ping"}"#, on: dealer)
        #expect(again.ok && again["id"] as? String == "again")
    }

    @Test(arguments: Kind.allCases) func reqAndDealerEnvelopesAreAnsweredInKind(_ kind: Kind) throws {
        let front = try Front(kind)
        let req = try Socket(.req, in: front.context)
        try req.set(.receiveTimeout, 10_000)
        try req.connect(front.endpoint)
        _ = try req.send(#"{"v":1,"id":"req","op":"ping"}"#)
        let viaReq = try TestDaemon.object(try #require(try req.receiveBytes()))
        #expect(viaReq.ok && viaReq["id"] as? String == "req")
        // A DEALER without a delimiter gets its reply without one.
        let bare = try front.exchange([Array(#"{"v":1,"id":"bare","op":"ping"}"#.utf8)], on: try front.dealer())
        #expect(bare.count == 1)
        #expect(try TestDaemon.object(bare[0])["id"] as? String == "bare")
    }

    @Test(arguments: Kind.allCases) func malformedUTF8IsAnsweredAsTheDaemonAnswersIt(_ kind: Kind) throws {
        let front = try Front(kind)
        let reference = try Front(.daemon)
        let body = Array(#"{"v":1,"id":"utf","op":"ping","note":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)
        let expected = try TestDaemon.object(try reference.exchange([[], body], on: try reference.dealer())[1])
        let reply = try TestDaemon.object(try front.exchange([[], body], on: try front.dealer())[1])
        #expect(reply.errorCode != nil && reply.errorCode == expected.errorCode, "\(reply)")
        #expect(reply["id"] as? String == expected["id"] as? String)
    }

    @Test(arguments: Kind.allCases) func aChangeIsServedOrAnsweredReadOnly(_ kind: Kind) throws {
        let front = try Front(kind)
        let reply = try front.call(#"{"v":1,"id":"b","op":"bounds","layout":"feed","bounds":{"width":400,"height":900}}"#)
        if kind == .direct {
            #expect(reply.errorCode == "read_only" && reply.errorPath == "op")
        } else {
            #expect(reply.errorCode == "unknown_layout")
        }
    }

    @Test(arguments: Kind.allCases) func statsCountWhatTheFrontAnswered(_ kind: Kind) throws {
        let front = try Front(kind)
        let before = try front.stats()
        for index in 0..<3 { #expect(try front.call(#"{"v":1,"id":\#(index),"op":"ping"}"#).ok) }
        let after = try front.stats()
        let pings = { (stats: [String: Any]) in ((stats["requests"] as? [String: Any])?["ping"] as? Int) ?? 0 }
        #expect(pings(after) - pings(before) >= 3, "\(after)")
    }

    /// A stop (what SIGTERM asks for) answers every request the front read before it, then the process
    /// stops: admitted work is finished, and nothing read is left without an answer.
    @Test(arguments: Kind.allCases) func aStopAnswersWhatTheFrontReadBeforeIt(_ kind: Kind) throws {
        let front = try Front(kind)
        let dealer = try front.dealer()
        try dealer.set(.receiveTimeout, 60_000)
        // Work that keeps the pool busy past the stop: large prepares, or (at the direct endpoint, which
        // serves reads only) reads of every cell.
        let count = 8
        for index in 0..<count {
            let body = kind == .direct
                ? #"{"v":1,"id":"w\#(index)","op":"query","layout":"feed","epoch":\#(front.epoch),"rect":{"x":0,"y":0,"width":375,"height":100000}}"#
                : mosaicJob(key: "drain-\(index)", count: 1_000_000).replacingOccurrences(of: #""id":"prepare-1""#, with: #""id":"w\#(index)""#)
            _ = try dealer.send(multipart: [[], Array(body.utf8)])
        }
        // The front reads one connection's messages in order: once the ping behind them is answered,
        // every one of them was read.
        _ = try dealer.send(multipart: [[], Array(#"{"v":1,"id":"marker","op":"ping"}"#.utf8)])
        var answered: [String: [String: Any]] = [:]
        func receive() throws {
            let frames = try #require(try dealer.receiveMultipart(), "a request read before the stop was not answered (\(answered.count) were)")
            let reply = try TestDaemon.object(frames[frames.count - 1])
            answered[reply["id"] as? String ?? "?"] = reply
        }
        while answered["marker"] == nil { try receive() }
        front.node.requestStop()
        while answered.count < count + 1 { try receive() }
        for index in 0..<count {
            let reply = try #require(answered["w\(index)"])
            #expect(reply.ok || reply.errorCode == "busy", "\(reply)")
        }
        #expect(answered.values.contains { $0.ok && $0["id"] as? String != "marker" }, "admitted work was finished")
        let bound = Date().addingTimeInterval(60)
        while front.node.health.phase != .stopped, Date() < bound { usleep(20_000) }
        #expect(front.node.health.phase == .stopped, "the \(kind) stopped once it had answered")
    }
}
