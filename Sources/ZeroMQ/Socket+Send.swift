extension Socket {
    /// Sends a copy of `bytes` as one frame.
    ///
    /// - Returns: `false` when the frame could not be queued without blocking (`dontWait`) or within
    ///   `sendTimeout`; `true` otherwise. Blocking sends without a timeout always return `true`.
    @discardableResult
    public func send(_ bytes: UnsafeRawBufferPointer, flags: SendFlags = []) throws(ZeroMQError) -> Bool {
        try LibZMQ.send(openHandle("zmq_send"), bytes, flags: flags.rawValue)
    }

    /// Sends a copy of `bytes` as one frame; see `send(_:flags:)` for the result.
    @discardableResult
    public func send(_ bytes: [UInt8], flags: SendFlags = []) throws(ZeroMQError) -> Bool {
        try withBytes(of: bytes) { (buffer) throws(ZeroMQError) in try send(buffer, flags: flags) }
    }

    /// Sends the UTF-8 bytes of `string` as one frame; see `send(_:flags:)` for the result.
    @discardableResult
    public func send(_ string: String, flags: SendFlags = []) throws(ZeroMQError) -> Bool {
        try withBytes(of: string) { (buffer) throws(ZeroMQError) in try send(buffer, flags: flags) }
    }

    /// Sends `message` without copying it. The message is consumed either way; when the result is
    /// `false` (would block) it was not sent and is released.
    @discardableResult
    public func send(_ message: consuming Message, flags: SendFlags = []) throws(ZeroMQError) -> Bool {
        try LibZMQ.send(openHandle("zmq_msg_send"), message.raw, flags: flags.rawValue)
    }

    /// Sends `frames` as one multipart message: `ZMQ_SNDMORE` on every frame but the last.
    ///
    /// libzmq delivers a multipart message whole or not at all, and only its first frame can meet a full
    /// queue, so `false` (with `dontWait` or `sendTimeout`) means nothing was sent. An empty `frames`
    /// sends nothing and returns `true`.
    @discardableResult
    public func send(multipart frames: [[UInt8]], flags: SendFlags = []) throws(ZeroMQError) -> Bool {
        guard let last = frames.last else { return true }
        return try send(frames.dropLast(), last: last, flags: flags)
    }

    /// Sends `head` as leading frames, then `last` as the final frame without copying it: a routing
    /// envelope followed by a large body.
    @discardableResult
    public func send(
        multipart head: [[UInt8]], last: consuming Message, flags: SendFlags = []
    ) throws(ZeroMQError) -> Bool {
        guard try sendHead(head, flags: flags) else { return false }
        return try send(last, flags: flags.subtracting(.sendMore))
    }

    private func send(_ head: ArraySlice<[UInt8]>, last: [UInt8], flags: SendFlags) throws(ZeroMQError) -> Bool {
        guard try sendHead(head, flags: flags) else { return false }
        return try send(last, flags: flags.subtracting(.sendMore))
    }

    /// Sends the leading frames, each with `sendMore`; `false` if the first one would block.
    private func sendHead<Frames: Collection<[UInt8]>>(_ head: Frames, flags: SendFlags) throws(ZeroMQError) -> Bool {
        for frame in head {
            guard try send(frame, flags: flags.union(.sendMore)) else { return false }
        }
        return true
    }
}
