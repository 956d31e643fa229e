import Foundation
import LayoutCluster
import Logging
import Testing
import ZeroMQ
@testable import LayoutServer

/// A worker runs RELEASE in its key's order (issue 14, defect 7): a request the broker sent before the
/// RELEASE cannot bring the key back after it. Driven by a fake broker over the real worker protocol.
@Suite(.serialized) struct WorkerReleaseOrderTests {
    @Test func aPrepareQueuedBeforeAReleaseDoesNotOutliveIt() throws {
        let context = try Context()
        defer { context.terminate() }
        let fake = try FakeBrokerSockets(in: context, backReceiveTimeout: 100)
        let back = fake.back
        var logger = Logger(label: "release-order-test")
        logger.logLevel = .warning
        let worker = try ClusterWorker(configuration: fake.configuration, cluster: fake.cluster, logger: logger).start()
        defer { worker.stop() }

        func receive() throws -> [[UInt8]] { try fake.receive() }
        // READY: [identity, "", MDPW01, 0x01, "layoutd", json].
        let ready = try receive()
        #expect(ready.count == 6 && ready[3] == [0x01], "\(ready.count) frames")
        let identity = ready[0]
        func send(_ command: UInt8, _ frames: [[UInt8]]) throws {
            _ = try back.send(multipart: [identity, [], Array("MDPW01".utf8), [command]] + frames)
        }
        func request(_ token: UInt64, _ body: String) throws {
            try send(0x02, [withUnsafeBytes(of: token.littleEndian) { Array($0) }, [], Array(body.utf8)])
        }
        // A slow prepare, a second one queued behind it, then RELEASE, back to back: the RELEASE reaches
        // the worker while the first still runs.
        try request(1, #"{"id":1,"op":"prepare","layout":"k","bounds":{"width":375,"height":800},"spec":{"type":"mosaic"},"sections":[{"count":2000000}]}"#)
        try request(2, #"{"id":2,"op":"prepare","layout":"k","bounds":{"width":375,"height":800},"spec":{"type":"mosaic"},"sections":[{"count":10}]}"#)
        try send(0x82, [Array("k".utf8)])
        try request(3, #"{"id":3,"op":"list"}"#)

        var listed: [String: Any]?
        while listed == nil {
            let frames = try receive()
            // REPLY: [identity, "", MDPW01, 0x03, token, "", body]; heartbeats and the rest skipped.
            guard frames.count == 7, frames[3] == [0x03], let token = frames[4].withUnsafeBytes({ $0.count == 8 ? $0.loadUnaligned(as: UInt64.self) : nil }) else { continue }
            if UInt64(littleEndian: token) == 3 { listed = try TestDaemon.object(frames[6]) }
        }
        let layouts = try #require(listed?.result["layouts"] as? [[String: Any]])
        #expect(layouts.isEmpty, "the released key came back: \(layouts)")
    }
}
