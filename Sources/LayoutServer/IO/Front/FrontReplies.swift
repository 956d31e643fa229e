import LayoutWire
import ZeroMQ

/// Replies a front writes itself, without a worker: refusals on the way in, `busy` when the pool is full.
/// Every role's front (daemon, broker, worker) writes them with these, so they read alike.
public enum FrontReplies {
    /// How much of a body is read to find its id: the thread every client shares must not skip through a
    /// 50 MB job (with `id` after `sections`) just to refuse it when the daemon is full. It reads all of
    /// these bytes even after an `id`, because a later `id` wins (`requestID(in:)`).
    public static let idSearchBytes = 64 * 1024

    /// `busy`, echoing the request's id when it stands in the body's first `idSearchBytes`.
    public static func busy(for body: RequestBody, message: String) -> [UInt8] {
        failure(for: body, error: WireError(.busy, message))
    }

    /// `error`, echoing the id of `body` when it stands in its first `idSearchBytes`.
    public static func failure(for body: RequestBody, error: WireError) -> [UInt8] {
        body.withUnsafeBytes { failure(forBytes: $0, error: error) }
    }

    /// `error`, echoing the id of the body `message` when it stands in its first `idSearchBytes`.
    public static func failure(for message: borrowing Message, error: WireError) -> [UInt8] {
        message.withUnsafeBytes { failure(forBytes: $0, error: error) }
    }

    /// `error`, echoing the id of `bytes` when it stands in their first `idSearchBytes`.
    public static func failure(forBytes bytes: UnsafeRawBufferPointer, error: WireError) -> [UInt8] {
        let id = RequestDecoder.requestID(in: UnsafeRawBufferPointer(rebasing: bytes.prefix(idSearchBytes)))
        return ReplyEncoder.failure(id: id, error: error)
    }
}
