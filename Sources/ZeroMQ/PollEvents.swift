internal import CZeroMQ

/// Readiness of a socket or file descriptor (`ZMQ_POLLIN`, `ZMQ_POLLOUT`, `ZMQ_POLLERR`).
public struct PollEvents: OptionSet, Sendable, Hashable {
    public let rawValue: Int16
    public init(rawValue: Int16) { self.rawValue = rawValue }

    /// `ZMQ_POLLIN`: a message can be received (a file descriptor can be read) without blocking.
    public static let readable = PollEvents(rawValue: Int16(ZMQ_POLLIN))
    /// `ZMQ_POLLOUT`: a message can be sent (a file descriptor can be written) without blocking.
    public static let writable = PollEvents(rawValue: Int16(ZMQ_POLLOUT))
    /// `ZMQ_POLLERR`: an error condition on a file descriptor; never set for zmq sockets.
    public static let error = PollEvents(rawValue: Int16(ZMQ_POLLERR))
}
