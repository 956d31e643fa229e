import LayoutWire
import ZeroMQ

/// A reply body on its way from a worker to the I/O thread: small ones as an array, which `zmq_send`
/// copies into the message it queues; large ones as the encoder's own buffer, which becomes that
/// message without a copy (an attributes reply can be 80 MB; each copy of that costs tens of
/// milliseconds).
public final class ReplyBody: @unchecked Sendable {
    // @unchecked Sendable: the buffer has one owner at a time. A worker creates the body and posts it;
    // only the I/O thread then sends it (once). deinit frees a buffer nobody took.
    private enum Storage {
        case bytes([UInt8])
        case buffer(UnsafeMutableRawPointer, count: Int)
        case taken
    }

    private var storage: Storage

    /// Bodies at least this large are sent from the encoder's buffer.
    static let zeroCopyThreshold = 64 * 1024

    public init(_ bytes: [UInt8]) {
        storage = .bytes(bytes)
    }

    /// Takes the writer's bytes: large bodies keep its buffer, small ones are copied into an array.
    ///
    /// Why copy small ones: the writer's buffer is sized generously (4 KB for a query), and sending
    /// from it made pipelined queries slower, not faster: freeing a block of that size on the I/O
    /// thread, which did not allocate it, costs malloc more than a copy of a few hundred bytes on the
    /// worker (docs/BENCHMARKS.md).
    public init(_ writer: consuming JSONWriter) {
        if writer.count >= Self.zeroCopyThreshold {
            let (base, count) = writer.releaseBuffer()
            storage = .buffer(base, count: count)
        } else {
            storage = .bytes(writer.finish())
        }
    }

    deinit {
        if case .buffer(let base, _) = storage { base.deallocate() }
    }

    /// The body's size in bytes.
    public var count: Int {
        switch storage {
        case .bytes(let bytes): return bytes.count
        case .buffer(_, let count): return count
        case .taken: return 0
        }
    }

    /// A copy of the bytes (for tests and small bodies).
    public var bytes: [UInt8] {
        switch storage {
        case .bytes(let bytes): return bytes
        case .buffer(let base, let count): return Array(UnsafeRawBufferPointer(start: base, count: count))
        case .taken: return []
        }
    }

    /// Sends the body as the last frame of a message on `socket`; call once. The result is
    /// `Socket.send`'s: false when it would block.
    func send(on socket: Socket, flags: SendFlags) throws(ZeroMQError) -> Bool {
        switch storage {
        case .bytes(let bytes):
            return try socket.send(bytes, flags: flags)
        case .buffer(let base, let count):
            storage = .taken
            // JSONWriter allocates with Swift's allocator, which is malloc on the platforms we run on,
            // so libzmq may free() it when the message is done.
            let message = try Message(adoptingMallocBuffer: UnsafeMutableRawBufferPointer(start: base, count: count))
            return try socket.send(message, flags: flags)
        case .taken:
            return try socket.send([], flags: flags)
        }
    }
}
