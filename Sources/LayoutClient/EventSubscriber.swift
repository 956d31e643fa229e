import ZeroMQ

/// A subscriber to layoutd's events socket (an XPUB): `invalidated:<layout>` and `batch:<layout>` topics.
///
/// Not `Sendable`: it owns a SUB socket, which belongs to one thread.
///
/// With CURVE (`curve`), the daemon publishes each event under its owner's key and this subscriber
/// adds its own public key in front of every prefix and takes it off every topic again: it subscribes
/// and receives exactly as without CURVE, and only its own namespace's events reach it.
///
/// Subscriptions travel to the daemon asynchronously, so events published right after `subscribe`
/// returns may be missed (ZeroMQ's "slow joiner") unless `confirmSubscriptions(timeout:)` waits until
/// they are in effect; and the daemon drops events for subscribers that fall behind. Both show as a gap
/// in a layout's `version`, which is the signal to query afresh.
public final class EventSubscriber {
    /// layoutd's default events endpoint.
    public static let defaultEndpoint = "tcp://127.0.0.1:5556"

    /// The events endpoint this subscriber connects to.
    public let endpoint: String
    private let socket: Socket
    private var poller = Poller()
    /// With CURVE: the subscriber's public key in Z85, in front of every topic on the wire.
    private let topicPrefix: [UInt8]
    /// Events received while waiting for a confirmation, handed out first by `next`.
    private var received: [LayoutEvent] = []

    /// Connects to `endpoint` and subscribes to each of `prefixes` (none: subscribe later).
    ///
    /// - Parameters:
    ///   - context: the ZeroMQ context to make the socket in; `nil` makes one for this subscriber.
    ///   - curve: the keys for a daemon with CURVE; `nil` for one without.
    public init(
        endpoint: String = EventSubscriber.defaultEndpoint,
        context: Context? = nil,
        prefixes: [String] = [],
        curve: CurveCredentials? = nil
    ) throws(ClientError) {
        self.endpoint = endpoint
        let context = try makeContext(context)
        let topicPrefix = curve?.topicPrefix ?? []
        self.topicPrefix = topicPrefix
        socket = try transport { () throws(ZeroMQError) in
            let socket = try Socket(.sub, in: context)
            try curve?.apply(to: socket)
            try socket.connect(endpoint)
            for prefix in prefixes { try socket.subscribe(topicPrefix + Array(prefix.utf8)) }
            return socket
        }
        poller.register(socket, for: .readable)
    }

    /// Receives events whose topic starts with `prefix`: `batch:` for every batch, `batch:feed` for one
    /// layout's (and any key that starts with `feed`), `""` for everything.
    public func subscribe(_ prefix: String) throws(ClientError) {
        try transport { () throws(ZeroMQError) in try socket.subscribe(topicPrefix + Array(prefix.utf8)) }
    }

    /// Removes one `subscribe(prefix)`.
    public func unsubscribe(_ prefix: String) throws(ClientError) {
        try transport { () throws(ZeroMQError) in try socket.unsubscribe(topicPrefix + Array(prefix.utf8)) }
    }

    /// Waits until every subscription made so far is in effect at the daemon (PROTOCOL.md §7, "Knowing a
    /// subscription is in effect"): it subscribes to a `subscribed:<token>` of its own and waits for that
    /// event. Events that arrive meanwhile are kept for `next`. False when no confirmation came within
    /// `timeout` (a daemon older than the confirmation never sends one).
    public func confirmSubscriptions(timeout: Duration) throws(ClientError) -> Bool {
        // 32 hex digits, zero-padded: a token is 8 to 64 characters, whatever the random values.
        let token = (0..<2).map { _ in
            let digits = String(UInt64.random(in: 0 ... .max), radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
        let topic = "subscribed:" + token
        try subscribe(topic)
        defer { try? unsubscribe(topic) }
        let deadline = ContinuousClock.now + timeout
        while true {
            guard let event = try receive(until: deadline) else { return false }
            if event.topic == topic, event.kind == "subscribed" { return true }
            received.append(event)
        }
    }

    /// The next event, or `nil` if none came within `timeout` (`nil`: wait without limit).
    ///
    /// - Throws: `ClientError.malformedReply` for an event that is not two frames with a JSON object
    ///   body; the event is consumed, so the next call goes on with the one after it.
    public func next(timeout: Duration?) throws(ClientError) -> LayoutEvent? {
        if !received.isEmpty { return received.removeFirst() }
        return try receive(until: timeout.map { ContinuousClock.now + $0 })
    }

    private func receive(until deadline: ContinuousClock.Instant?) throws(ClientError) -> LayoutEvent? {
        while true {
            if let frames = try transport({ () throws(ZeroMQError) in try socket.receiveMultipart(flags: .dontWait) }) {
                guard frames.count == 2 else {
                    throw .malformedReply("an event of \(frames.count) frames, not 2 (topic, body)")
                }
                // With CURVE every topic starts with our key (the socket's own filter saw to that).
                let topic = frames[0].starts(with: topicPrefix) ? Array(frames[0].dropFirst(topicPrefix.count)) : frames[0]
                return try LayoutEvent(topic: topic, body: frames[1])
            }
            let remaining = deadline.map { $0 - .now }
            if let remaining, remaining <= .zero { return nil }
            _ = try transport { () throws(ZeroMQError) in try poller.poll(timeout: remaining) }
        }
    }

    /// Closes the socket. `deinit` closes too.
    public func close() {
        socket.close()
    }
}
