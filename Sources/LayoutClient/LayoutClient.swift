import ZeroMQ

/// A client of layoutd's front socket (PROTOCOL.md): one DEALER socket, one request at a time, or many
/// in flight with `send(_:)` and `receive(timeout:)`.
///
/// Not `Sendable`: it owns a socket, which belongs to one thread. Make one client per thread.
///
/// ```swift
/// let client = try LayoutClient(timeout: .seconds(2))
/// let reply = try client.prepare(key: "feed", jobBytes: job)
/// let attributes = try client.query(key: "feed", rect: QueryRect(x: 0, y: 0, width: 375, height: 800)).get()
/// ```
public final class LayoutClient {
    /// layoutd's default front endpoint.
    public static let defaultEndpoint = "tcp://127.0.0.1:5555"

    /// The front endpoint this client connects to.
    public var endpoint: String { connection.endpoint }
    /// How long `request(_:)` and the operations wait for their reply.
    public let timeout: Duration
    private let connection: DealerConnection
    private var lastID = 0

    /// Connects to `endpoint`. The connection is made in the background, so this succeeds whether or
    /// not the daemon is up; requests time out while it is not.
    ///
    /// - Parameters:
    ///   - context: the ZeroMQ context to make the socket in; `nil` makes one for this client.
    ///   - curve: the keys for a daemon with CURVE; `nil` for one without. With CURVE the client only
    ///     ever sees its own layouts (its namespace), and a daemon that does not admit its key never
    ///     answers: requests time out.
    public init(
        endpoint: String = LayoutClient.defaultEndpoint,
        context: Context? = nil,
        timeout: Duration = .seconds(5),
        curve: CurveCredentials? = nil
    ) throws(ClientError) {
        connection = try DealerConnection(endpoint: endpoint, context: makeContext(context), sendTimeout: timeout, curve: curve)
        self.timeout = timeout
    }

    /// Closes the socket; later requests fail with a transport error. `deinit` closes too.
    public func close() {
        connection.close()
    }

    // MARK: Raw bodies

    /// Sends one request body and returns the body of its reply.
    ///
    /// The reply is matched by the `id` the body carries: replies with another id (late answers to
    /// requests that timed out, or to ones sent with `send(_:)`) are discarded. A reply without an id is
    /// taken as the answer, since the daemon can only answer that way to a body it could not read.
    ///
    /// - Throws: `ClientError.timeout` when no reply comes within `timeout`; the connection is then
    ///   reset so that the late reply cannot arrive at all.
    public func request(_ body: [UInt8]) throws(ClientError) -> [UInt8] {
        try request(body, id: CorrelationID(jsonText: JSONMemberScanner.member("id", in: body)))
    }

    /// Sends one request body whose `id` the caller knows (`nil`: it has none) and returns the body of
    /// its reply, matched as `request(_:)` does.
    public func request(_ body: [UInt8], id: CorrelationID?) throws(ClientError) -> [UInt8] {
        try connection.send(body)
        let deadline = ContinuousClock.now + timeout
        while let reply = try connection.receive(until: deadline) {
            let replyID = CorrelationID(jsonText: JSONMemberScanner.member("id", in: reply))
            if replyID == nil || replyID == id { return reply }
        }
        try connection.reconnect()
        throw .timeout(endpoint: connection.endpoint, after: timeout)
    }

    /// Sends one request body without waiting for its reply: pipelining for benchmarks. Collect the
    /// replies with `receive(timeout:)`; they may come in another order than the requests.
    public func send(_ body: [UInt8]) throws(ClientError) {
        try connection.send(body)
    }

    /// The body of the next reply, whichever request it answers, or `nil` if none came within `timeout`
    /// (`nil`: wait without limit).
    public func receive(timeout: Duration?) throws(ClientError) -> [UInt8]? {
        try connection.receive(until: timeout.map { .now + $0 })
    }

    // MARK: Requests by op

    /// Sends `op` with `fields` (and `v`, and a fresh `id`) and returns the reply.
    ///
    /// The operations (`ping()`, `prepare(key:jobBytes:returning:format:)`, ...) are this with the
    /// fields of PROTOCOL.md; use it directly for fields or ops they do not cover.
    public func call(_ op: String, fields: [String: Any] = [:]) throws(ClientError) -> Reply {
        let request = try makeRequest(op, fields: fields)
        return try Reply(body: self.request(request.body, id: request.id))
    }

    /// A request body for `op` with `fields`, a fresh `id` and `v` 1: for `send(_:)`. Members of
    /// `fields` named `op`, `id` or `v` are replaced.
    public func makeRequest(_ op: String, fields: [String: Any] = [:]) throws(ClientError) -> (id: CorrelationID, body: [UInt8]) {
        lastID += 1
        let id = CorrelationID.number(Double(lastID))
        var object = fields
        object["v"] = 1
        object["id"] = id.jsonValue
        object["op"] = op
        return (id, try JSONCoding.bytes(of: object))
    }
}
