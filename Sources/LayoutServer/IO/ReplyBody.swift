import LayoutWire
import ZeroMQ

/// A reply body on its way from a worker to the I/O thread: small ones as an array, large ones as the
/// encoder's own buffer, which becomes the ZeroMQ message without a copy (an attributes reply can be
/// 80 MB; each copy of that costs tens of milliseconds).
public final class ReplyBody: @unchecked Sendable {
    // @unchecked Sendable: the buffer has one owner at a time. A worker creates the body and posts it;
    // only the I/O thread then takes the buffer (once). deinit frees a buffer nobody took.
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

    /// The body as a ZeroMQ message, moving a large buffer into it; call once.
    func takeMessage() throws(ZeroMQError) -> Message {
        switch storage {
        case .bytes(let bytes):
            return try Message(bytes)
        case .buffer(let base, let count):
            storage = .taken
            // JSONWriter allocates with Swift's allocator, which is malloc on the platforms we run on,
            // so libzmq may free() it when the message is done.
            return try Message(adoptingMallocBuffer: UnsafeMutableRawBufferPointer(start: base, count: count))
        case .taken:
            return Message()
        }
    }
}
