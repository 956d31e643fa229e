import ZeroMQ

/// A DEALER connected to a ROUTER (or REP) that frames each body as `[empty delimiter, body]`, so the peer
/// sees the same envelope as from a REQ socket, and reads replies back with a deadline.
///
/// Owned by one thread, like its socket.
final class DealerConnection {
    private(set) var endpoint: String
    private let context: Context
    private let sendTimeout: Duration
    private let curve: CurveCredentials?
    private var socket: Socket
    private var poller: Poller

    init(endpoint: String, context: Context, sendTimeout: Duration, curve: CurveCredentials? = nil) throws(ClientError) {
        self.endpoint = endpoint
        self.context = context
        self.sendTimeout = sendTimeout
        self.curve = curve
        socket = try Self.connect(endpoint, in: context, sendTimeout: sendTimeout, curve: curve)
        poller = Self.poller(for: socket)
    }

    /// Sends `body` after the empty delimiter frame. A DEALER queues for a peer it has not reached yet,
    /// so this only waits once that queue is full, and then no longer than the send timeout.
    func send(_ body: [UInt8]) throws(ClientError) {
        let sent = try transport { () throws(ZeroMQError) in try socket.send(multipart: [[], body]) }
        guard sent else { throw .timeout(endpoint: endpoint, after: sendTimeout) }
    }

    /// The body of the next reply, or `nil` if none arrived before `deadline` (`nil`: wait without limit).
    func receive(until deadline: ContinuousClock.Instant?) throws(ClientError) -> [UInt8]? {
        while true {
            if let frames = try transport({ () throws(ZeroMQError) in try socket.receiveMultipart(flags: .dontWait) }) {
                return Self.body(of: frames)
            }
            let remaining = deadline.map { $0 - .now }
            if let remaining, remaining <= .zero { return nil }
            // An empty answer is a timeout or a signal; the loop looks at the deadline again either way.
            _ = try transport { () throws(ZeroMQError) in try poller.poll(timeout: remaining) }
        }
    }

    /// Replaces the socket with a fresh one: replies still on their way to the old one are dropped by
    /// the peer's ROUTER, since the new socket has a new routing id (the ZeroMQ guide's Lazy Pirate).
    func reconnect() throws(ClientError) {
        try reconnect(to: endpoint)
    }

    /// Replaces the socket with a fresh one connected to `endpoint` instead: failing over to another
    /// broker, where nothing of the old socket (queued requests, late replies) may follow.
    func reconnect(to endpoint: String) throws(ClientError) {
        socket.close()
        self.endpoint = endpoint
        socket = try Self.connect(endpoint, in: context, sendTimeout: sendTimeout, curve: curve)
        poller = Self.poller(for: socket)
    }

    func close() {
        socket.close()
    }

    /// The frame after the empty delimiter; a peer that sent no delimiter gets its first frame read.
    static func body(of frames: [[UInt8]]) -> [UInt8] {
        if frames.count >= 2, frames[0].isEmpty { return frames[1] }
        return frames.first ?? []
    }

    private static func connect(_ endpoint: String, in context: Context, sendTimeout: Duration, curve: CurveCredentials?) throws(ClientError) -> Socket {
        try transport { () throws(ZeroMQError) in
            let socket = try Socket(.dealer, in: context)
            try socket.set(.sendTimeout, sendTimeout.socketMilliseconds)
            try curve?.apply(to: socket)
            try socket.connect(endpoint)
            return socket
        }
    }

    private static func poller(for socket: Socket) -> Poller {
        var poller = Poller()
        poller.register(socket, for: .readable)
        return poller
    }
}
