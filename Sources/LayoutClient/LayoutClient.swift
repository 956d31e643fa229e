import ZeroMQ

/// A client of layoutd's front socket (PROTOCOL.md): one DEALER socket, one request at a time, or many
/// in flight with `send(_:)` and `receive(timeout:)`.
///
/// Given several front endpoints (a cluster's active and standby brokers), it fails over between them
/// as the ZeroMQ guide's Binary Star client does; see `init(endpoints:context:timeout:failover:curve:)`.
///
/// Not `Sendable`: it owns a socket, which belongs to one thread. Make one client per thread.
///
/// ```swift
/// let client = try LayoutClient(timeout: .seconds(2))
/// let reply = try client.prepare(key: "feed", jobBytes: job)
/// let attributes = try client.query(key: "feed", rect: QueryRect(x: 0, y: 0, width: 375, height: 800)).get()
///
/// let cluster = try LayoutClient(endpoints: ["tcp://broker-a:5555", "tcp://broker-b:5555"], timeout: .seconds(2))
/// let moved = try cluster.update(key: "feed", updates: [["delete": [0, 0]]], ifVersion: 3)  // safe to resend
/// ```
public final class LayoutClient {
    /// layoutd's default front endpoint.
    public static let defaultEndpoint = "tcp://127.0.0.1:5555"

    /// The front endpoints, in the order requests fail over between them.
    public let endpoints: [String]
    /// The front endpoint in use: the first one at the start, then wherever the last failover moved to.
    public var endpoint: String { connection.endpoint }
    /// How long `request(_:)` and the operations wait for their reply, at each endpoint they try.
    public let timeout: Duration
    /// How requests go round `endpoints`; unused with a single endpoint.
    public let failover: FailoverPolicy
    /// Whether reads go straight to a cluster worker that owns the key (`DirectReads.automatic`, the
    /// default) or always to the front.
    public let directReads: DirectReads
    private let connection: DealerConnection
    /// The context the client's sockets live in, for its direct connections.
    let context: Context
    /// The keys of a daemon with CURVE, for its direct connections too (a worker's direct endpoint has
    /// the broker's key).
    let curve: CurveCredentials?
    /// The route table and what else routing reads needs.
    var router = DirectRouter()
    private var endpointIndex = 0
    private var lastID = 0

    /// Connects to `endpoint`. The connection is made in the background, so this succeeds whether or
    /// not the daemon is up; requests time out while it is not.
    ///
    /// - Parameters:
    ///   - context: the ZeroMQ context to make the socket in; `nil` makes one for this client.
    ///   - curve: the keys for a daemon with CURVE; `nil` for one without. With CURVE the client only
    ///     ever sees its own layouts (its namespace), and a daemon that does not admit its key never
    ///     answers: requests time out.
    public convenience init(
        endpoint: String = LayoutClient.defaultEndpoint,
        context: Context? = nil,
        timeout: Duration = .seconds(5),
        curve: CurveCredentials? = nil,
        directReads: DirectReads = .automatic
    ) throws(ClientError) {
        try self.init(endpoints: [endpoint], context: context, timeout: timeout, curve: curve, directReads: directReads)
    }

    /// Connects to the first of `endpoints` (in the background, as `init(endpoint:context:timeout:curve:)`
    /// does) and moves on to the others only when a request needs it.
    ///
    /// With more than one endpoint, a request whose reply does not come within `timeout`, or that a
    /// standby broker answers (`unavailable`, with "standby" in its message), goes to the next endpoint
    /// on a fresh socket, and later requests start there. It is sent again only where that is safe:
    /// read-only ops (`ping`, `layout`, `query`, `list`, `route`) always, changes (`prepare`, `bounds`, `update`,
    /// `diff`, `drop`) only with an `ifVersion`, so that nothing is applied twice; any other request
    /// throws `ClientError.outcomeUnknown` instead. After a round in which every endpoint answered as a
    /// standby the client pauses (`failover.backoff`, doubling); after `failover.rounds` rounds it
    /// throws `ClientError.allEndpointsFailed`.
    ///
    /// With a single endpoint nothing moves: a timeout throws `ClientError.timeout` and a standby's
    /// answer is the reply, as with `init(endpoint:context:timeout:curve:)`.
    ///
    /// With `directReads` `.automatic` (the default), a `query` against a cluster's broker goes to the
    /// worker that owns its key when the broker's route table names one, looked up key by key (see
    /// `DirectReads`); `.off` sends everything to the front endpoints.
    ///
    /// - Throws: `ClientError.invalidInput` for an empty list or an empty endpoint.
    public init(
        endpoints: [String],
        context: Context? = nil,
        timeout: Duration = .seconds(5),
        failover: FailoverPolicy = FailoverPolicy(),
        curve: CurveCredentials? = nil,
        directReads: DirectReads = .automatic
    ) throws(ClientError) {
        guard let first = endpoints.first else { throw .invalidInput("no front endpoint: give at least one") }
        guard !endpoints.contains(where: \.isEmpty) else { throw .invalidInput("an empty front endpoint in \(endpoints)") }
        let context = try makeContext(context)
        connection = try DealerConnection(endpoint: first, context: context, sendTimeout: timeout, curve: curve)
        self.context = context
        self.curve = curve
        self.endpoints = endpoints
        self.timeout = timeout
        self.failover = failover
        self.directReads = directReads
    }

    /// Closes the sockets; later requests fail with a transport error. `deinit` closes too.
    public func close() {
        connection.close()
        for direct in router.connections.values { direct.close() }
    }

    // MARK: Raw bodies

    /// Sends one request body and returns the body of its reply.
    ///
    /// The reply is matched by the `id` the body carries: replies with another id (late answers to
    /// requests that timed out, or to ones sent with `send(_:)`) are discarded. A reply without an id is
    /// taken as the answer, since the daemon can only answer that way to a body it could not read.
    ///
    /// With several endpoints the body fails over as `init(endpoints:context:timeout:failover:curve:)`
    /// says, whether it may be resent being read from its `op` and `ifVersion`.
    ///
    /// - Throws: with one endpoint, `ClientError.timeout` when no reply comes within `timeout`; the
    ///   connection is then reset so that the late reply cannot arrive at all. With several,
    ///   `ClientError.outcomeUnknown` or `ClientError.allEndpointsFailed`.
    public func request(_ body: [UInt8]) throws(ClientError) -> [UInt8] {
        try request(body, id: CorrelationID(jsonText: JSONMemberScanner.member("id", in: body)))
    }

    /// Sends one request body whose `id` the caller knows (`nil`: it has none) and returns the body of
    /// its reply, matched and failed over as `request(_:)` does.
    public func request(_ body: [UInt8], id: CorrelationID?) throws(ClientError) -> [UInt8] {
        guard endpoints.count > 1 else {
            if let reply = try attempt(body, id: id) { return reply }
            try connection.reconnect()
            throw .timeout(endpoint: connection.endpoint, after: timeout)
        }
        return try requestWithFailover(body, id: id)
    }

    /// One try at the endpoint in use: the reply to `id`, or `nil` when none came within `timeout`
    /// (or the body could not even be queued, which only a peer that stopped reading causes).
    func attempt(_ body: [UInt8], id: CorrelationID?) throws(ClientError) -> [UInt8]? {
        try attempt(body, id: id, on: connection)
    }

    /// One try on `connection` (the front's, or a worker's direct endpoint's).
    func attempt(_ body: [UInt8], id: CorrelationID?, on connection: DealerConnection) throws(ClientError) -> [UInt8]? {
        do {
            try connection.send(body)
        } catch .timeout {
            return nil
        } catch {
            throw error
        }
        let deadline = ContinuousClock.now + timeout
        while let reply = try connection.receive(until: deadline) {
            let replyID = CorrelationID(jsonText: JSONMemberScanner.member("id", in: reply))
            if replyID == nil || replyID == id { return reply }
        }
        return nil
    }

    /// Closes the socket and connects a new one to the next endpoint, where later requests go too.
    func moveToNextEndpoint() throws(ClientError) {
        endpointIndex = (endpointIndex + 1) % endpoints.count
        try connection.reconnect(to: endpoints[endpointIndex])
    }

    /// Sends one request body without waiting for its reply: pipelining for benchmarks. Collect the
    /// replies with `receive(timeout:)`; they may come in another order than the requests. Both use
    /// the endpoint in use and never fail over.
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
        let key = fields["layout"] as? String
        if op == "query", let key, fields["namespace"] == nil {
            if let reply = try queryDirectly(key: key, fields: fields) { return reply }
            return try queryThroughFront(key: key, fields: fields)
        }
        let request = try makeRequest(op, fields: fields)
        let reply = try Reply(body: self.request(request.body, id: request.id))
        if let key { noteVersion(of: reply, key: key, op: op) }
        return reply
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
