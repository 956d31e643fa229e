internal import CZeroMQ

/// Waits on several sockets and raw file descriptors at once (`zmq_poll`, the stable API).
///
/// Not `Sendable`: it holds sockets, which belong to one thread. Registered sockets are kept alive by
/// the poller; closing one while registered makes `poll` throw `ZeroMQError.Code.notSocket`.
public struct Poller {
    /// Names a registration; returned by `register` and reported by `poll`.
    public struct Token: Hashable, Sendable {
        let id: Int
    }

    /// A registration that is ready, and for what.
    public struct Ready: Hashable, Sendable {
        public let token: Token
        public let events: PollEvents
    }

    private enum Source {
        case socket(Socket)
        case fileDescriptor(Int32)
    }

    private struct Registration {
        let token: Token
        let source: Source
        var events: PollEvents
    }

    private var registrations: [Registration] = []
    private var nextID = 0

    public init() {}

    /// Watches `socket` for `events`.
    @discardableResult
    public mutating func register(_ socket: Socket, for events: PollEvents = .readable) -> Token {
        add(.socket(socket), events)
    }

    /// Watches a raw file descriptor (a pipe, an eventfd, a TCP socket of another library) for `events`.
    @discardableResult
    public mutating func register(fileDescriptor: Int32, for events: PollEvents = .readable) -> Token {
        add(.fileDescriptor(fileDescriptor), events)
    }

    /// Changes what `token` is watched for; unknown tokens are ignored.
    public mutating func update(_ token: Token, for events: PollEvents) {
        guard let index = registrations.firstIndex(where: { $0.token == token }) else { return }
        registrations[index].events = events
    }

    /// Stops watching `token`; unknown tokens are ignored.
    public mutating func unregister(_ token: Token) {
        registrations.removeAll { $0.token == token }
    }

    /// The number of registrations.
    public var count: Int { registrations.count }

    /// Waits until at least one registration is ready or `timeout` passes (`nil` waits without limit;
    /// `.zero` only looks).
    ///
    /// - Returns: the ready registrations in registration order; empty on timeout, and also when a
    ///   signal interrupted the wait (`EINTR` is not retried, since the timeout would start over; callers
    ///   poll in a loop anyway).
    /// - Throws: `ZeroMQError`, such as `.terminated` once a polled socket's context is shut down.
    public func poll(timeout: Duration?) throws(ZeroMQError) -> [Ready] {
        var items: [zmq_pollitem_t] = []
        items.reserveCapacity(registrations.count)
        for registration in registrations {
            var item = zmq_pollitem_t()
            switch registration.source {
            case .socket(let socket):
                item.socket = try socket.openHandle("zmq_poll")
            case .fileDescriptor(let descriptor):
                item.fd = descriptor
            }
            item.events = registration.events.rawValue
            items.append(item)
        }
        guard try LibZMQ.poll(&items, timeoutMilliseconds: Self.milliseconds(timeout)) > 0 else { return [] }
        return zip(registrations, items).compactMap { registration, item in
            item.revents == 0 ? nil : Ready(token: registration.token, events: PollEvents(rawValue: item.revents))
        }
    }

    private mutating func add(_ source: Source, _ events: PollEvents) -> Token {
        let token = Token(id: nextID)
        nextID += 1
        registrations.append(Registration(token: token, source: source, events: events))
        return token
    }

    /// `zmq_poll`'s timeout in milliseconds, -1 for none; rounded up so a short wait is never a busy look.
    static func milliseconds(_ timeout: Duration?) -> Int {
        guard let timeout else { return -1 }
        if timeout <= .zero { return 0 }
        let (seconds, attoseconds) = timeout.components
        let millisecondsPerSecond: Int64 = 1_000
        let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: millisecondsPerSecond)
        guard !overflow else { return Int.max }
        let partial = (attoseconds + attosecondsPerMillisecond - 1) / attosecondsPerMillisecond
        return Int(clamping: whole.addingReportingOverflow(partial).overflow ? Int64.max : whole + partial)
    }
}

@available(*, unavailable, message: "a Poller holds sockets, which belong to one thread")
extension Poller: Sendable {}
