import Logging
import ZeroMQ

/// The one thread that owns every socket of the daemon: the front ROUTER, the stats ROUTER and the
/// events XPUB. It only moves bytes: requests go to the worker pool undecoded; replies and events come
/// back through the mailbox; stats are answered from a snapshot.
///
/// Not Sendable: it is created, run and closed on one thread, like the sockets it owns.
final class IOLoop {
    private let front: Socket
    private let statsSocket: Socket
    private let events: Socket
    private let mailbox: Mailbox<IOMessage>
    private let submit: (Envelope, RequestBody) -> Bool
    private let statsAnswer: (StatsRequestKind) -> [UInt8]
    private let isIdle: () -> Bool
    private let stats: ServerStats
    private let logger: Logger
    private let graceSeconds: Double
    /// Active subscriptions (distinct topic prefixes), from the XPUB's subscribe/unsubscribe messages.
    private var subscriptions: [[UInt8]: Int] = [:]

    /// The endpoints actually bound (a `:*` port resolved).
    let frontEndpoint: String
    let eventsEndpoint: String
    let statsEndpoint: String

    init(
        context: Context, configuration: ServerConfiguration, mailbox: Mailbox<IOMessage>, stats: ServerStats, logger: Logger,
        submit: @escaping (Envelope, RequestBody) -> Bool,
        statsAnswer: @escaping (StatsRequestKind) -> [UInt8],
        isIdle: @escaping () -> Bool
    ) throws {
        front = try Socket(.router, in: context)
        statsSocket = try Socket(.router, in: context)
        events = try Socket(.xpub, in: context)
        for socket in [front, statsSocket, events] {
            try socket.set(.linger, 0)
            try socket.set(.sendHighWaterMark, configuration.sendHighWaterMark)
        }
        try front.set(.maxMessageSize, configuration.maxMessageBytes)
        try statsSocket.set(.maxMessageSize, 64 * 1024)
        try front.bind(configuration.frontEndpoint)
        try events.bind(configuration.eventsEndpoint)
        try statsSocket.bind(configuration.statsEndpoint)
        frontEndpoint = try front.lastEndpoint
        eventsEndpoint = try events.lastEndpoint
        statsEndpoint = try statsSocket.lastEndpoint
        self.mailbox = mailbox
        self.submit = submit
        self.statsAnswer = statsAnswer
        self.isIdle = isIdle
        self.stats = stats
        self.logger = logger
        self.graceSeconds = configuration.shutdownGraceSeconds
    }

    /// Serves until a `.shutdown` message has arrived and every admitted request is answered
    /// (or the grace period is over), then closes the sockets.
    func run() {
        var poller = Poller()
        let frontToken = poller.register(front)
        let statsToken = poller.register(statsSocket)
        let eventsToken = poller.register(events)
        let mailboxToken = poller.register(fileDescriptor: mailbox.wakeUp.fileDescriptor)
        var drainingSince: ContinuousClock.Instant?

        while true {
            let ready: [Poller.Ready]
            do {
                ready = try poller.poll(timeout: pollTimeout(draining: drainingSince != nil))
            } catch {
                logger.error("poll failed; stopping", metadata: ["error": "\(error)"])
                break
            }
            for item in ready {
                switch item.token {
                case frontToken: receiveRequests(accepting: drainingSince == nil)
                case statsToken: answerStats()
                case eventsToken: receiveSubscriptions()
                case mailboxToken: mailbox.wakeUp.drain()
                default: break
                }
            }
            // Every pass sends what the workers have posted, woken for it or not: the replies to a
            // batch of requests leave together.
            if deliverMailbox(), drainingSince == nil {
                drainingSince = .now
                logger.info("shutting down: answering admitted requests")
            }
            if let since = drainingSince {
                if isIdle() {
                    if deliverMailbox() {}
                    break
                }
                if ContinuousClock.now - since > .seconds(graceSeconds) {
                    logger.warning("shutdown grace period over with requests unanswered")
                    break
                }
            }
        }
        close()
    }

    /// How long the next poll may block.
    private func pollTimeout(draining: Bool) -> Duration {
        // Replies already waiting: only look at the sockets, then send them. Otherwise block; from
        // here on a worker's post wakes the poll through the pipe.
        guard mailbox.prepareToBlock() else { return .zero }
        return draining ? .milliseconds(20) : .seconds(1)
    }

    /// Receives what is waiting on the front socket, a bounded batch at a time so the other sockets
    /// are not starved.
    private func receiveRequests(accepting: Bool) {
        for _ in 0..<256 {
            var envelope = Envelope()
            let body: RequestBody
            do {
                // Frames as they come: the routing frames are copied into one envelope, and the body
                // stays in its message.
                guard var frame = try front.receive(flags: .dontWait) else { return }
                while frame.more {
                    frame.withUnsafeBytes { envelope.append($0) }
                    // The rest of a multipart message is already there: libzmq delivers it whole.
                    guard let next = try front.receive(flags: .dontWait) else {
                        throw ZeroMQError(code: .again, operation: "zmq_msg_recv")
                    }
                    frame = next
                }
                body = RequestBody(frame)
            } catch {
                logger.warning("front receive failed", metadata: ["error": "\(error)"])
                return
            }
            guard !envelope.isEmpty else { continue }
            if !accepting {
                send(envelope: envelope, body: ErrorReplies.busy(for: body, message: "the daemon is shutting down"))
            } else if !submit(envelope, body) {
                stats.recordRequest(op: "unknown", micros: 0, errorCode: "busy")
                send(envelope: envelope, body: ErrorReplies.busy(for: body, message: "the request queue is full; retry later"))
            }
        }
    }

    private func answerStats() {
        for _ in 0..<64 {
            guard let frames = try? statsSocket.receiveMultipart(flags: .dontWait), let body = frames.last, frames.count >= 2 else { return }
            let answer = statsAnswer(StatsRequestKind(body: body))
            _ = try? statsSocket.send(multipart: Array(frames.dropLast()) + [answer], flags: .dontWait)
        }
    }

    /// XPUB delivers `0x01 topic` on a first subscription and `0x00 topic` when the last one leaves.
    private func receiveSubscriptions() {
        for _ in 0..<256 {
            guard let frame = try? events.receiveBytes(flags: .dontWait), let kind = frame.first else { return }
            let topic = Array(frame.dropFirst())
            if kind == 1 {
                subscriptions[topic, default: 0] += 1
            } else if kind == 0, let count = subscriptions[topic] {
                subscriptions[topic] = count > 1 ? count - 1 : nil
            }
            stats.setSubscribers(subscriptions.values.reduce(0, +))
        }
    }

    /// Sends every reply and event waiting in the mailbox; true when a shutdown was asked for.
    private func deliverMailbox() -> Bool {
        var shutdownAsked = false
        for message in mailbox.takeAll() {
            switch message {
            case .reply(let reply):
                send(envelope: reply.envelope, body: reply.body)
            case .event(let topic, let body):
                do {
                    _ = try events.send(multipart: [topic, body], flags: .dontWait)
                    stats.recordEventPublished()
                } catch {
                    logger.warning("event publish failed", metadata: ["error": "\(error)"])
                }
            case .shutdown:
                shutdownAsked = true
            }
        }
        return shutdownAsked
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
        front.close()
        statsSocket.close()
        events.close()
    }
}

/// What a stats request asks for.
enum StatsRequestKind: Sendable {
    case stats
    case metrics

    /// `stats`, `metrics`, or `{"op":"stats"}` / `{"op":"metrics"}`; anything else is `stats`.
    init(body: [UInt8]) {
        let text = String(decoding: body, as: UTF8.self)
        self = text.contains("metrics") ? .metrics : .stats
    }
}
