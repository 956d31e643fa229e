import Logging
import Synchronization
import ZeroMQ

/// The daemon's CURVE identity and the clients it admits, shared by the threads that need them.
///
/// The ZAP thread asks it about every handshake, the I/O thread about every request and subscription,
/// and a reload (SIGHUP) replaces the allow-list. The list is one value behind a `Mutex`: a reload reads
/// and checks the whole file first, then swaps the value in one step, so every reader sees either the old
/// list or the new one, never half of each, and no socket ever leaves its thread.
public final class AccessControl: Sendable {
    /// The server's key pair; clients need its public key.
    public let serverKeys: CurveKeyPair
    /// `security.clientKeysFile`, read again by `reload()`.
    public let clientKeysPath: String
    private let clients: Mutex<ClientKeyList>
    private let stats: ServerStats
    private let logger: Logger
    /// When each kind of refusal (socket, reason, peer or key) was last logged as a warning.
    private let lastWarnings = Mutex<[String: ContinuousClock.Instant]>([:])

    /// Reads the server's secret key and the allow-list.
    package init(serverSecretKeyPath: String, clientKeysPath: String, stats: ServerStats, logger: Logger) throws(KeyFileError) {
        serverKeys = try KeyFiles.serverKeys(at: serverSecretKeyPath)
        self.clientKeysPath = clientKeysPath
        clients = Mutex(try KeyFiles.clientKeys(at: clientKeysPath))
        self.stats = stats
        self.logger = logger
        if KeyFiles.isReadableByOthers(serverSecretKeyPath) {
            logger.warning("the server's secret key file can be read by other users; chmod 600 it", metadata: ["file": "\(serverSecretKeyPath)"])
        }
    }

    /// What the allow-list holds, for logs.
    public struct Summary: Sendable, Hashable {
        public var keys: Int
        public var admins: Int
        public var namespaces: Int
    }

    public var summary: Summary {
        clients.withLock { Summary(keys: $0.count, admins: $0.adminCount, namespaces: $0.namespaceCount) }
    }

    /// Reads `clientKeysPath` again and, if the whole file is valid, admits exactly its keys from now on:
    /// new handshakes, and every later request and subscription of connections already open (a key
    /// taken off the list is refused on its next request). A file that is not valid changes nothing.
    @discardableResult
    public func reload() throws(KeyFileError) -> Summary {
        let list = try KeyFiles.clientKeys(at: clientKeysPath)
        clients.withLock { $0 = list }
        return summary
    }

    // MARK: Questions of the ZAP thread

    /// The answer to a ZAP request (RFC 27) from a socket of `domain`.
    func decide(domain: String, mechanism: String, credentials: [UInt8]) -> ZAPDecision {
        guard mechanism == "CURVE", let key = CurveKey(bytes: credentials) else {
            return .refuse("not a CURVE handshake")
        }
        guard let entry = clients.withLock({ $0.entry(for: key) }) else {
            return .refuse("key not listed")
        }
        if domain == ZAPDomain.stats, !entry.isAdmin {
            return .refuse("not an admin key")
        }
        // A worker receives every request: only a key trusted as much as an admin may be one.
        if domain == ZAPDomain.back || domain == ZAPDomain.eventsIn, !entry.isAdmin {
            return .refuse("not an admin key (a worker's key must be)")
        }
        return .admit(userID: entry.userID)
    }

    // MARK: Questions of the I/O thread

    /// The caller behind the User-Id a connection was admitted with, as the list stands now; nil when
    /// the key is no longer listed.
    func caller(userID: String) -> Caller? {
        clients.withLock { $0.entry(userID: userID)?.caller }
    }

    /// Whether the key behind `userID` is listed as admin now.
    func isAdmin(userID: String) -> Bool {
        clients.withLock { $0.entry(userID: userID)?.isAdmin ?? false }
    }

    /// Every namespace of the list (admins' too), for an event every client must hear.
    func namespaces() -> [String] {
        clients.withLock { Array($0.topicPrefixes.keys) }
    }

    /// The topic prefixes `namespace`'s events go out under: each of its keys in Z85.
    func topicPrefixes(of namespace: String) -> [[UInt8]] {
        clients.withLock { $0.topicPrefixes[namespace] ?? [] }
    }

    // MARK: Refusals

    /// Counts a refused handshake, request or subscription (`authFailures`) and logs it: as a warning
    /// the first time in a minute for its socket, reason, peer and key, else as a debug line, since a
    /// refused client typically retries every 100 ms.
    func recordRefusal(_ reason: String, socket: String, peerAddress: String?, key: String?) {
        stats.recordAuthFailure()
        let kind = "\(socket) \(reason) \(peerAddress ?? "") \(key ?? "")"
        let now = ContinuousClock.now
        let warn = lastWarnings.withLock { last in
            if let previous = last[kind], now - previous < .seconds(60) { return false }
            if last.count >= 10_000 { last.removeAll() }
            last[kind] = now
            return true
        }
        logger.log(level: warn ? .warning : .debug, "refused a client", metadata: [
            "reason": "\(reason)", "socket": "\(socket)", "peer": "\(peerAddress ?? "unknown")", "key": "\(key ?? "none")",
        ])
    }
}

/// What the ZAP handler answers.
enum ZAPDecision: Sendable, Hashable {
    /// Status 200, with the User-Id every message of the connection will carry.
    case admit(userID: String)
    /// Status 400: the handshake fails and the client gets nothing.
    case refuse(String)
}

/// The ZAP domains of the daemon's sockets, so that one handler can tell them apart.
package enum ZAPDomain {
    package static let front = "front"
    static let events = "events"
    static let stats = "stats"
    /// A cluster broker's back ROUTER and events-in XSUB: workers only (admin keys).
    package static let back = "back"
    package static let eventsIn = "eventsIn"
}
