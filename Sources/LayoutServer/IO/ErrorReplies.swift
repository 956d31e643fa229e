import LayoutWire

/// Replies the I/O thread writes itself, without a worker.
enum ErrorReplies {
    /// `busy`, echoing the request's id when it can be found cheaply.
    static func busy(for body: [UInt8], message: String) -> [UInt8] {
        ReplyEncoder.failure(id: RequestDecoder.requestID(in: body), error: WireError(.busy, message))
    }
}
