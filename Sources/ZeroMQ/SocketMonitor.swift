internal import CZeroMQ

/// Events of a socket's connections that `Socket.monitor(_:at:)` reports (`ZMQ_EVENT_*`).
public struct MonitorEvents: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// `ZMQ_EVENT_ACCEPTED`: a peer connected to a bound endpoint; the value is the connection's descriptor.
    public static let accepted = MonitorEvents(rawValue: UInt16(ZMQ_EVENT_ACCEPTED))
    /// `ZMQ_EVENT_DISCONNECTED`: a connection went away.
    public static let disconnected = MonitorEvents(rawValue: UInt16(ZMQ_EVENT_DISCONNECTED))
    /// `ZMQ_EVENT_HANDSHAKE_SUCCEEDED`: a peer finished the handshake, authenticated if that is on.
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
}

/// One report of a socket monitor: two frames, the event with its value, then the endpoint.
public struct MonitorEvent: Sendable, Hashable {
    /// Which event (one member of `MonitorEvents`).
    public var event: MonitorEvents
    /// What the event reports: an errno, a descriptor, a protocol error or a ZAP status.
    public var value: UInt32
    /// For a connection accepted on a bound endpoint, the peer's address (`tcp://203.0.113.9:51234`).
    public var endpoint: String

    /// Reads the frames of a monitor message; nil for anything else.
    public init?(frames: [[UInt8]]) {
        // 6 bytes in host order: uint16 event, uint32 value.
        guard frames.count == 2, frames[0].count == 6 else { return nil }
        event = MonitorEvents(rawValue: frames[0].withUnsafeBytes { $0.loadUnaligned(as: UInt16.self) })
        value = frames[0].withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 2, as: UInt32.self) }
        endpoint = String(decoding: frames[1], as: UTF8.self)
    }

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
    /// Reports `events` of this socket's connections on a PAIR that libzmq binds at `endpoint`
    /// (`inproc://…`): connect a `.pair` socket there, from any thread, and read `MonitorEvent`s from it.
    /// Events nobody reads are dropped once the PAIR's queue is full.
    public func monitor(_ events: MonitorEvents, at endpoint: String) throws(ZeroMQError) {
        try LibZMQ.monitor(openHandle("zmq_socket_monitor"), endpoint, events: Int32(events.rawValue))
    }

    /// Stops `monitor(_:at:)`.
    public func stopMonitoring() throws(ZeroMQError) {
        try LibZMQ.monitor(openHandle("zmq_socket_monitor"), nil, events: 0)
    }
}
