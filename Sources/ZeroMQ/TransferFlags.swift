internal import CZeroMQ

/// Flags for sends (`ZMQ_DONTWAIT`, `ZMQ_SNDMORE`).
public struct SendFlags: OptionSet, Sendable, Hashable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// `ZMQ_DONTWAIT`: return `false` instead of blocking when the message cannot be queued now.
    public static let dontWait = SendFlags(rawValue: ZMQ_DONTWAIT)
    /// `ZMQ_SNDMORE`: more frames of the same message follow.
    public static let sendMore = SendFlags(rawValue: ZMQ_SNDMORE)
}

/// Flags for receives (`ZMQ_DONTWAIT`).
public struct ReceiveFlags: OptionSet, Sendable, Hashable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// `ZMQ_DONTWAIT`: return `nil` instead of blocking when no message is waiting.
    public static let dontWait = ReceiveFlags(rawValue: ZMQ_DONTWAIT)
}
