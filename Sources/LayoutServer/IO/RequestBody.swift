import LayoutWire
import ZeroMQ

/// A request body as it arrived: the ZeroMQ message itself, decoded in place by a worker.
///
/// Why not an array: a 10^6-item job is tens of megabytes, and copying it out of the message would
/// cost milliseconds on the one I/O thread that every client shares.
public final class RequestBody: @unchecked Sendable {
    // @unchecked Sendable: the message is only read after the I/O thread hands the body over, and a
    // zmq_msg_t's data may be read from any thread; nothing mutates it.
    private enum Storage: ~Copyable {
        case message(Message)
        case bytes([UInt8])
    }

    private let storage: Storage
    /// Who sent it, read by the I/O thread from the connection's metadata (`.anonymous` without CURVE).
    public let caller: Caller
    /// The binary frames sent after the body (PROTOCOL.md §2), which its size columns may name.
    public let attachments: [RequestBody]

    /// A body received by a socket: by the daemon's I/O thread, or by a front of the caller's own .
    public init(_ message: consuming Message, caller: Caller = .anonymous, attachments: [RequestBody] = []) {
        storage = .message(message)
        self.caller = caller
        self.attachments = attachments
    }

    /// A body from bytes (tests, and callers outside a socket).
    public init(_ bytes: [UInt8], caller: Caller = .anonymous, attachments: [RequestBody] = []) {
        storage = .bytes(bytes)
        self.caller = caller
        self.attachments = attachments
    }

    public var count: Int {
        withUnsafeBytes { $0.count }
    }

    /// The body's bytes and its attachments', for the message size limit.
    public var totalCount: Int {
        attachments.reduce(count) { $0 + $1.count }
    }

    /// Calls `body` with the bytes and views of the attachments, none of them copied.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer, AttachedFrames) -> Result) -> Result {
        withUnsafeBytes { bytes in
            guard !attachments.isEmpty else { return body(bytes, .none) }
            var views: [UnsafeRawBufferPointer] = []
            views.reserveCapacity(attachments.count)
            return Self.withViews(of: attachments[...], collecting: &views) { body(bytes, AttachedFrames($0)) }
        }
    }

    /// Calls `body` with views of the body and then of each attachment, none of them copied.
    public func withEveryPart<Result>(_ body: ([UnsafeRawBufferPointer]) -> Result) -> Result {
        withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var views = [bytes]
            views.reserveCapacity(attachments.count + 1)
            return Self.withViews(of: attachments[...], collecting: &views, body)
        }
    }

    /// Nests `withUnsafeBytes` over each attachment, so that every view stays valid inside `body`.
    private static func withViews<Result>(
        of attachments: ArraySlice<RequestBody>, collecting views: inout [UnsafeRawBufferPointer], _ body: ([UnsafeRawBufferPointer]) -> Result
    ) -> Result {
        guard let first = attachments.first else { return body(views) }
        return first.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Result in
            views.append(bytes)
            return withViews(of: attachments.dropFirst(), collecting: &views, body)
        }
    }

    /// Calls `body` with the bytes, without copying them.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        switch storage {
        case .message(let message): return message.withUnsafeBytes(body)
        case .bytes(let bytes): return bytes.withUnsafeBytes(body)
        }
    }
}
