import Foundation
import Testing
import ZeroMQ

@Suite struct MonitorAndProxyTests {
    /// The next event of one of `kinds`, skipping others (handshakes, listening); nil after the timeout.
    private func nextEvent(_ monitor: Socket, _ kinds: MonitorEvents) throws -> MonitorEvent? {
        while let event = try monitor.receiveMonitorEvent() {
            if kinds.contains(event.kind) { return event }
        }
        return nil
    }

    @Test func aMonitorReportsAConnectionsDescriptorOnAcceptAndDisconnect() throws {
        let context = try Context()
        let router = try makeSocket(.router, in: context)
        try router.bind("tcp://127.0.0.1:*")
        let monitorEndpoint = "inproc://monitor-\(UInt64.random(in: 0 ... .max))"
        try router.monitor(monitorEndpoint, events: [.accepted, .disconnected])
        let monitor = try makeSocket(.pair, in: context)
        try monitor.connect(monitorEndpoint)

        let dealer = try makeSocket(.dealer, in: context)
        try dealer.connect(router.lastEndpoint)
        try dealer.send("hello")
        let accepted = try #require(try nextEvent(monitor, .accepted))
        #expect(accepted.kind == .accepted)
        #expect(accepted.fileDescriptor > 2)

        let message = try required(router.receiveMultipartMessage())
        #expect(message.last.string == "hello")
        // The body remembers the connection it came over: the same descriptor the monitor reported.
        #expect(message.last.sourceFileDescriptor == accepted.fileDescriptor)

        dealer.close()
        let disconnected = try #require(try nextEvent(monitor, .disconnected))
        #expect(disconnected.fileDescriptor == accepted.fileDescriptor)
        #expect(disconnected.endpoint == (try router.lastEndpoint))
    }

    @Test func aLocallyMadeMessageHasNoSourceDescriptor() throws {
        #expect(try Message("local").sourceFileDescriptor == nil)
    }

    @Test func malformedMonitorMessagesAreNotEvents() {
        #expect(MonitorEvent(frames: [[1, 2, 3]]) == nil)
        #expect(MonitorEvent(frames: [[0, 2, 0, 0, 0, 7], Array("tcp://x".utf8)])?.kind == .disconnected)
    }

    @Test func aCopySharesTheContentAndBothCanBeSent() throws {
        let context = try Context()
        let pull = try makeSocket(.pull, in: context)
        let push = try makeSocket(.push, in: context)
        try link(pull, push, over: .tcp)
        let large = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try push.send(large)
        let received = try required(pull.receive())
        let copy = try received.copy()
        #expect(copy.count == large.count)
        // Large contents are shared, not copied: both messages see the same memory.
        let sameMemory = received.withUnsafeBytes { original in copy.withUnsafeBytes { $0.baseAddress == original.baseAddress } }
        #expect(sameMemory)
        try push.send(Message("small"))
        let small = try required(pull.receive())
        #expect(try small.copy().string == "small")

        let loop = try makeSocket(.pull, in: context)
        let sender = try makeSocket(.push, in: context)
        try link(loop, sender, over: .inproc)
        try sender.send(copy)
        try sender.send(received)
        #expect(try loop.receiveBytes() == large)
        #expect(try loop.receiveBytes() == large)
    }

    @Test func theSteerableProxyForwardsEventsAndSubscriptionsUntilTerminated() throws {
        let context = try Context()
        let unique = UInt64.random(in: 0 ... .max)
        let inbound = "inproc://proxy-in-\(unique)", outbound = "inproc://proxy-out-\(unique)"
        let captureEndpoint = "inproc://proxy-capture-\(unique)", controlEndpoint = "inproc://proxy-control-\(unique)"
        let ready = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let outcome = LockedBox<String>("running")
        // The proxy's four sockets are made and used on its own thread.
        let thread = Thread {
            do {
                let xsub = try Socket(.xsub, in: context)
                let xpub = try Socket(.xpub, in: context)
                let capture = try Socket(.pub, in: context)
                let control = try Socket(.pair, in: context)
                try xsub.bind(inbound)
                try xpub.bind(outbound)
                try capture.bind(captureEndpoint)
                try control.bind(controlEndpoint)
                ready.signal()
                try Proxy.runSteerable(frontend: xsub, backend: xpub, capture: capture, control: control)
                outcome.set("terminated")
            } catch {
                outcome.set("failed: \(error)")
                ready.signal()
            }
            finished.signal()
        }
        thread.start()
        ready.wait()

        let captured = try makeSocket(.sub, in: context)
        try captured.subscribe()
        try captured.connect(captureEndpoint)
        let subscriber = try makeSocket(.sub, in: context)
        try subscriber.subscribe("batch:")
        try subscriber.connect(outbound)
        let publisher = try makeSocket(.pub, in: context)
        try publisher.connect(inbound)

        // The subscription travels XPUB → XSUB → publisher; publish until it has arrived.
        var delivered: [[UInt8]]?
        for _ in 0..<200 where delivered == nil {
            try publisher.send(multipart: [bytes("batch:feed"), bytes("{}")])
            try subscriber.set(.receiveTimeout, 20)
            delivered = try subscriber.receiveMultipart()
        }
        #expect(delivered == [bytes("batch:feed"), bytes("{}")])
        // The capture saw the subscription going upstream and the event going downstream.
        try captured.set(.receiveTimeout, 1_000)
        var sawSubscription = false, sawEvent = false
        while !(sawSubscription && sawEvent), let frames = try captured.receiveMultipart() {
            if frames == [[1] + bytes("batch:")] { sawSubscription = true }
            if frames == [bytes("batch:feed"), bytes("{}")] { sawEvent = true }
        }
        #expect(sawSubscription && sawEvent)

        let control = try makeSocket(.pair, in: context)
        try control.connect(controlEndpoint)
        try control.send(Proxy.Command.terminate.rawValue)
        #expect(finished.wait(timeout: .now() + 5) == .success)
        #expect(outcome.value == "terminated")
    }
}

/// A value shared with a thread the test starts.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
}
