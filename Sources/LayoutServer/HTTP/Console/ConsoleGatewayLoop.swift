import Logging
import NIOCore
import ZeroMQ

/// The gateway thread's loop: forwards asks to the front and stats sockets, matches replies to them by
/// a ticket frame put before the body (PROTOCOL.md: whatever precedes the delimiter comes back), fails
/// those that outlive the timeout, and fans events out to the open streams.
struct ConsoleGatewayLoop {
    private struct Pending {
        var promise: EventLoopPromise<[UInt8]>
        var deadline: ContinuousClock.Instant
    }

    private let sockets: ConsoleSockets
    private let mailbox: Mailbox<ConsoleGateway.Ask>
    private let timeout: Duration
    /// With CURVE, every topic this subscriber receives starts with its own key (PROTOCOL.md §7).
    private let topicPrefix: String
    private let logger: Logger
    private var pending: [UInt64: Pending] = [:]
    private var nextTicket: UInt64 = 1
    private var streams: [ObjectIdentifier: ConsoleStream] = [:]
    private var lastHeartbeat = ContinuousClock.now
    private static let heartbeat: Duration = .seconds(15)

    init(sockets: ConsoleSockets, mailbox: Mailbox<ConsoleGateway.Ask>, timeout: Duration, topicPrefix: String, logger: Logger) {
        self.sockets = sockets
        self.mailbox = mailbox
        self.timeout = timeout
        self.topicPrefix = topicPrefix
        self.logger = logger
    }

    mutating func run() {
        var poller = Poller()
        let frontToken = poller.register(sockets.front)
        let statsToken = poller.register(sockets.stats)
        let eventsToken = poller.register(sockets.events)
        let wakeToken = poller.register(fileDescriptor: mailbox.wakeUp.fileDescriptor)
        var asks: [ConsoleGateway.Ask] = []
        while true {
            mailbox.takeAll(into: &asks)
            for ask in asks {
                guard handle(ask) else {
                    failAll("the console is stopping")
                    return
                }
            }
            asks.removeAll(keepingCapacity: true)
            expire()
            guard mailbox.prepareToBlock() else { continue }
            let ready: [Poller.Ready]
            do {
                ready = try poller.poll(timeout: waitLimit())
            } catch {
                logger.error("the console's gateway cannot poll; it stops", metadata: ["error": "\(error)"])
                failAll("the console's gateway stopped")
                return
            }
            for item in ready {
                switch item.token {
                case frontToken: drainReplies(from: sockets.front)
                case statsToken: drainReplies(from: sockets.stats)
                case eventsToken: drainEvents()
                case wakeToken: mailbox.wakeUp.drain()
                default: break
                }
            }
        }
    }

    /// False for `stop`.
    private mutating func handle(_ ask: ConsoleGateway.Ask) -> Bool {
        switch ask {
        case .front(let body, let promise):
            send(body, on: sockets.front, promise: promise)
        case .stats(let promise):
            send(Array("stats".utf8), on: sockets.stats, promise: promise)
        case .open(let stream):
            if streams.isEmpty { try? sockets.events.subscribe(topicPrefix) }
            streams[ObjectIdentifier(stream)] = stream
        case .close(let stream):
            guard streams.removeValue(forKey: ObjectIdentifier(stream)) != nil else { break }
            if streams.isEmpty { try? sockets.events.unsubscribe(topicPrefix) }
        case .stop:
            for stream in streams.values { stream.finish() }
            streams.removeAll()
            return false
        }
        return true
    }

    private mutating func send(_ body: [UInt8], on socket: Socket, promise: EventLoopPromise<[UInt8]>) {
        guard pending.count < ConsoleGateway.maxPending else {
            promise.fail(ConsoleGateway.Failure(message: "the console has \(ConsoleGateway.maxPending) requests in flight; retry later"))
            return
        }
        let ticket = nextTicket
        nextTicket &+= 1
        do {
            // DONTWAIT: a front that is away must not stall the gateway; the request fails instead.
            guard try socket.send(multipart: [Self.frame(of: ticket), [], body], flags: .dontWait) else {
                promise.fail(ConsoleGateway.Failure(message: "the front does not take requests now; retry later"))
                return
            }
        } catch {
            promise.fail(ConsoleGateway.Failure(message: "cannot send to the front: \(error)"))
            return
        }
        pending[ticket] = Pending(promise: promise, deadline: .now + timeout)
    }

    private mutating func drainReplies(from socket: Socket) {
        while let frames = try? socket.receiveMultipart(flags: .dontWait) {
            guard frames.count >= 3, let ticket = Self.ticket(in: frames[0]), let entry = pending.removeValue(forKey: ticket) else { continue }
            entry.promise.succeed(frames[2])
        }
    }

    private mutating func drainEvents() {
        while let frames = try? sockets.events.receiveMultipart(flags: .dontWait) {
            guard frames.count == 2 else { continue }
            var topic = String(decoding: frames[0], as: UTF8.self)
            guard topic.hasPrefix(topicPrefix) else { continue }
            topic.removeFirst(topicPrefix.count)
            for stream in streams.values { stream.deliver(topic: topic, body: frames[1]) }
        }
    }

    private mutating func expire() {
        let now = ContinuousClock.now
        if !streams.isEmpty, now - lastHeartbeat >= Self.heartbeat {
            lastHeartbeat = now
            for stream in streams.values { stream.keepAlive() }
        }
        guard pending.values.contains(where: { $0.deadline <= now }) else { return }
        for (ticket, entry) in pending where entry.deadline <= now {
            pending.removeValue(forKey: ticket)
            entry.promise.fail(ConsoleGateway.Failure(message: "no reply from the front within \(timeout)"))
        }
    }

    private func waitLimit() -> Duration {
        var limit: Duration = streams.isEmpty ? .seconds(1) : Self.heartbeat
        if let nearest = pending.values.map(\.deadline).min() {
            limit = min(limit, max(.zero, nearest - .now))
        }
        return limit
    }

    private mutating func failAll(_ message: String) {
        for entry in pending.values { entry.promise.fail(ConsoleGateway.Failure(message: message)) }
        pending.removeAll()
        for stream in streams.values { stream.finish() }
        streams.removeAll()
    }

    static func frame(of ticket: UInt64) -> [UInt8] {
        withUnsafeBytes(of: ticket.bigEndian) { Array($0) }
    }

    static func ticket(in frame: [UInt8]) -> UInt64? {
        guard frame.count == 8 else { return nil }
        return frame.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
