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
        case buffer(OwnedBytes)
        /// A frame before the body: a cluster worker's answer to SNAPSHOT (its header, then the body).
        case framed(LeadingFrame)
        /// Frames after the body: a binary attributes reply's columns behind its JSON header.
        case columns(TrailingFrames)
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
            storage = .buffer(OwnedBytes(base: base, count: count))
        } else {
            storage = .bytes(writer.finish())
        }
    }

    /// A reply of two frames: `leading` (small: `zmq_send` copies it), then the writer's bytes as
    /// `init(_:)` takes them.
    public init(leading: [UInt8], _ writer: consuming JSONWriter) {
        storage = .framed(LeadingFrame(leading: leading, body: ReplyBody(writer)))
    }

    /// A success reply to `id`: one frame, or with binary attributes the JSON header and their columns.
    public static func success(id: RequestID?, result: some WireResult) -> ReplyBody {
        let writer = ReplyEncoder.successBody(id: id, result: result)
        guard let columns = result.binaryColumns else { return ReplyBody(writer) }
        return ReplyBody(writer, columns: columns)
    }

    /// A reply of several frames: the writer's bytes (the JSON header), then `columns`, one frame each,
    /// each handed to libzmq without a copy.
    public init(_ writer: consuming JSONWriter, columns: BinaryColumns) {
        storage = .columns(TrailingFrames(head: ReplyBody(writer), frames: columns.columns.map(\.bytes)))
    }

    /// The frames sent after the body (a binary reply's columns), copied; empty for a body alone.
    public var trailingFrames: [[UInt8]] {
        if case .columns(let trailing) = storage { return trailing.frames.map(\.bytes) }
        return []
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
        case .columns(let trailing): return trailing.head.count
        }
    }

    /// A copy of the bytes, its last frame's when it has two (for tests and small bodies).
    public var bytes: [UInt8] {
        switch storage {
        case .bytes(let bytes): return bytes
        case .buffer(let buffer): return buffer.bytes
        case .framed(let framed): return framed.body.bytes
        case .columns(let trailing): return trailing.head.bytes
        }
    }

    /// Sends the body as the last frame of a message on `socket` (its leading frame just before it); call
    /// once. The result is `Socket.send`'s: false when it would block.
    public func send(on socket: Socket, flags: SendFlags) throws(ZeroMQError) -> Bool {
        switch storage {
        case .framed(let framed):
            guard try socket.send(framed.leading, flags: flags.union(.sendMore)) else { return false }
            return try framed.body.send(on: socket, flags: flags)
        case .columns(let trailing):
            guard try trailing.head.send(on: socket, flags: flags.union(.sendMore)) else { return false }
            // libzmq queues a multipart message whole or not at all: only the first frame can fail.
            for (index, frame) in trailing.frames.enumerated() {
                let last = index == trailing.frames.count - 1
                let frameFlags = last ? flags : flags.union(.sendMore)
                switch frame {
                case .owned(let bytes):
                    _ = try Self.send(bytes, on: socket, flags: frameFlags)
                case .shared(let column):
                    // The engine's own column: libzmq keeps it (retained) until the frame is sent.
                    _ = try socket.send(try Message(sharing: column.storage, owner: column), flags: frameFlags)
                }
            }
            return true
        case .bytes(let bytes):
            return try socket.send(bytes, flags: flags)
        case .buffer(let buffer):
            return try Self.send(buffer, on: socket, flags: flags)
        }
    }

    /// Sends `bytes` without a copy: JSONWriter and BinaryColumns allocate with Swift's allocator, which
    /// is malloc on the platforms we run on, so libzmq may free() them when the message is done.
    private static func send(_ bytes: OwnedBytes, on socket: Socket, flags: SendFlags) throws(ZeroMQError) -> Bool {
        guard bytes.count > 0, let taken = bytes.take() else { return try socket.send([], flags: flags) }
        let message = try Message(adoptingMallocBuffer: taken)
        return try socket.send(message, flags: flags)
    }
}

/// A body and the frames sent after it.
private final class TrailingFrames: Sendable {
    let head: ReplyBody
    let frames: [ColumnBytes]

    init(head: ReplyBody, frames: [ColumnBytes]) {
        self.head = head
        self.frames = frames
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
