internal import CZeroMQ

/// Connection events a socket monitor reports (`ZMQ_EVENT_*`), as a mask to ask for and as the kind of
/// one reported event.
public struct MonitorEvents: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// A connect completed; the value is the connection's file descriptor.
    public static let connected = MonitorEvents(rawValue: UInt16(ZMQ_EVENT_CONNECTED))
    /// A connect is waiting to be retried; the value is the reconnect interval in milliseconds.
    public static let connectRetried = MonitorEvents(rawValue: UInt16(ZMQ_EVENT_CONNECT_RETRIED))
    /// A bound socket is listening; the value is the listening descriptor.
    public static let listening = MonitorEvents(rawValue: UInt16(ZMQ_EVENT_LISTENING))
    /// A bound socket accepted a connection; the value is the connection's file descriptor.
    public static let accepted = MonitorEvents(rawValue: UInt16(ZMQ_EVENT_ACCEPTED))
    /// A listening or connecting descriptor was closed; the value is the descriptor.
    public static let closed = MonitorEvents(rawValue: UInt16(ZMQ_EVENT_CLOSED))
    /// A connection was lost (the peer closed it, crashed, or a protocol error); the value is its file
    /// descriptor, the same one `Message.sourceFileDescriptor` reports for messages that came over it.
    public static let disconnected = MonitorEvents(rawValue: UInt16(ZMQ_EVENT_DISCONNECTED))
    /// The ZMTP handshake with a new peer succeeded; the value is 0.
    public static let handshakeSucceeded = MonitorEvents(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_SUCCEEDED))
    /// `ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL`: the connection failed during the handshake (closed by
    /// the peer, timed out); the value is an errno.
    public static let handshakeFailedNoDetail = MonitorEvents(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL))
    /// `ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL`: the peer broke the protocol: another security mechanism,
    /// a CURVE handshake that does not decrypt (a wrong server key), a malformed command; the value is
    /// a `MonitorEvent.ProtocolError`.
    public static let handshakeFailedProtocol = MonitorEvents(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL))
    /// `ZMQ_EVENT_HANDSHAKE_FAILED_AUTH`: the ZAP handler refused the peer; the value is its status code.
    public static let handshakeFailedAuthentication = MonitorEvents(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_FAILED_AUTH))
    /// Monitoring stopped (the monitored socket closed or `stopMonitoring()` was called).
    public static let monitorStopped = MonitorEvents(rawValue: UInt16(ZMQ_EVENT_MONITOR_STOPPED))
    /// Every event libzmq's stable API reports.
    public static let all = MonitorEvents(rawValue: UInt16(ZMQ_EVENT_ALL))
}

/// One event from a socket monitor: what happened, its value (usually a file descriptor) and the
/// endpoint concerned (for a bound socket, the bound endpoint, not the peer's address).
public struct MonitorEvent: Sendable, Hashable {
    public var kind: MonitorEvents
    public var value: UInt32
    public var endpoint: String

    public init(kind: MonitorEvents, value: UInt32, endpoint: String) {
        self.kind = kind
        self.value = value
        self.endpoint = endpoint
    }

    /// Decodes libzmq's two-frame event message: 6 bytes (a 16-bit event id and a 32-bit value, both in
    /// host byte order), then the endpoint. nil for anything else.
    public init?(frames: [[UInt8]]) {
        guard frames.count == 2, frames[0].count == 6 else { return nil }
        let (id, value) = frames[0].withUnsafeBytes { bytes in
            (bytes.loadUnaligned(fromByteOffset: 0, as: UInt16.self), bytes.loadUnaligned(fromByteOffset: 2, as: UInt32.self))
        }
        self.init(kind: MonitorEvents(rawValue: id), value: value, endpoint: String(decoding: frames[1], as: UTF8.self))
    }

    /// The value as a file descriptor (for connection events).
    public var fileDescriptor: Int32 { Int32(bitPattern: value) }

    /// The value of a `handshakeFailedProtocol` event (`ZMQ_PROTOCOL_ERROR_*`), the common ones named.
    public struct ProtocolError: RawRepresentable, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// `ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH`: the peer uses another mechanism (plain ZeroMQ
        /// against CURVE).
        public static let mechanismMismatch = ProtocolError(rawValue: UInt32(ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH))
        /// `ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC`: a CURVE box did not open (the peer has a wrong key).
        public static let cryptographic = ProtocolError(rawValue: UInt32(ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC))
    }
}

extension Socket {
    /// Reports `events` of this socket as messages on a PAIR socket that libzmq binds at `endpoint`
    /// (`inproc://…`). Connect a `.pair` socket there and read with `receiveMonitorEvent`.
    ///
    /// The events come from libzmq's I/O thread in the order they happen; a disconnect is reported as
    /// soon as the connection drops (a killed peer's kernel closes it), without waiting for a timeout.
    public func monitor(_ endpoint: String, events: MonitorEvents) throws(ZeroMQError) {
        try LibZMQ.monitor(openHandle("zmq_socket_monitor"), endpoint, events: Int32(events.rawValue))
    }

    /// Stops the monitor started by `monitor(_:events:)`; its PAIR gets `monitorStopped`.
    public func stopMonitoring() throws(ZeroMQError) {
        try LibZMQ.monitor(openHandle("zmq_socket_monitor"), nil, events: 0)
    }

    /// Receives one monitor event from a PAIR connected to a monitor endpoint; nil as for
    /// `receive(flags:)`, and for a message that is not an event.
    public func receiveMonitorEvent(flags: ReceiveFlags = []) throws(ZeroMQError) -> MonitorEvent? {
        guard let frames = try receiveMultipart(flags: flags) else { return nil }
        return MonitorEvent(frames: frames)
    }
}
