/// What workers hand to the I/O thread.
public enum IOMessage: Sendable {
    /// A reply to send out of the front socket.
    case reply(OutgoingReply)
    /// An event to publish: topic frame and JSON body frame, for the subscribers of `namespace` (with
    /// CURVE; without it there is only the namespace "", and every subscriber's).
    case event(namespace: String, topic: [UInt8], body: [UInt8])
    /// Stop accepting work, answer what was admitted, then return from `run()`.
    case shutdown
}
