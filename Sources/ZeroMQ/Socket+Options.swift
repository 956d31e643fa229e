extension Socket {
    /// Sets `option` to `value`.
    public func set<Value>(_ option: SocketOption<Value>, _ value: Value) throws(ZeroMQError) {
        try setOption(option.code, option.codec, value)
    }

    /// Sets a write-only `option` to `value`.
    public func set<Value>(_ option: WriteOnlySocketOption<Value>, _ value: Value) throws(ZeroMQError) {
        try setOption(option.code, option.codec, value)
    }

    /// The current value of `option`.
    public func get<Value>(_ option: SocketOption<Value>) throws(ZeroMQError) -> Value {
        try getOption(option.code, option.codec)
    }

    /// The current value of a read-only `option`.
    public func get<Value>(_ option: ReadOnlySocketOption<Value>) throws(ZeroMQError) -> Value {
        try getOption(option.code, option.codec)
    }

    /// Adds a SUB subscription: messages whose first frame starts with `prefix` are delivered.
    public func subscribe(_ prefix: [UInt8] = []) throws(ZeroMQError) {
        try set(.subscribe, prefix)
    }

    /// Adds a SUB subscription to the UTF-8 bytes of `prefix`.
    public func subscribe(_ prefix: String) throws(ZeroMQError) {
        try set(.subscribe, Array(prefix.utf8))
    }

    /// Removes one SUB subscription to `prefix`.
    public func unsubscribe(_ prefix: [UInt8]) throws(ZeroMQError) {
        try set(.unsubscribe, prefix)
    }

    /// Removes one SUB subscription to the UTF-8 bytes of `prefix`.
    public func unsubscribe(_ prefix: String) throws(ZeroMQError) {
        try set(.unsubscribe, Array(prefix.utf8))
    }

    /// The endpoint last bound or connected, with the real port after a wildcard bind.
    public var lastEndpoint: String {
        get throws(ZeroMQError) { try get(.lastEndpoint) }
    }

    /// Whether the frame last received has more frames after it (`ZMQ_RCVMORE`).
    public var receiveMore: Bool {
        get throws(ZeroMQError) { try get(.receiveMore) }
    }

    /// Whether a message can be received or sent right now (`ZMQ_EVENTS`).
    public var events: PollEvents {
        get throws(ZeroMQError) { try get(.events) }
    }

    /// The edge-triggered notification descriptor for event-loop integration (`ZMQ_FD`).
    public var fileDescriptor: Int32 {
        get throws(ZeroMQError) { try get(.fileDescriptor) }
    }

    private func setOption<Value>(_ code: Int32, _ codec: OptionCodec<Value>, _ value: Value) throws(ZeroMQError) {
        let handle = try openHandle("zmq_setsockopt(\(code))")
        try withBytes(of: codec.encode(value)) { (bytes) throws(ZeroMQError) in
            try LibZMQ.setOption(handle, code, bytes)
        }
    }

    private func getOption<Value>(_ code: Int32, _ codec: OptionCodec<Value>) throws(ZeroMQError) -> Value {
        let operation = "zmq_getsockopt(\(code))"
        let bytes = try LibZMQ.option(openHandle(operation), code, capacity: codec.capacity)
        guard let value = codec.decode(bytes) else {
            // libzmq answered with a size that is not the option's C type: our catalog is wrong.
            throw ZeroMQError(code: .invalidArgument, operation: operation)
        }
        return value
    }
}
