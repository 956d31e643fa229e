import LayoutWire
import Logging
import ZeroMQ

/// The one thread that owns every socket of the daemon: the front ROUTER, the stats ROUTER and the
/// events XPUB. It moves bytes, and answers the cheapest requests itself (`FrontDesk`: a `ping`, a small
/// query); the rest go to the worker pool, and their replies and events come back through the mailbox;
/// stats are answered from a snapshot.
///
/// Not Sendable: it is created, run and closed on one thread, like the sockets it owns.
final class IOLoop {
    private let front: FrontSocket
    private let statsSocket: StatsResponder
    private let events: Socket
    private let mailbox: Mailbox<IOMessage>
    /// Answers a request here or admits it to the pool.
    private let desk: FrontDesk
    private let statsAnswer: (StatsRequestKind) -> [UInt8]
    private let isIdle: () -> Bool
    private let health: DaemonHealth
    private let stats: ServerStats
    /// Told whether anyone subscribes, so that changes nobody subscribes to make no event.
    private let audience: EventAudience?
    private let logger: Logger
    private var drain: ShutdownDrain
    /// What the mailbox held, being delivered; kept between passes so its array is reused.
    private var inbox: [IOMessage] = []
    /// What deliveries made while receiving (before a reply answered here) sent, for the loop to act on.
    private var deliveredWhileReceiving = Delivered()
    /// Active subscriptions (distinct topic prefixes), from the XPUB's subscribe/unsubscribe messages.
    private var subscriptions: [[UInt8]: Int] = [:]
    /// With CURVE: who may do what, asked per message (see `AccessGate`); nil without CURVE.
    private let gate: AccessGate?

    /// The endpoints actually bound (a `:*` port resolved).
    var frontEndpoint: String { front.endpoint }
    let eventsEndpoint: String
    var statsEndpoint: String { statsSocket.endpoint }

    init(
        context: Context, configuration: ServerConfiguration, mailbox: Mailbox<IOMessage>, stats: ServerStats, logger: Logger,
        desk: FrontDesk,
        statsAnswer: @escaping (StatsRequestKind) -> [UInt8],
        isIdle: @escaping () -> Bool,
        access: AccessControl? = nil,
        health: DaemonHealth = DaemonHealth(),
        audience: EventAudience? = nil
    ) throws {
        front = try FrontSocket(
            context: context, endpoint: configuration.frontEndpoint, configuration: configuration, access: access,
            policy: FrontPolicy(roleName: "daemon", maxMessageBytes: configuration.maxMessageBytes), stats: stats, logger: logger
        )
        events = try Socket(.xpub, in: context)
        try events.set(.linger, 0)
        try events.set(.sendHighWaterMark, configuration.sendHighWaterMark)
        if let access { try AccessGate.secureEvents(events, with: access) }
        try events.bind(configuration.eventsEndpoint)
        eventsEndpoint = try events.lastEndpoint
        statsSocket = try StatsResponder(context: context, endpoint: configuration.statsEndpoint, sendHighWaterMark: configuration.sendHighWaterMark, access: access)
        gate = access.map { AccessGate(access: $0) }
        self.mailbox = mailbox
        self.desk = desk
        self.statsAnswer = statsAnswer
        self.isIdle = isIdle
        self.health = health
        self.stats = stats
        self.audience = audience
        self.logger = logger
        drain = ShutdownDrain(graceSeconds: configuration.shutdownGraceSeconds)
    }

    /// Serves until a `.shutdown` message has arrived and every admitted request is answered
    /// (or the grace period is over), then closes the sockets.
    func run() {
        var poll: DescriptorPoll
        do {
            poll = DescriptorPoll([front.fileDescriptor, statsSocket.fileDescriptor, try events.get(.fileDescriptor), mailbox.wakeUp.fileDescriptor])
        } catch {
            logger.error("cannot read the sockets' descriptors; stopping", metadata: ["error": "\(error)"])
            close()
            return
        }
        // Whether a socket may have messages waiting. A socket's descriptor is edge-triggered: it fires
        // when the socket's state may have changed, and any operation on the socket may consume that
        // signal. So a socket is read until a receive finds nothing, and read again after it fired or
        // after something was sent on it, before the loop may block.
        var frontPending = true
        var statsPending = true
        var eventsPending = true

        while true {
            health.notePass()
            if frontPending { frontPending = receiveRequests() }
            // Every pass sends what the workers have posted, woken for it or not: the replies to a
            // batch of requests leave together.
            var delivered = deliverMailbox()
            delivered.formUnion(deliveredWhileReceiving)
            deliveredWhileReceiving = Delivered()
            if front.takeSentSinceLook() { frontPending = true }
            if delivered.events { eventsPending = true }
            if statsPending { statsPending = statsSocket.answerWaiting(statsAnswer) }
            if eventsPending { eventsPending = receiveSubscriptions() }
            if delivered.shutdown, drain.begin() {
                logger.info("shutting down: answering admitted requests")
            }
            if !drain.isAccepting {
                if isIdle() {
                    _ = deliverMailbox()
                    // Requests that arrived after the last look are answered `busy`, not left to time out.
                    while receiveRequests() {}
                    break
                }
                if drain.isOverGrace() {
                    logger.warning("shutdown grace period over with requests unanswered")
                    break
                }
            }
            // Work left: only look. Otherwise block; from here on a worker's post wakes the poll
            // through the pipe.
            let busy = frontPending || statsPending || eventsPending || !mailbox.prepareToBlock()
            let ready: DescriptorPoll.Ready
            do {
                ready = try poll.wait(timeout: drain.pollTimeout(busy: busy, serving: .seconds(1)))
            } catch {
                logger.error("poll failed; stopping", metadata: ["error": "\(error)"])
                break
            }
            if ready.contains(0) { frontPending = true }
            if ready.contains(1) { statsPending = true }
            if ready.contains(2) { eventsPending = true }
            if ready.contains(3) { mailbox.wakeUp.drain() }
        }
        close()
    }

    /// Receives what is waiting on the front socket, a bounded batch at a time; true when it stopped at
    /// the bound (more may be waiting).
    private func receiveRequests() -> Bool {
        front.receive(accepting: drain.isAccepting) { arrived, _ in
            let envelope = arrived.envelope
            let body = arrived.requestBody()
            switch desk.look(at: body, envelope: envelope) {
            case .answered(let reply, let afterPosted):
                // Replies a worker posted for earlier ops on the same layout go first, as they
                // would if the pool had answered this one too.
                if afterPosted { deliveredWhileReceiving.formUnion(deliverMailbox()) }
                front.send(envelope: envelope, body: reply)
            case .pool(let pending):
                if !desk.admit(pending) {
                    stats.recordRequest(op: "unknown", micros: 0, errorCode: "busy")
                    front.send(envelope: envelope, bytes: FrontReplies.busy(for: body, message: "the request queue is full; retry later"))
                }
            }
        }
    }

    /// XPUB delivers `0x01 topic` on a first subscription and `0x00 topic` when the last one leaves.
    /// True when it stopped at its bound (more may be waiting).
    private func receiveSubscriptions() -> Bool {
        for _ in 0..<256 {
            let kind: UInt8
            let topic: [UInt8]
            // The topic as the subscriber receives events under it (with CURVE, behind its key).
            let received: [UInt8]
            // The topic the subscriber means: with CURVE, without its key, whether or not it wrote it.
            let unkeyed: [UInt8]
            if let gate {
                // With CURVE the XPUB is manual: the gate files each subscription for its subscriber.
                guard let message = try? events.receive(flags: .dontWait) else { return false }
                guard let filed = gate.file(subscription: message, on: events) else { continue }
                (kind, topic, received) = (filed.subscribe ? 1 : 0, filed.prefix, filed.filed)
                unkeyed = filed.topic
            } else {
                guard let frame = try? events.receiveBytes(flags: .dontWait) else { return false }
                guard let first = frame.first else { continue }
                (kind, topic) = (first, Array(frame.dropFirst()))
                received = topic
                unkeyed = topic
            }
            if kind == 1, let token = SubscriptionConfirmation.token(inTopic: unkeyed) {
                // Read in order after the same socket's earlier subscriptions, which are in effect now.
                let event = SubscriptionConfirmation.event(topic: received, token: token)
                _ = try? events.send(multipart: [event.topic, event.body], flags: .dontWait)
            }
            if kind == 1 {
                subscriptions[topic, default: 0] += 1
            } else if kind == 0, let count = subscriptions[topic] {
                subscriptions[topic] = count > 1 ? count - 1 : nil
            }
            // Before stats report the subscription: a client that waits for it there gets every later event.
            audience?.setListening(!subscriptions.isEmpty)
            stats.setSubscribers(subscriptions.values.reduce(0, +))
        }
        return true
    }

    /// What a delivery of the mailbox did.
    struct Delivered {
        var replies = false
        var events = false
        var shutdown = false

        mutating func formUnion(_ other: Delivered) {
            replies = replies || other.replies
            events = events || other.events
            shutdown = shutdown || other.shutdown
        }
    }

    /// Sends every reply and event waiting in the mailbox: whether it sent replies and events, and
    /// whether a shutdown was asked for.
    private func deliverMailbox() -> Delivered {
        var delivered = Delivered()
        mailbox.takeAll(into: &inbox)
        defer { inbox.removeAll(keepingCapacity: true) }
        for message in inbox {
            switch message {
            case .reply(let reply):
                front.send(envelope: reply.envelope, body: reply.body)
                delivered.replies = true
            case .event(let namespace, let topic, let body):
                do {
                    if let gate {
                        if try gate.publish(namespace: namespace, topic: topic, body: body, on: events) { stats.recordEventPublished() }
                    } else {
                        _ = try events.send(multipart: [topic, body], flags: .dontWait)
                        stats.recordEventPublished()
                    }
                } catch {
                    logger.warning("event publish failed", metadata: ["error": "\(error)"])
                }
                delivered.events = true
            case .shutdown:
                delivered.shutdown = true
            }
        }
        return delivered
    }

    private func close() {
        // A short linger lets the last replies and events leave before the context terminates; bounded,
        // so it cannot hang.
        front.close()
        try? events.set(.linger, 1000)
        events.close()
        statsSocket.close()
    }
}

/// What a stats request asks for.
public enum StatsRequestKind: Sendable {
    case stats
    case metrics

    /// `stats`, `metrics`, or `{"op":"stats"}` / `{"op":"metrics"}`; anything else is `stats`.
    public init(body: [UInt8]) {
        let text = String(decoding: body, as: UTF8.self)
        self = text.contains("metrics") ? .metrics : .stats
    }
}
