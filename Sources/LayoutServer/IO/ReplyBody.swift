import LayoutWire
import ZeroMQ

/// A reply body on its way from a worker to the I/O thread: small ones as an array, which `zmq_send`
/// copies into the message it queues; large ones as the encoder's own buffer, which becomes that
/// message without a copy (an attributes reply can be 80 MB; each copy of that costs tens of
/// milliseconds).
///
/// A value, not an object: a small reply is one allocation (its array) rather than two, and small
/// replies come by the hundred thousand per second.
public struct ReplyBody: Sendable {
    private enum Storage: Sendable {
        case bytes([UInt8])
        case buffer(EncodedBuffer)
        /// A frame before the body: a cluster worker's answer to SNAPSHOT (its header, then the body).
        case framed(LeadingFrame)
    }

    private let storage: Storage

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
            storage = .buffer(EncodedBuffer(base: base, count: count))
        } else {
            storage = .bytes(writer.finish())
        }
    }

    /// A reply of two frames: `leading` (small: `zmq_send` copies it), then the writer's bytes as
    /// `init(_:)` takes them.
    public init(leading: [UInt8], _ writer: consuming JSONWriter) {
        storage = .framed(LeadingFrame(leading: leading, body: ReplyBody(writer)))
    }

    /// The frame sent before the body, when there is one.
    public var leadingFrame: [UInt8]? {
        if case .framed(let framed) = storage { return framed.leading }
        return nil
    }

    /// The body's size in bytes, its last frame's when it has two (0 once a large body has been sent).
    public var count: Int {
        switch storage {
        case .bytes(let bytes): return bytes.count
        case .buffer(let buffer): return buffer.count
        case .framed(let framed): return framed.body.count
        }
    }

    /// A copy of the bytes, its last frame's when it has two (for tests and small bodies).
    public var bytes: [UInt8] {
        switch storage {
        case .bytes(let bytes): return bytes
        case .buffer(let buffer): return buffer.bytes
        case .framed(let framed): return framed.body.bytes
        }
    }

    /// Sends the body as the last frame of a message on `socket` (its leading frame just before it); call
    /// once. The result is `Socket.send`'s: false when it would block.
    public func send(on socket: Socket, flags: SendFlags) throws(ZeroMQError) -> Bool {
        switch storage {
        case .framed(let framed):
            guard try socket.send(framed.leading, flags: flags.union(.sendMore)) else { return false }
            return try framed.body.send(on: socket, flags: flags)
        case .bytes(let bytes):
            return try socket.send(bytes, flags: flags)
        case .buffer(let buffer):
            guard let taken = buffer.take() else { return try socket.send([], flags: flags) }
            // JSONWriter allocates with Swift's allocator, which is malloc on the platforms we run on,
            // so libzmq may free() it when the message is done.
            let message = try Message(adoptingMallocBuffer: taken)
            return try socket.send(message, flags: flags)
        }
    }
}

/// A body's leading frame and the body behind it.
private final class LeadingFrame: Sendable {
    let leading: [UInt8]
    let body: ReplyBody

    init(leading: [UInt8], body: ReplyBody) {
        self.leading = leading
        self.body = body
    }
}

/// A large encoded body: the writer's buffer, owned until libzmq takes it or the body is dropped.
private final class EncodedBuffer: @unchecked Sendable {
    // @unchecked Sendable: the buffer has one owner at a time. A worker creates it and posts the
    // reply; only the I/O thread then takes it (once). deinit frees a buffer nobody took.
    private var base: UnsafeMutableRawPointer?
    private(set) var count: Int

    init(base: UnsafeMutableRawPointer, count: Int) {
        self.base = base
        self.count = count
    }

    deinit {
        base?.deallocate()
    }

    var bytes: [UInt8] {
        guard let base else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The buffer, handed over: the caller frees it (or has libzmq free it).
    func take() -> UnsafeMutableRawBufferPointer? {
        guard let base else { return nil }
        self.base = nil
        defer { count = 0 }
        return UnsafeMutableRawBufferPointer(start: base, count: count)
    }
}
