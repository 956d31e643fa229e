import ZeroMQ

/// A message body the broker holds: a client's request while it is routed and answered, or one entry
/// of a recipe. Sending it shares its content with libzmq rather than copying it (a `prepare` body can
/// be tens of megabytes).
final class HeldBody {
    private enum Storage: ~Copyable {
        case message(Message)
        case bytes([UInt8])
    }

    private let storage: Storage

    /// Bodies under this size are kept as arrays in recipes: a small received message may point into
    /// libzmq's shared receive buffer, which it would keep alive for as long as the recipe lives.
    static let retainAsMessageThreshold = 32 * 1024

    init(_ message: consuming Message) {
        storage = .message(message)
    }

    init(_ bytes: [UInt8]) {
        storage = .bytes(bytes)
    }

    var count: Int {
        switch storage {
        case .message(let message): return message.count
        case .bytes(let bytes): return bytes.count
        }
    }

    private var isMessage: Bool {
        switch storage {
        case .message: return true
        case .bytes: return false
        }
    }

    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        switch storage {
        case .message(let message): return message.withUnsafeBytes(body)
        case .bytes(let bytes): return bytes.withUnsafeBytes(body)
        }
    }

    /// A message to send: a large body's content shared, a small one copied.
    func frame() throws(ZeroMQError) -> Message {
        switch storage {
        case .message(let message): return try message.copy()
        case .bytes(let bytes): return try Message(bytes)
        }
    }

    /// The body as a recipe keeps it: small ones copied out (see `retainAsMessageThreshold`).
    func retained() -> HeldBody {
        guard isMessage, count < Self.retainAsMessageThreshold else { return self }
        return HeldBody(withUnsafeBytes { Array($0) })
    }

    /// A copy of the bytes (tests, logs).
    var array: [UInt8] {
        withUnsafeBytes { Array($0) }
    }
}
