import ZeroMQ

/// Where the console's gateway reaches its own process: the front, stats and events endpoints it bound,
/// and, with CURVE, the key pair it is admitted with (an admin's, made at start and never written down).
public struct ConsoleEndpoints: Sendable {
    public var front: String
    public var stats: String
    public var events: String
    public var curve: Curve?

    /// A CURVE client's keys and the server's public key.
    public struct Curve: Sendable {
        public var clientKeys: CurveKeyPair
        public var serverPublicKey: CurveKey

        public init(clientKeys: CurveKeyPair, serverPublicKey: CurveKey) {
            self.clientKeys = clientKeys
            self.serverPublicKey = serverPublicKey
        }
    }

    /// Bound endpoints as a client connects to them: a wildcard host (`*`, `0.0.0.0`, `[::]`) becomes
    /// the loopback address, since the gateway runs in the same process.
    public init(front: String, stats: String, events: String, curve: Curve? = nil) {
        self.front = Self.connectable(front)
        self.stats = Self.connectable(stats)
        self.events = Self.connectable(events)
        self.curve = curve
    }

    static func connectable(_ endpoint: String) -> String {
        for (wildcard, loopback) in [("tcp://*:", "tcp://127.0.0.1:"), ("tcp://0.0.0.0:", "tcp://127.0.0.1:"), ("tcp://[::]:", "tcp://[::1]:")]
        where endpoint.hasPrefix(wildcard) {
            return loopback + endpoint.dropFirst(wildcard.count)
        }
        return endpoint
    }
}
