/// How an option's value travels through `zmq_setsockopt` / `zmq_getsockopt`: each option knows its C
/// type (`int`, `int64_t`, bytes, string), as cppzmq's `sockopt::` constants do, so passing a 4-byte
/// `int` where libzmq expects an 8-byte `int64_t` cannot happen.
struct OptionCodec<Value>: Sendable {
    /// The getter's buffer size in bytes.
    let capacity: Int
    let encode: @Sendable (Value) -> [UInt8]
    /// `nil` when libzmq returned a size that does not fit the C type.
    let decode: @Sendable ([UInt8]) -> Value?
}

extension OptionCodec where Value == Int32 {
    /// C `int`.
    static var int32: Self {
        Self(
            capacity: MemoryLayout<Int32>.size,
            encode: { value in withUnsafeBytes(of: value) { Array($0) } },
            decode: { bytes in
                guard bytes.count == MemoryLayout<Int32>.size else { return nil }
                return bytes.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }
            }
        )
    }
}

extension OptionCodec where Value == Int64 {
    /// C `int64_t`.
    static var int64: Self {
        Self(
            capacity: MemoryLayout<Int64>.size,
            encode: { value in withUnsafeBytes(of: value) { Array($0) } },
            decode: { bytes in
                guard bytes.count == MemoryLayout<Int64>.size else { return nil }
                return bytes.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
            }
        )
    }
}

extension OptionCodec where Value == Bool {
    /// C `int` holding 0 or 1.
    static var bool: Self {
        let int = OptionCodec<Int32>.int32
        return Self(capacity: int.capacity, encode: { int.encode($0 ? 1 : 0) }, decode: { int.decode($0).map { $0 != 0 } })
    }
}

extension OptionCodec where Value == PollEvents {
    /// C `int` holding a `ZMQ_POLLIN | ZMQ_POLLOUT` mask.
    static var events: Self {
        let int = OptionCodec<Int32>.int32
        return Self(
            capacity: int.capacity,
            encode: { int.encode(Int32($0.rawValue)) },
            decode: { int.decode($0).map { PollEvents(rawValue: Int16(truncatingIfNeeded: $0)) } }
        )
    }
}

extension OptionCodec where Value == [UInt8] {
    /// Binary data of at most `capacity` bytes.
    static func bytes(capacity: Int) -> Self {
        Self(capacity: capacity, encode: { $0 }, decode: { $0 })
    }
}

extension OptionCodec where Value == String {
    /// A string: set as its UTF-8 bytes (libzmq takes the length, and would keep a NUL as part of the
    /// value), read back NUL-terminated in at most `capacity` bytes including the NUL.
    static func string(capacity: Int) -> Self {
        Self(
            capacity: capacity,
            encode: { Array($0.utf8) },
            decode: { bytes in
                let text = bytes.prefix { $0 != 0 }
                return String(decoding: text, as: UTF8.self)
            }
        )
    }
}

extension OptionCodec where Value == CurveKey {
    /// A CURVE key: set as its 32 bytes, read back in binary form (libzmq answers a 32-byte buffer
    /// with the bytes, a 41-byte one with Z85).
    static var curveKey: Self {
        Self(capacity: 32, encode: { $0.bytes }, decode: { CurveKey(bytes: $0) })
    }
}

/// A socket option that can be set and read, with the Swift type of its value.
///
/// Use the static members: `try socket.set(.linger, 0)`, `try socket.get(.maxMessageSize)`.
public struct SocketOption<Value>: Sendable {
    let code: Int32
    let codec: OptionCodec<Value>
}

/// A socket option libzmq only reports (`ZMQ_EVENTS`, `ZMQ_FD`, `ZMQ_RCVMORE`, `ZMQ_LAST_ENDPOINT`).
public struct ReadOnlySocketOption<Value>: Sendable {
    let code: Int32
    let codec: OptionCodec<Value>
}

/// A socket option libzmq only accepts (`ZMQ_SUBSCRIBE`, `ZMQ_ROUTER_MANDATORY`, ...).
public struct WriteOnlySocketOption<Value>: Sendable {
    let code: Int32
    let codec: OptionCodec<Value>
}
