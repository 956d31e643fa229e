/// What workers hand to the I/O thread.
public enum IOMessage: Sendable {
    /// A reply to send out of the front socket.
    case reply(OutgoingReply)
    /// An event to publish: topic frame and JSON body frame.
    case event(topic: [UInt8], body: [UInt8])
    /// Stop accepting work, answer what was admitted, then return from `run()`.
    case shutdown
}
