import ZeroMQ

/// A request body as it arrived: the ZeroMQ message itself, decoded in place by a worker.
///
/// Why not an array: a 10^6-item job is tens of megabytes, and copying it out of the message would
/// cost milliseconds on the one I/O thread that every client shares.
public final class RequestBody: @unchecked Sendable {
    // @unchecked Sendable: the message is only read after the I/O thread hands the body over, and a
    // zmq_msg_t's data may be read from any thread; nothing mutates it.
    private enum Storage: ~Copyable {
        case message(Message)
        case bytes([UInt8])
    }

    private let storage: Storage
    /// Who sent it, read by the I/O thread from the connection's metadata (`.anonymous` without CURVE).
    public let caller: Caller

    /// A body received by a socket: by the daemon's I/O thread, or by a front of the caller's own (the
    /// cluster worker's link to its broker).
    public init(_ message: consuming Message, caller: Caller = .anonymous) {
        storage = .message(message)
        self.caller = caller
    }

    /// A body from bytes (tests, and callers outside a socket).
    public init(_ bytes: [UInt8], caller: Caller = .anonymous) {
        storage = .bytes(bytes)
        self.caller = caller
    }

    public var count: Int {
        withUnsafeBytes { $0.count }
    }

    /// Calls `body` with the bytes, without copying them.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        switch storage {
        case .message(let message): return message.withUnsafeBytes(body)
        case .bytes(let bytes): return bytes.withUnsafeBytes(body)
        }
    }
}
