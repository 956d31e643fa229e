import LayoutWire

/// Replies the I/O thread writes itself, without a worker.
enum ErrorReplies {
    /// How much of a body the I/O thread reads to find its id: the thread every client shares must not
    /// skip through a 50 MB job (with `id` after `sections`) just to refuse it when the daemon is full.
    /// It reads all of these bytes even after an `id`, because a later `id` wins (`requestID(in:)`).
    static let idSearchBytes = 64 * 1024

    /// `busy`, echoing the request's id when it stands in the body's first `idSearchBytes`.
    static func busy(for body: RequestBody, message: String) -> [UInt8] {
        failure(for: body, error: WireError(.busy, message))
    }

    /// `too_large` for a body over `limits.maxMessageBytes`, echoing its id as `busy` does. No path: the
    /// whole body is at fault, not one field.
    static func tooLarge(for body: RequestBody, limit: Int64) -> [UInt8] {
        let message = "the request is \(body.count) bytes, over the limit of \(limit) bytes (limits.maxMessageBytes)"
        return failure(for: body, error: WireError(.tooLarge, message))
    }

    /// The answer to a request whose frames before the body are over `limit` bytes in all.
    static func tooLarge(routingFrameBytes: Int, for body: RequestBody, limit: Int) -> [UInt8] {
        let message = "the frames before the request's body are \(routingFrameBytes) bytes, over the limit of \(limit) bytes"
        return failure(for: body, error: WireError(.tooLarge, message))
    }

    private static func failure(for body: RequestBody, error: WireError) -> [UInt8] {
        let id = body.withUnsafeBytes { bytes in
            RequestDecoder.requestID(in: UnsafeRawBufferPointer(rebasing: bytes.prefix(idSearchBytes)))
        }
        return ReplyEncoder.failure(id: id, error: error)
    }
}
