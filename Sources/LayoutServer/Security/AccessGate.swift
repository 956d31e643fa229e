import ZeroMQ

/// What the I/O thread does differently when CURVE is on: it owns one of these next to its sockets.
///
/// The ZAP handler decides at the handshake; the gate decides per message, from the User-Id libzmq
/// attached to it (a property of the connection: no body is read) and the allow-list as it stands now,
/// so a key taken off the list on SIGHUP loses even the connections it already has.
///
/// Events: a SUB socket filters what it receives by its own subscriptions, so the daemon cannot route
/// `batch:feed` of one client to that client alone while another client's `batch:feed` looks the same on
/// the wire. So with CURVE every event topic starts with a key of its namespace (40 characters of Z85)
/// and a subscriber subscribes to its own key followed by the prefix it wants (LayoutClient does it and
/// takes the key off again). The events socket is an XPUB in manual mode: the gate files each
/// subscription under the subscriber's own key, whatever the subscription says, so a client that names
/// another client's key receives nothing.
///
/// A cluster's broker (LayoutCluster) uses the same gate on the same three sockets, so a client meets
/// the same security against a broker as against a single daemon.
public struct AccessGate {
    let access: AccessControl

    public init(access: AccessControl) {
        self.access = access
    }

    /// Makes the daemon's sockets CURVE servers with the server's key and ZAP domains, monitored for
    /// failed handshakes; the events socket also takes subscriptions manually. Call before binding them.
    static func secure(front: Socket, events: Socket, stats: Socket, with access: AccessControl) throws(ZeroMQError) {
        try secureFront(front, with: access)
        try secureStats(stats, with: access)
        try secureEvents(events, with: access)
    }

    /// Makes a front ROUTER a CURVE server (ZAP domain `front`). Call before binding it.
    public static func secureFront(_ front: Socket, with access: AccessControl) throws(ZeroMQError) {
        try secure(front, domain: ZAPDomain.front, with: access)
    }

    /// Makes a stats ROUTER a CURVE server admitting admin keys only (ZAP domain `stats`). Call before
    /// binding it.
    public static func secureStats(_ stats: Socket, with access: AccessControl) throws(ZeroMQError) {
        try secure(stats, domain: ZAPDomain.stats, with: access)
    }

    /// Makes an events XPUB a CURVE server (ZAP domain `events`) that takes subscriptions manually: its
    /// owner files each one with `file(subscription:on:)`. Call before binding it.
    public static func secureEvents(_ events: Socket, with access: AccessControl) throws(ZeroMQError) {
        try secure(events, domain: ZAPDomain.events, with: access)
        try events.set(.xpubManual, true)
    }

    /// A CURVE server with the server's key, asking the ZAP handler under `domain`, and monitored for
    /// handshakes that fail before reaching the handler (which reads that monitor too).
    package static func secure(_ socket: Socket, domain: String, with access: AccessControl) throws(ZeroMQError) {
        try socket.makeCurveServer(secretKey: access.serverKeys.secretKey)
        try socket.set(.zapDomain, domain)
        try socket.monitor(ZAPHandler.monitorEndpoint(domain), events: [.handshakeFailedProtocol, .handshakeFailedNoDetail])
    }

    // MARK: Requests and stats

    /// The caller of a front request whose body is `frame`; nil when its key is no longer listed
    /// (the request is dropped, unanswered, and counted).
    public func caller(of frame: borrowing Message) -> Caller? {
        guard let userID = frame.userID else {
            refuse("no User-Id", socket: ZAPDomain.front, frame: frame, userID: nil)
            return nil
        }
        guard let caller = access.caller(userID: userID) else {
            refuse("key no longer listed", socket: ZAPDomain.front, frame: frame, userID: userID)
            return nil
        }
        return caller
    }

    /// Whether a stats request (its last frame `frame`) comes from a key listed as admin now.
    public func admitsStats(_ frame: borrowing Message) -> Bool {
        let userID = frame.userID
        if let userID, access.isAdmin(userID: userID) { return true }
        refuse("not an admin key", socket: ZAPDomain.stats, frame: frame, userID: userID)
        return false
    }

    // MARK: Events

    /// Files a subscription message (`0x01 prefix` or `0x00 prefix`) received on the manual XPUB
    /// `events`: the subscriber's key, then `prefix` unless it starts with that key already. Returns
    /// the prefix as received, for the subscription count, and as filed (what the subscriber receives
    /// an event under).
    public func file(subscription message: borrowing Message, on events: Socket) -> (subscribe: Bool, prefix: [UInt8], filed: [UInt8])? {
        let frame = message.bytes
        guard let kind = frame.first, kind <= 1 else { return nil }
        let prefix = Array(frame.dropFirst())
        // Unsubscriptions libzmq makes for a departed subscriber carry no metadata, and libzmq has
        // already removed what was filed for it: nothing to do.
        guard let userID = message.userID else { return (kind == 1, prefix, prefix) }
        let key = Array(userID.utf8)
        let filed = prefix.starts(with: key) ? prefix : key + prefix
        if kind == 1 {
            guard access.caller(userID: userID) != nil else {
                refuse("key no longer listed", socket: ZAPDomain.events, frame: message, userID: userID)
                return nil
            }
            try? events.set(.subscribe, filed)
        } else {
            // Always honoured, even for a key taken off the list meanwhile.
            try? events.set(.unsubscribe, filed)
        }
        return (kind == 1, prefix, filed)
    }

    /// Publishes an event of `namespace` once under each of its keys; returns whether any key has it.
    public func publish(namespace: String, topic: [UInt8], body: [UInt8], on events: Socket) throws(ZeroMQError) -> Bool {
        let prefixes = access.topicPrefixes(of: namespace)
        for prefix in prefixes {
            _ = try events.send(multipart: [prefix + topic, body], flags: .dontWait)
        }
        return !prefixes.isEmpty
    }

    /// Every namespace of the allow-list as it stands now, admins' included: where an event that
    /// concerns every client goes (a cluster broker's `route` event after its live workers changed), one
    /// `publish(namespace:…)` each.
    public var namespaces: [String] {
        access.namespaces()
    }

    // MARK: A cluster's workers

    /// Whether a message on a broker's back or events-in socket (`socket`: "back" or "eventsIn") comes
    /// from a key listed as admin now, as a worker's must be: a key taken off the list (or no longer
    /// admin) on SIGHUP is refused on its connections already open too. A message without a User-Id
    /// comes from inside the broker (inproc has no handshake) and is admitted.
    public func admitsWorker(_ frame: borrowing Message, eventsIn: Bool) -> Bool {
        guard let userID = frame.userID else { return true }
        if access.isAdmin(userID: userID) { return true }
        refuse("not an admin key (a worker's key must be)", socket: eventsIn ? ZAPDomain.eventsIn : ZAPDomain.back, frame: frame, userID: userID)
        return false
    }

    private func refuse(_ reason: String, socket: String, frame: borrowing Message, userID: String?) {
        access.recordRefusal(reason, socket: socket, peerAddress: frame.peerAddress, key: userID)
    }
}
