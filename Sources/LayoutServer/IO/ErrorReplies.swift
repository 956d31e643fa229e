import LayoutWire

/// Replies the I/O thread writes itself, without a worker.
enum ErrorReplies {
    /// `busy`, echoing the request's id when it can be found cheaply.
    static func busy(for body: RequestBody, message: String) -> [UInt8] {
        ReplyEncoder.failure(id: body.withUnsafeBytes { RequestDecoder.requestID(in: $0) }, error: WireError(.busy, message))
    }
}
