internal import CZeroMQ

extension SocketOption where Value == Int32 {
    /// `ZMQ_LINGER` (C `int`, milliseconds): how long a closed socket keeps trying to deliver queued
    /// messages; -1 forever. This module's sockets start at 0 so that terminating a context never hangs.
    public static var linger: Self { .init(code: ZMQ_LINGER, codec: .int32) }
    /// `ZMQ_SNDHWM` (C `int`): the outbound queue limit in messages per peer; 0 is unlimited.
    public static var sendHighWaterMark: Self { .init(code: ZMQ_SNDHWM, codec: .int32) }
    /// `ZMQ_RCVHWM` (C `int`): the inbound queue limit in messages per peer; 0 is unlimited.
    public static var receiveHighWaterMark: Self { .init(code: ZMQ_RCVHWM, codec: .int32) }
    /// `ZMQ_RCVTIMEO` (C `int`, milliseconds): how long a blocking receive waits before returning `nil`;
    /// -1 forever.
    public static var receiveTimeout: Self { .init(code: ZMQ_RCVTIMEO, codec: .int32) }
    /// `ZMQ_SNDTIMEO` (C `int`, milliseconds): how long a blocking send waits before returning `false`;
    /// -1 forever.
    public static var sendTimeout: Self { .init(code: ZMQ_SNDTIMEO, codec: .int32) }
    /// `ZMQ_RCVBUF` (C `int`, bytes): the kernel receive buffer of the socket's connections (SO_RCVBUF);
    /// -1 leaves the system's default.
    public static var receiveBufferSize: Self { .init(code: ZMQ_RCVBUF, codec: .int32) }
}

extension SocketOption where Value == Int64 {
    /// `ZMQ_MAXMSGSIZE` (C `int64_t`, bytes): a peer that sends a larger message over tcp or ipc is
    /// disconnected; -1 is unlimited.
    public static var maxMessageSize: Self { .init(code: ZMQ_MAXMSGSIZE, codec: .int64) }
}

extension SocketOption where Value == Bool {
    /// `ZMQ_IMMEDIATE` (C `int`): queue messages only to completed connections.
    public static var immediate: Self { .init(code: ZMQ_IMMEDIATE, codec: .bool) }
}

extension SocketOption where Value == Bool {
    /// `ZMQ_CURVE_SERVER` (C `int`): the socket is the server side of CURVE handshakes; it needs
    /// `curveSecretKey`. Set before binding. Every peer must then speak CURVE, and with a ZAP handler
    /// bound in the context (`inproc://zeromq.zap.01`) that handler decides who is admitted; without
    /// one, libzmq admits every client that knows the server's public key.
    public static var curveServer: Self { .init(code: ZMQ_CURVE_SERVER, codec: .bool) }
}

extension SocketOption where Value == CurveKey {
    /// `ZMQ_CURVE_PUBLICKEY` (32 bytes): a CURVE client's own public key. Set before connecting.
    public static var curvePublicKey: Self { .init(code: ZMQ_CURVE_PUBLICKEY, codec: .curveKey) }
    /// `ZMQ_CURVE_SECRETKEY` (32 bytes): the socket's own secret key, on a client or a server.
    public static var curveSecretKey: Self { .init(code: ZMQ_CURVE_SECRETKEY, codec: .curveKey) }
    /// `ZMQ_CURVE_SERVERKEY` (32 bytes): the public key of the server a CURVE client connects to;
    /// setting it makes the socket a CURVE client.
    public static var curveServerKey: Self { .init(code: ZMQ_CURVE_SERVERKEY, codec: .curveKey) }
}

extension SocketOption where Value == String {
    /// `ZMQ_ZAP_DOMAIN` (string): the domain a server socket names in its ZAP requests, so that one
    /// handler can tell the sockets of a process apart. Set before binding.
    public static var zapDomain: Self { .init(code: ZMQ_ZAP_DOMAIN, codec: .string(capacity: 256)) }
}

extension SocketOption where Value == [UInt8] {
    /// `ZMQ_ROUTING_ID` (binary, 1...255 bytes, not starting with 0): the id a ROUTER peer sees for this
    /// socket. Set before connecting.
    public static var routingID: Self { .init(code: ZMQ_ROUTING_ID, codec: .bytes(capacity: 255)) }
}

extension WriteOnlySocketOption where Value == Bool {
    /// `ZMQ_ROUTER_MANDATORY` (C `int`): a ROUTER send to an unknown routing id fails with
    /// `ZeroMQError.Code.hostUnreachable` instead of being dropped silently.
    public static var routerMandatory: Self { .init(code: ZMQ_ROUTER_MANDATORY, codec: .bool) }
    /// `ZMQ_XPUB_VERBOSE` (C `int`): an XPUB passes on every subscription message, not only new ones.
    public static var xpubVerbose: Self { .init(code: ZMQ_XPUB_VERBOSE, codec: .bool) }
    /// `ZMQ_XPUB_MANUAL` (C `int`): an XPUB passes every subscription message to the application
    /// and applies none itself. After receiving one, `set(.subscribe, …)` / `set(.unsubscribe, …)`
    /// file a topic for the subscriber that sent it, which may differ from the one it asked for.
    /// Unsubscriptions made by libzmq for a departed subscriber arrive without metadata.
    public static var xpubManual: Self { .init(code: ZMQ_XPUB_MANUAL, codec: .bool) }
}

extension WriteOnlySocketOption where Value == [UInt8] {
    /// `ZMQ_SUBSCRIBE` (binary prefix): a SUB receives messages whose first frame starts with it; empty
    /// subscribes to everything.
    public static var subscribe: Self { .init(code: ZMQ_SUBSCRIBE, codec: .bytes(capacity: 0)) }
    /// `ZMQ_UNSUBSCRIBE` (binary prefix): removes one matching `subscribe`.
    public static var unsubscribe: Self { .init(code: ZMQ_UNSUBSCRIBE, codec: .bytes(capacity: 0)) }
}

extension ReadOnlySocketOption where Value == Bool {
    /// `ZMQ_RCVMORE` (C `int`): whether the last frame received has more frames after it.
    public static var receiveMore: Self { .init(code: ZMQ_RCVMORE, codec: .bool) }
}

extension ReadOnlySocketOption where Value == PollEvents {
    /// `ZMQ_EVENTS` (C `int`): whether a message can be received or sent right now. Reading it also lets
    /// libzmq process pending commands, which is what an edge-triggered `fileDescriptor` waiter needs.
    public static var events: Self { .init(code: ZMQ_EVENTS, codec: .events) }
}

extension ReadOnlySocketOption where Value == Int32 {
    /// `ZMQ_FD` (C `int` on POSIX): a file descriptor that becomes readable, edge-triggered, when
    /// `events` may have changed; for integrating a socket with another event loop. Never read or
    /// write it; always check `events` after it fires.
    public static var fileDescriptor: Self { .init(code: ZMQ_FD, codec: .int32) }
}

extension ReadOnlySocketOption where Value == String {
    /// `ZMQ_LAST_ENDPOINT` (string): the endpoint last bound or connected, with the real port after
    /// binding `tcp://127.0.0.1:*`.
    public static var lastEndpoint: Self { .init(code: ZMQ_LAST_ENDPOINT, codec: .string(capacity: 1024)) }
}
