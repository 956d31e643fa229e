import Logging
import ZeroMQ

/// The one thread that owns every socket of the daemon: the front ROUTER, the stats ROUTER and the
/// events XPUB. It moves bytes, and answers the cheapest requests itself (`FrontDesk`: a `ping`, a small
/// query); the rest go to the worker pool, and their replies and events come back through the mailbox;
/// stats are answered from a snapshot.
///
/// Not Sendable: it is created, run and closed on one thread, like the sockets it owns.
final class IOLoop {
    private let front: Socket
    private let statsSocket: Socket
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
    private let graceSeconds: Double
    /// Bodies larger than this are answered `too_large` here, without a worker (`limits.maxMessageBytes`).
    private let maxMessageBytes: Int64
    /// What the mailbox held, being delivered; kept between passes so its array is reused.
    private var inbox: [IOMessage] = []
    /// What deliveries made while receiving (before a reply answered here) sent, for the loop to act on.
    private var deliveredWhileReceiving = Delivered()
    /// Active subscriptions (distinct topic prefixes), from the XPUB's subscribe/unsubscribe messages.
    private var subscriptions: [[UInt8]: Int] = [:]
    /// With CURVE: who may do what, asked per message (see `AccessGate`); nil without CURVE.
    private let gate: AccessGate?

    /// The endpoints actually bound (a `:*` port resolved).
    let frontEndpoint: String
    let eventsEndpoint: String
    let statsEndpoint: String

    init(
        context: Context, configuration: ServerConfiguration, mailbox: Mailbox<IOMessage>, stats: ServerStats, logger: Logger,
        desk: FrontDesk,
        statsAnswer: @escaping (StatsRequestKind) -> [UInt8],
        isIdle: @escaping () -> Bool,
        access: AccessControl? = nil,
        health: DaemonHealth = DaemonHealth(),
        audience: EventAudience? = nil
    ) throws {
        front = try Socket(.router, in: context)
        statsSocket = try Socket(.router, in: context)
        events = try Socket(.xpub, in: context)
        for socket in [front, statsSocket, events] {
            try socket.set(.linger, 0)
            try socket.set(.sendHighWaterMark, configuration.sendHighWaterMark)
        }
        // Beyond the transport cap libzmq drops the peer; between the limit and the cap the body is
        // received whole and answered `too_large` (receiveRequests).
        try front.set(.maxMessageSize, configuration.resolvedMaxTransportBytes)
        try statsSocket.set(.maxMessageSize, 64 * 1024)
        if let access { try AccessGate.secure(front: front, events: events, stats: statsSocket, with: access) }
        gate = access.map { AccessGate(access: $0) }
        try front.bind(configuration.frontEndpoint)
        try events.bind(configuration.eventsEndpoint)
        try statsSocket.bind(configuration.statsEndpoint)
        frontEndpoint = try front.lastEndpoint
        eventsEndpoint = try events.lastEndpoint
        statsEndpoint = try statsSocket.lastEndpoint
        self.mailbox = mailbox
        self.desk = desk
        self.statsAnswer = statsAnswer
        self.isIdle = isIdle
        self.health = health
        self.stats = stats
        self.audience = audience
        self.logger = logger
        self.graceSeconds = configuration.shutdownGraceSeconds
        self.maxMessageBytes = configuration.maxMessageBytes
    }

    /// Serves until a `.shutdown` message has arrived and every admitted request is answered
    /// (or the grace period is over), then closes the sockets.
    func run() {
        var poll: DescriptorPoll
        do {
            poll = DescriptorPoll([
                try front.get(.fileDescriptor), try statsSocket.get(.fileDescriptor), try events.get(.fileDescriptor),
                mailbox.wakeUp.fileDescriptor,
            ])
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
        var drainingSince: ContinuousClock.Instant?

        while true {
            health.notePass()
            if frontPending { frontPending = receiveRequests(accepting: drainingSince == nil) }
            // Every pass sends what the workers have posted, woken for it or not: the replies to a
            // batch of requests leave together.
            var delivered = deliverMailbox()
            delivered.formUnion(deliveredWhileReceiving)
            deliveredWhileReceiving = Delivered()
            if delivered.replies { frontPending = true }
            if delivered.events { eventsPending = true }
            if statsPending { statsPending = answerStats() }
            if eventsPending { eventsPending = receiveSubscriptions() }
            if delivered.shutdown, drainingSince == nil {
                drainingSince = .now
                logger.info("shutting down: answering admitted requests")
            }
            if let since = drainingSince {
                if isIdle() {
                    _ = deliverMailbox()
                    // Requests that arrived after the last look are answered `busy`, not left to time out.
                    while receiveRequests(accepting: false) {}
                    break
                }
                if ContinuousClock.now - since > .seconds(graceSeconds) {
                    logger.warning("shutdown grace period over with requests unanswered")
                    break
                }
            }
            // Work left: only look. Otherwise block; from here on a worker's post wakes the poll
            // through the pipe.
            let busy = frontPending || statsPending || eventsPending || !mailbox.prepareToBlock()
            let ready: DescriptorPoll.Ready
            do {
                ready = try poll.wait(timeout: busy ? .zero : drainingSince == nil ? .seconds(1) : .milliseconds(20))
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

    /// The routing frames (all but the body) a request may carry, in bytes: ROUTER's routing id (at most
    /// 255 bytes), REQ's empty delimiter, and whatever small frames a DEALER client adds.
    static let maxEnvelopeBytes = 64 * 1024

    /// Receives what is waiting on the front socket, a bounded batch at a time so the other sockets
    /// are not starved; true when it stopped at the bound (more may be waiting).
    private func receiveRequests(accepting: Bool) -> Bool {
        for _ in 0..<256 {
            var envelope = Envelope()
            var envelopeBytes = 0
            let body: RequestBody
            do {
                // Frames as they come: the routing frames are copied into one envelope, and the body
                // stays in its message.
                guard var frame = try front.receive(flags: .dontWait) else { return false }
                // The envelope ends at the first empty frame (the delimiter) or, without one, before
                // the last frame; frames after a delimited body are its attachments (PROTOCOL.md §1).
                var delimited = false
                while frame.more && !delimited {
                    delimited = frame.count == 0
                    envelopeBytes += frame.count
                    if envelopeBytes <= Self.maxEnvelopeBytes { frame.withUnsafeBytes { envelope.append($0) } }
                    // The rest of a multipart message is already there: libzmq delivers it whole.
                    frame = try front.receiveFollowingFrame()
                }
                var attachments: [RequestBody] = []
                var more = frame.more
                while more {
                    let attachment = try front.receiveFollowingFrame()
                    more = attachment.more
                    attachments.append(RequestBody(attachment))
                }
                if let gate {
                    // With CURVE: who sent it, from the connection's User-Id; a key taken off the
                    // list meanwhile gets nothing.
                    guard let caller = gate.caller(of: frame) else { continue }
                    body = RequestBody(frame, caller: caller, attachments: attachments)
                } else {
                    body = RequestBody(frame, attachments: attachments)
                }
            } catch {
                logger.warning("front receive failed", metadata: ["error": "\(error)"])
                return false
            }
            guard !envelope.isEmpty else { continue }
            guard envelopeBytes <= Self.maxEnvelopeBytes else {
                // A reply cannot carry these frames back (copying them would stall every other client),
                // but the client still gets its one answer: addressed to its routing id alone, behind
                // an empty delimiter, as a DEALER or REQ client reads it.
                stats.recordRequest(op: "unknown", micros: 0, errorCode: "too_large")
                logger.warning("request refused: its routing frames are over the limit", metadata: ["bytes": "\(envelopeBytes)", "limit": "\(Self.maxEnvelopeBytes)"])
                let routingID = envelope.frames.first ?? []
                send(envelope: Envelope([routingID, []]), body: ErrorReplies.tooLarge(routingFrameBytes: envelopeBytes, for: body, limit: Self.maxEnvelopeBytes))
                continue
            }
            if Int64(body.totalCount) > maxMessageBytes {
                // Checked before anything else: the same request would be too large after a retry too.
                stats.recordRequest(op: "unknown", micros: 0, errorCode: "too_large")
                send(envelope: envelope, body: ErrorReplies.tooLarge(for: body, limit: maxMessageBytes))
            } else if !accepting {
                send(envelope: envelope, body: ErrorReplies.busy(for: body, message: "the daemon is shutting down"))
            } else {
                switch desk.look(at: body, envelope: envelope) {
                case .answered(let reply, let afterPosted):
                    // Replies a worker posted for earlier ops on the same layout go first, as they
                    // would if the pool had answered this one too.
                    if afterPosted { deliveredWhileReceiving.formUnion(deliverMailbox()) }
                    send(envelope: envelope, body: reply)
                case .pool(let pending):
                    if !desk.admit(pending) {
                        stats.recordRequest(op: "unknown", micros: 0, errorCode: "busy")
                        send(envelope: envelope, body: ErrorReplies.busy(for: body, message: "the request queue is full; retry later"))
                    }
                }
            }
        }
        return true
    }

    /// Answers waiting stats requests; true when it stopped at its bound (more may be waiting).
    private func answerStats() -> Bool {
        for _ in 0..<64 {
            if let gate {
                // With CURVE, only a key listed as admin now: the request is read as a message for
                // its User-Id.
                guard let received = try? statsSocket.receiveMultipartMessage(flags: .dontWait) else { return false }
                let head = received.head
                guard gate.admitsStats(received.last), !head.isEmpty else { continue }
                let answer = statsAnswer(StatsRequestKind(body: received.last.bytes))
                _ = try? statsSocket.send(multipart: head + [answer], flags: .dontWait)
                continue
            }
            guard let frames = try? statsSocket.receiveMultipart(flags: .dontWait) else { return false }
            // A message without an envelope cannot be answered: dropped.
            guard frames.count >= 2, let body = frames.last else { continue }
            let answer = statsAnswer(StatsRequestKind(body: body))
            _ = try? statsSocket.send(multipart: Array(frames.dropLast()) + [answer], flags: .dontWait)
        }
        return true
    }

    /// XPUB delivers `0x01 topic` on a first subscription and `0x00 topic` when the last one leaves.
    /// True when it stopped at its bound (more may be waiting).
    private func receiveSubscriptions() -> Bool {
        for _ in 0..<256 {
            let kind: UInt8
            let topic: [UInt8]
            if let gate {
                // With CURVE the XPUB is manual: the gate files each subscription for its subscriber.
                guard let message = try? events.receive(flags: .dontWait) else { return false }
                guard let filed = gate.file(subscription: message, on: events) else { continue }
                (kind, topic) = (filed.subscribe ? 1 : 0, filed.prefix)
            } else {
                guard let frame = try? events.receiveBytes(flags: .dontWait) else { return false }
                guard let first = frame.first else { continue }
                (kind, topic) = (first, Array(frame.dropFirst()))
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
                send(envelope: reply.envelope, body: reply.body)
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
            case .toBroker:
                continue
            case .shutdown:
                delivered.shutdown = true
            }
        }
        return delivered
    }

    private func send(envelope: Envelope, body: [UInt8]) {
        send(envelope: envelope, body: ReplyBody(body))
    }

    private func send(envelope: Envelope, body: ReplyBody) {
        do {
            // A peer that went away or stopped reading (high-water mark) loses its reply; the daemon
            // must never block on one client. Only the first frame can meet a full queue: libzmq queues
            // a multipart message whole or not at all.
            let front = self.front
            let headSent = try envelope.forEachFrame { (frame) throws(ZeroMQError) -> Bool in
                try front.send(frame, flags: [.dontWait, .sendMore])
            }
            guard headSent else { return }
            _ = try body.send(on: front, flags: .dontWait)
        } catch {
            logger.debug("reply not sent", metadata: ["error": "\(error)"])
        }
    }

    private func close() {
        // A short linger lets the last replies leave before the context terminates; bounded, so it cannot hang.
        try? front.set(.linger, 1000)
        try? events.set(.linger, 1000)
        front.close()
        statsSocket.close()
        events.close()
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
