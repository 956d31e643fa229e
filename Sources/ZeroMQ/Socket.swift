/// A ZeroMQ socket.
///
/// Not `Sendable`: a zmq socket is not thread-safe, so one thread owns it for its whole life. Make it on
/// the thread that uses it (or hand it over once, before use, with `sending`), and close it there.
///
/// `close()` is idempotent and `deinit` closes; any other call on a closed socket throws
/// `ZeroMQError.Code.notSocket`. New sockets have `linger` 0 so that closing never leaves work that
/// would make `Context.terminate()` wait; set it explicitly where unsent messages must survive a close.
public final class Socket {
    /// The messaging pattern this socket was made with.
    public let type: SocketType
    /// Kept so the context outlives its sockets: `zmq_ctx_term` would wait forever for an open one.
    public let context: Context
    private var handle: UnsafeMutableRawPointer?

    /// Creates a socket of `type` in `context`.
    public init(_ type: SocketType, in context: Context) throws(ZeroMQError) {
        let handle = try context.makeSocketHandle(type: type.rawValue)
        self.type = type
        self.context = context
        self.handle = handle
        try set(.linger, 0)
    }

    deinit {
        close()
    }

    /// Closes the socket; later calls do nothing. Unsent messages are dropped unless `linger` was raised.
    public func close() {
        guard let handle else { return }
        self.handle = nil
        LibZMQ.close(handle)
    }

    /// Whether `close()` has been called.
    public var isClosed: Bool { handle == nil }

    /// The open handle, or `ENOTSOCK` as libzmq itself reports a closed socket.
    func openHandle(_ operation: String) throws(ZeroMQError) -> UnsafeMutableRawPointer {
        guard let handle else { throw ZeroMQError(code: .notSocket, operation: operation) }
        return handle
    }

    /// Accepts connections on `endpoint` (`tcp://127.0.0.1:*` picks a free port; read it back from
    /// `lastEndpoint`).
    public func bind(_ endpoint: String) throws(ZeroMQError) {
        try LibZMQ.bind(openHandle("zmq_bind"), endpoint)
    }

    /// Stops accepting connections on `endpoint`, which must be the string used to bind or, for
    /// wildcard binds, the `lastEndpoint` value.
    public func unbind(_ endpoint: String) throws(ZeroMQError) {
        try LibZMQ.unbind(openHandle("zmq_unbind"), endpoint)
    }

    /// Connects to `endpoint`; the connection is made (and remade) in the background.
    public func connect(_ endpoint: String) throws(ZeroMQError) {
        try LibZMQ.connect(openHandle("zmq_connect"), endpoint)
    }

    /// Drops the connection to `endpoint`.
    public func disconnect(_ endpoint: String) throws(ZeroMQError) {
        try LibZMQ.disconnect(openHandle("zmq_disconnect"), endpoint)
    }
}

/// Spelled out so that no future conformance makes sockets shareable by accident.
@available(*, unavailable, message: "a ZeroMQ socket belongs to one thread")
extension Socket: Sendable {}
