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
struct AccessGate {
    let access: AccessControl

    init(access: AccessControl) {
        self.access = access
    }

    /// Makes the daemon's sockets CURVE servers with the server's key and ZAP domains, monitored for
    /// failed handshakes; the events socket also takes subscriptions manually. Call before binding them.
    static func secure(front: Socket, events: Socket, stats: Socket, with access: AccessControl) throws(ZeroMQError) {
        for (socket, domain) in [(front, ZAPDomain.front), (events, ZAPDomain.events), (stats, ZAPDomain.stats)] {
            try socket.makeCurveServer(secretKey: access.serverKeys.secretKey)
            try socket.set(.zapDomain, domain)
            // Handshakes that fail before reaching the ZAP handler, which reads this monitor.
            try socket.monitor(ZAPHandler.monitorEndpoint(domain), events: [.handshakeFailedProtocol, .handshakeFailedNoDetail])
        }
        try events.set(.xpubManual, true)
    }

    // MARK: Requests and stats

    /// The caller of a front request whose body is `frame`; nil when its key is no longer listed
    /// (the request is dropped, unanswered, and counted).
    func caller(of frame: borrowing Message) -> Caller? {
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
    func admitsStats(_ frame: borrowing Message) -> Bool {
        let userID = frame.userID
        if let userID, access.isAdmin(userID: userID) { return true }
        refuse("not an admin key", socket: ZAPDomain.stats, frame: frame, userID: userID)
        return false
    }

    // MARK: Events

    /// Files a subscription message (`0x01 prefix` or `0x00 prefix`) received on the manual XPUB
    /// `events`: the subscriber's key, then `prefix` unless it starts with that key already. Returns
    /// the prefix as received, for the subscription count.
    func file(subscription message: borrowing Message, on events: Socket) -> (subscribe: Bool, prefix: [UInt8])? {
        let frame = message.bytes
        guard let kind = frame.first, kind <= 1 else { return nil }
        let prefix = Array(frame.dropFirst())
        // Unsubscriptions libzmq makes for a departed subscriber carry no metadata, and libzmq has
        // already removed what was filed for it: nothing to do.
        guard let userID = message.userID else { return (kind == 1, prefix) }
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
        return (kind == 1, prefix)
    }

    /// Publishes an event of `namespace` once under each of its keys; returns whether any key has it.
    func publish(namespace: String, topic: [UInt8], body: [UInt8], on events: Socket) throws(ZeroMQError) -> Bool {
        let prefixes = access.topicPrefixes(of: namespace)
        for prefix in prefixes {
            _ = try events.send(multipart: [prefix + topic, body], flags: .dontWait)
        }
        return !prefixes.isEmpty
    }

    private func refuse(_ reason: String, socket: String, frame: borrowing Message, userID: String?) {
        access.recordRefusal(reason, socket: socket, peerAddress: frame.peerAddress, key: userID)
    }
}
