internal import CZeroMQ

/// One frame, owning a libzmq `zmq_msg_t`.
///
/// Noncopyable because a `zmq_msg_t` must never be copied by value (its content may be reference-counted
/// or inline); `deinit` closes it. The `zmq_msg_t` lives in its own allocation so that its address stays
/// fixed while Swift moves the `Message` around, which libzmq requires for inline (small) messages.
///
/// `Sendable` because ownership is unique: a message may be handed to another thread, but never shared.
public struct Message: ~Copyable, @unchecked Sendable {
    let raw: UnsafeMutablePointer<zmq_msg_t>

    /// An empty message, ready to receive into.
    public init() {
        raw = .allocate(capacity: 1)
        LibZMQ.initMessage(raw)
    }

    /// A message of `count` bytes that `body` fills in place: no copy beyond what `body` writes.
    public init(
        count: Int,
        initializingWith body: (UnsafeMutableRawBufferPointer) throws -> Void
    ) throws {
        let raw = try Self.allocate(count: count)
        do {
            try body(LibZMQ.messageData(raw))
        } catch {
            LibZMQ.closeMessage(raw)
            raw.deallocate()
            throw error
        }
        self.raw = raw
    }

    /// A message holding a copy of `bytes`.
    public init(_ bytes: UnsafeRawBufferPointer) throws(ZeroMQError) {
        raw = try Self.allocate(count: bytes.count)
        LibZMQ.messageData(raw).copyMemory(from: bytes)
    }

    /// A message holding a copy of `bytes`.
    public init(_ bytes: [UInt8]) throws(ZeroMQError) {
        raw = try Self.allocate(count: bytes.count)
        bytes.withUnsafeBytes { LibZMQ.messageData(raw).copyMemory(from: $0) }
    }

    /// A message holding the UTF-8 bytes of `string` (no terminating NUL).
    public init(_ string: String) throws(ZeroMQError) {
        var string = string
        raw = try Self.allocate(count: string.utf8.count)
        string.withUTF8 { LibZMQ.messageData(raw).copyMemory(from: UnsafeRawBufferPointer($0)) }
    }

    /// A message that takes ownership of `buffer` without copying it (`zmq_msg_init_data`).
    ///
    /// `buffer` must come from `malloc` (or `calloc`/`realloc`): libzmq calls `free` on it when the last
    /// reference goes, possibly on one of its I/O threads. Don't touch the buffer afterwards. Ownership
    /// passes even when this initializer throws: the buffer is freed then too.
    public init(adoptingMallocBuffer buffer: UnsafeMutableRawBufferPointer) throws(ZeroMQError) {
        raw = .allocate(capacity: 1)
        do {
            try LibZMQ.initMessage(raw, adopting: buffer)
        } catch {
            raw.deallocate()
            throw error
        }
    }

    /// A message of `bytes` without copying them, which `owner` keeps alive and unchanged until libzmq
    /// lets go of them (it is retained until then). For memory that is not the caller's to free: an
    /// immutable array of another module, say.
    public init(sharing bytes: UnsafeRawBufferPointer, owner: AnyObject) throws(ZeroMQError) {
        raw = .allocate(capacity: 1)
        do {
            try LibZMQ.initMessage(raw, sharing: bytes, owner: owner)
        } catch {
            raw.deallocate()
            throw error
        }
    }

    /// A `zmq_msg_t` of `count` uninitialized bytes, or nothing allocated when libzmq refuses.
    private static func allocate(count: Int) throws(ZeroMQError) -> UnsafeMutablePointer<zmq_msg_t> {
        let raw = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        do {
            try LibZMQ.initMessage(raw, size: count)
        } catch {
            raw.deallocate()
            throw error
        }
        return raw
    }

    deinit {
        LibZMQ.closeMessage(raw)
        raw.deallocate()
    }

    /// The number of bytes in the frame.
    public var count: Int { LibZMQ.messageSize(raw) }

    /// Whether more frames of the same multipart message follow this one (`zmq_msg_more`); meaningful
    /// after a receive.
    public var more: Bool { LibZMQ.messageHasMore(raw) }

    /// Calls `body` with the frame's bytes, valid only during the call.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(LibZMQ.messageData(raw)))
    }

    /// A copy of the frame's bytes.
    public var bytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// A metadata property of the connection the frame came in on (`zmq_msg_gets`), such as
    /// `User-Id`, `Peer-Address`, `Socket-Type` or `Routing-Id`, or one a ZAP handler added; nil when
    /// the connection has none of that name. Cheap: a lookup in a small table libzmq keeps per
    /// connection, no copy of the frame.
    public func property(_ name: String) -> String? {
        LibZMQ.messageProperty(raw, name)
    }

    /// The `User-Id` a ZAP handler gave the sender's connection when it admitted it; nil without one.
    public var userID: String? { property("User-Id") }

    /// The sender's address (`Peer-Address`: the IP address for tcp), when libzmq knows it.
    public var peerAddress: String? { property("Peer-Address") }

    /// The frame decoded as UTF-8 (invalid sequences repaired with U+FFFD).
    public var string: String {
        withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }
}

extension Message {
    /// A second message with the same content (`zmq_msg_copy`): a large content is shared by reference
    /// count, not copied, so one received body can be forwarded and kept at once. Never change either
    /// message's bytes afterwards: they may be the same memory.
    public func copy() throws(ZeroMQError) -> Message {
        let duplicate = Message()
        try LibZMQ.copyMessage(duplicate.raw, raw)
        return duplicate
    }

    /// The file descriptor of the connection this message arrived on (`ZMQ_SRCFD`), which is also the
    /// value a socket monitor reports for that connection's events; nil when the message did not come
    /// from a stream connection (inproc, or made locally).
    public var sourceFileDescriptor: Int32? {
        LibZMQ.messageProperty(raw, ZMQ_SRCFD)
    }
}
