import Foundation
import Logging
import Testing
import ZeroMQ
@testable import LayoutCluster

/// Issue 14, defect 3 said the event capture (what tells the broker of evictions) drops at its
/// high-water mark, so a missed eviction could later bring an evicted layout back. The broker's capture
/// SUB has no receive bound, and libzmq bounds an inproc pipe only when both ends are bounded: a burst far
/// past the events' high-water mark reaches the broker whole, however late it reads.
struct EventCaptureTests {
    @Test func aBurstPastTheHighWaterMarkReachesTheBrokersCaptureWhole() throws {
        let context = try Context()
        defer { context.terminate() }
        var logger = Logger(label: "capture-test")
        logger.logLevel = .critical
        let proxy = try EventProxy(
            context: context, eventsEndpoint: "tcp://127.0.0.1:*", eventsInEndpoint: "tcp://127.0.0.1:*", sendHighWaterMark: 10, access: nil, logger: logger
        )
        defer {
            if let control = try? Socket(.pair, in: context) {
                try? control.connect(proxy.controlEndpoint)
                _ = try? control.send(Proxy.Command.terminate.rawValue)
                proxy.waitUntilFinished()
                control.close()
            }
        }
        // As the broker's loop sets it up.
        let capture = try Socket(.sub, in: context)
        defer { capture.close() }
        try capture.set(.receiveHighWaterMark, 0)
        try capture.subscribe()
        try capture.connect(proxy.captureEndpoint)
        try capture.set(.receiveTimeout, 100)

        let worker = try Socket(.pub, in: context)
        defer { worker.close() }
        try worker.set(.sendHighWaterMark, 0)
        try worker.connect(proxy.eventsInEndpoint)
        // The proxy's XSUB subscribes to everything once connected: probe until a marker gets through.
        var joined = false
        for _ in 0..<200 where !joined {
            _ = try worker.send(multipart: [Array("probe:".utf8), Array("{}".utf8)])
            if let frames = try capture.receiveMultipart(), frames.first == Array("probe:".utf8) { joined = true }
        }
        try #require(joined, "the proxy never forwarded an event")
        while (try? capture.receiveMultipart(flags: .dontWait)) ?? nil != nil {}

        // 2,000 evictions at once, 200 times the high-water mark, while the broker reads nothing.
        let count = 2_000
        for index in 0..<count {
            _ = try worker.send(multipart: [Array("invalidated:k\(index)".utf8), Array(#"{"layout":"k\#(index)","version":2,"reason":"evicted"}"#.utf8)])
        }
        var received = 0
        try capture.set(.receiveTimeout, 2_000)
        while received < count, let frames = try capture.receiveMultipart() {
            if frames.first?.starts(with: Array("invalidated:".utf8)) == true { received += 1 }
        }
        #expect(received == count)
    }
}
