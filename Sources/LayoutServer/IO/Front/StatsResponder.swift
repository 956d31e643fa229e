import ZeroMQ

/// The stats ROUTER of every role (docs/PROTOCOL.md §8): a daemon's, a broker's (the cluster's stats), a
/// worker's own (`cluster.workerStats`). Each role plugs in only its answer.
///
/// Not Sendable: made, used and closed on one thread, like its socket.
public final class StatsResponder {
    /// A stats request is a word (`stats`, `metrics`) or a tiny JSON object: anything larger is no stats
    /// request, and libzmq drops the peer that sends it.
    static let maxRequestBytes: Int64 = 64 * 1024

    private let socket: Socket
    /// With CURVE: only keys listed as admin are answered (`AccessGate.admitsStats`).
    private let gate: AccessGate?
    /// The endpoint bound (a `:*` port resolved).
    public let endpoint: String
    /// The socket's `ZMQ_FD`, for the loop's poll.
    public let fileDescriptor: Int32

    /// Binds a stats ROUTER on `endpoint`; with `access`, a CURVE server answering admin keys only.
    public init(context: Context, endpoint: String, sendHighWaterMark: Int32, access: AccessControl?) throws {
        socket = try Socket(.router, in: context)
        try socket.set(.linger, 0)
        try socket.set(.sendHighWaterMark, sendHighWaterMark)
        try socket.set(.maxMessageSize, Self.maxRequestBytes)
        if let access { try AccessGate.secureStats(socket, with: access) }
        try socket.bind(endpoint)
        self.endpoint = try socket.lastEndpoint
        fileDescriptor = try socket.get(.fileDescriptor)
        gate = access.map { AccessGate(access: $0) }
    }

    /// Answers the requests waiting, a bounded batch at a time, with `answer`; true when it stopped at
    /// its bound (more may be waiting). A message without an envelope cannot be answered: it is dropped.
    public func answerWaiting(limit: Int = 64, _ answer: (StatsRequestKind) -> [UInt8]) -> Bool {
        for _ in 0..<limit {
            if let gate {
                // With CURVE, only a key listed as admin now: the request is read as a message for its
                // User-Id.
                guard let received = try? socket.receiveMultipartMessage(flags: .dontWait) else { return false }
                let head = received.head
                guard gate.admitsStats(received.last), !head.isEmpty else { continue }
                _ = try? socket.send(multipart: head + [answer(StatsRequestKind(body: received.last.bytes))], flags: .dontWait)
                continue
            }
            guard let frames = try? socket.receiveMultipart(flags: .dontWait) else { return false }
            guard frames.count >= 2, let body = frames.last else { continue }
            _ = try? socket.send(multipart: Array(frames.dropLast()) + [answer(StatsRequestKind(body: body))], flags: .dontWait)
        }
        return true
    }

    public func close() {
        socket.close()
    }
}
