extension Socket {
    /// Receives one frame.
    ///
    /// - Returns: `nil` when no frame is waiting (`dontWait`) or none came within `receiveTimeout`.
    /// - Throws: `ZeroMQError`, such as `.terminated` once the context is shut down.
    public func receive(flags: ReceiveFlags = []) throws(ZeroMQError) -> Message? {
        let message = Message()
        guard try LibZMQ.receive(openHandle("zmq_msg_recv"), into: message.raw, flags: flags.rawValue) else {
            return nil
        }
        return message
    }

    /// Receives one frame as a copy of its bytes; `nil` as for `receive(flags:)`.
    /// The next frame of a multipart message whose first frame was received: libzmq delivers a
    /// message whole, so it is already there (`again` if it is not, which libzmq never does).
    public func receiveFollowingFrame() throws(ZeroMQError) -> Message {
        guard let next = try receive(flags: .dontWait) else {
            throw ZeroMQError(code: .again, operation: "zmq_msg_recv")
        }
        return next
    }

    public func receiveBytes(flags: ReceiveFlags = []) throws(ZeroMQError) -> [UInt8]? {
        guard let message = try receive(flags: flags) else { return nil }
        return message.bytes
    }

    /// Receives one frame decoded as UTF-8; `nil` as for `receive(flags:)`.
    public func receiveString(flags: ReceiveFlags = []) throws(ZeroMQError) -> String? {
        guard let message = try receive(flags: flags) else { return nil }
        return message.string
    }

    /// Receives every frame of one multipart message, copying each.
    ///
    /// Only the first frame can be missing (`nil`, as for `receive(flags:)`): libzmq delivers the
    /// frames of a message together, so the rest are read without waiting.
    public func receiveMultipart(flags: ReceiveFlags = []) throws(ZeroMQError) -> [[UInt8]]? {
        guard let multipart = try receiveMultipartMessage(flags: flags) else { return nil }
        return multipart.head + [multipart.last.bytes]
    }

    /// Receives one multipart message, keeping the last frame (the body) uncopied.
    public func receiveMultipartMessage(flags: ReceiveFlags = []) throws(ZeroMQError) -> MultipartMessage? {
        guard var frame = try receive(flags: flags) else { return nil }
        var head: [[UInt8]] = []
        while frame.more {
            head.append(frame.bytes)
            guard let next = try receive() else {
                // Cannot happen for a well-formed message; report it rather than return half of one.
                throw ZeroMQError(code: .again, operation: "zmq_msg_recv")
            }
            frame = next
        }
        return MultipartMessage(head: head, last: frame)
    }
}

/// A received multipart message: the leading frames copied (for ROUTER/DEALER, the routing envelope),
/// the last frame (the body) kept as a `Message`.
public struct MultipartMessage: ~Copyable, Sendable {
    /// Every frame but the last.
    public var head: [[UInt8]]
    /// The final frame.
    public var last: Message

    public init(head: [[UInt8]], last: consuming Message) {
        self.head = head
        self.last = last
    }

    /// The final frame, giving up the rest (read `head` first). Other modules cannot take a stored
    /// property out of a non-copyable value themselves.
    public consuming func takeLast() -> Message {
        last
    }
}

extension Socket {
    /// Receives one multipart message: every frame but the last goes to `leading` as it comes, and the
    /// last (the body) is returned, without a copy. nil when nothing is waiting, as for
    /// `receive(flags:)`; only the first frame waits, since libzmq delivers a multipart message whole.
    public func receiveMessage(
        flags: ReceiveFlags = [], leading: (borrowing Message) -> Void
    ) throws(ZeroMQError) -> Message? {
        guard var frame = try receive(flags: flags) else { return nil }
        while frame.more {
            leading(frame)
            frame = try receiveFollowingFrame()
        }
        return frame
    }
}
