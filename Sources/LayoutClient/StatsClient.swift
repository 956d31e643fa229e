import ZeroMQ

/// A client of layoutd's stats socket (a ROUTER or REP): the counters as JSON, or Prometheus text.
///
/// Not `Sendable`: it owns a socket, which belongs to one thread.
public final class StatsClient {
    /// layoutd's default stats endpoint.
    public static let defaultEndpoint = "tcp://127.0.0.1:5557"

    /// The stats endpoint this client connects to.
    public var endpoint: String { connection.endpoint }
    /// How long each request waits for its reply.
    public let timeout: Duration
    private let connection: DealerConnection

    /// Connects to `endpoint` (in the background, as `LayoutClient` does).
    ///
    /// - Parameters:
    ///   - context: the ZeroMQ context to make the socket in; `nil` makes one for this client.
    ///   - curve: the keys for a daemon with CURVE, where only keys listed as admin get an answer.
    public init(
        endpoint: String = StatsClient.defaultEndpoint,
        context: Context? = nil,
        timeout: Duration = .seconds(5),
        curve: CurveCredentials? = nil
    ) throws(ClientError) {
        connection = try DealerConnection(endpoint: endpoint, context: makeContext(context), sendTimeout: timeout, curve: curve)
        self.timeout = timeout
    }

    /// The daemon's counters: one bare JSON object (`uptimeSeconds`, `requests`, `errors`, `inFlight`,
    /// `queued`, `workers`, `latencyMicros`, `itemsPrepared`, `layouts`, `eventsPublished`, `subscribers`).
    public func stats() throws(ClientError) -> AnyJSONObject {
        try AnyJSONObject(parsing: request("stats"))
    }

    /// The same counters in Prometheus text exposition format.
    public func metrics() throws(ClientError) -> String {
        String(decoding: try request("metrics"), as: UTF8.self)
    }

    /// Sends `body` (`stats`, `metrics` or `{"op":"stats"}`) and returns the reply body as received.
    ///
    /// - Throws: `ClientError.timeout` when no reply comes within `timeout`. Stats replies carry no id,
    ///   so the connection is then reset: a late reply can never be taken for the next one's.
    public func request(_ body: String) throws(ClientError) -> [UInt8] {
        try connection.send(Array(body.utf8))
        if let reply = try connection.receive(until: .now + timeout) { return reply }
        try connection.reconnect()
        throw .timeout(endpoint: connection.endpoint, after: timeout)
    }

    /// Closes the socket. `deinit` closes too.
    public func close() {
        connection.close()
    }
}
