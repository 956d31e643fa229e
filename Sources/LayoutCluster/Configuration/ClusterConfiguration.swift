import Foundation
import Configuration
import LayoutServer
#if canImport(Glibc)
import Glibc
#endif

/// Which part a `layoutd` process plays.
public enum ClusterRole: String, Sendable, Hashable, CaseIterable {
    /// One process serving everything (the default).
    case single
    /// The cluster's front: binds the client sockets and routes requests to workers.
    case broker
    /// Runs layouts for a broker it joins.
    case worker
}

/// The settings of a cluster role (`role`, `cluster.*`), with the defaults of `config/layoutd.yaml`.
///
/// Read from the same flags, `LAYOUTD_*` environment variables and file as `ServerConfiguration`.
public struct ClusterConfiguration: Sendable, Hashable {
    /// `role`: `single`, `broker` or `worker`.
    public var role = ClusterRole.single
    /// `cluster.back`: the broker's ROUTER for workers (bound by the broker).
    public var backEndpoint = "tcp://127.0.0.1:5560"
    /// `cluster.eventsIn`: the broker's XSUB that workers publish their events to (bound by the broker);
    /// when not given, the back endpoint with its port plus one, as a worker assumes.
    public var eventsInEndpoint = "tcp://127.0.0.1:5561"
    /// `cluster.join`: the broker's back endpoint a worker connects to.
    public var joinEndpoint: String?
    /// `cluster.joinEvents`: the broker's events-in endpoint a worker publishes to; by default the join
    /// endpoint with its port plus one.
    public var joinEventsEndpoint: String?
    /// `cluster.workerId`: the worker's name in the broker's stats and in rendezvous hashing; by default
    /// `<hostname>-<pid>`. Give a stable one (a StatefulSet pod name) so a restarted worker takes back
    /// the same keys.
    public var workerID: String?
    /// `cluster.workerStats`: a stats ROUTER the worker binds for its own `stats` / `metrics` (none by default).
    public var workerStatsEndpoint: String?
    /// `cluster.workerHttp`: the worker's operations HTTP listener, `host:port` (`/metrics`, `/healthz`,
    /// and `/readyz`, which is 200 only while joined to a broker); none by default, so that workers on
    /// one machine do not collide with each other or with the broker's `http`.
    public var workerHTTPAddress: String?
    /// `cluster.direct`: a ROUTER the worker binds for clients' reads of the keys it owns (`query` and a
    /// key's `list` entry; docs/PROTOCOL.md, Direct reads), so that reads need not cross the broker.
    /// None by default: a worker without one is reached through its broker only, as before.
    public var directEndpoint: String?
    /// `cluster.directAdvertise`: the direct endpoint as clients reach it (a pod's address when the
    /// worker binds `tcp://0.0.0.0:…`), given to them in the broker's route table; by default the
    /// endpoint bound.
    public var directAdvertiseEndpoint: String?
    /// `security.workerSecretKeyFile`: with CURVE on the broker's back socket, the worker's own secret
    /// key (Z85, from `layoutctl keygen`); its public key must be on the broker's allow-list as admin.
    public var workerSecretKeyFile: String?
    /// `security.serverPublicKeyFile`: with CURVE, the broker's public key (the `.pub` file of its
    /// `security.serverSecretKeyFile`).
    public var brokerPublicKeyFile: String?
    /// `cluster.heartbeatMillis`: how often broker and worker send each other HEARTBEAT.
    public var heartbeatMilliseconds = 1000
    /// `cluster.liveness`: heartbeats missed before the peer is declared dead.
    public var liveness = 3
    /// `cluster.reconnectMillis`: a worker's first wait before reconnecting to a broker it lost.
    public var reconnectMilliseconds = 1000
    /// `cluster.reconnectMaxMillis`: the longest wait between reconnects (the wait doubles up to it).
    public var reconnectMaxMilliseconds = 32_000
    /// `cluster.rejoinMillis`: after it starts, how long the broker waits for workers that may still hold
    /// layouts to register again before it serves requests on keys (held meanwhile, and `/readyz` 503).
    /// nil: heartbeat × liveness + reconnectMillis, the time a worker of the previous broker takes to
    /// notice it is gone and to join again. Never below the read lease (`readLeaseMilliseconds`): a
    /// worker of the previous broker may answer direct reads that long, so no key may change before.
    /// 0: no wait at all, for a cluster started fresh (tests), whose workers never served another broker;
    /// a broker that takes a PostgreSQL lease waits out the read lease all the same.
    public var rejoinMilliseconds: Int?
    /// `cluster.dropGraceMillis`: how long the broker keeps the keys of a worker whose connection dropped
    /// for that worker to register again with them (a TCP reset healed: it reconnects at once) before it
    /// hands them to the copies rebuilt elsewhere meanwhile, as after a death. What it costs: a worker
    /// killed outright is failed over after the longer of this and the rebuild, so it is kept about as
    /// long as a large layout's rebuild (50 ms for 10^6 items); a worker reconnects within a few ms on a
    /// LAN. 0: rebuilt at once, with no wait.
    public var dropGraceMilliseconds = 50
    /// The longest read lease a broker grants a worker with a direct endpoint: heartbeat × (liveness − 1),
    /// a heartbeat shorter than the broker's wait before it judges a silent worker dead (none with a
    /// liveness of 1).
    public var readLeaseMilliseconds: Int {
        liveness > 1 ? heartbeatMilliseconds * (liveness - 1) : 0
    }
    /// The wait in effect: `rejoinMilliseconds`, or its default.
    public var resolvedRejoinMilliseconds: Int {
        rejoinMilliseconds ?? heartbeatMilliseconds * liveness + reconnectMilliseconds
    }
    /// `cluster.recipeBytes`: memory the broker spends on recipes (the request bodies that rebuild a
    /// layout on another worker), least recently used dropped first.
    public var recipeBytes = 1 << 30
    /// `cluster.restoresPerWorker`: rebuilds a worker runs at once while keys move to it.
    public var restoresPerWorker = 2
    /// `cluster.compactAfterBytes`: a recipe whose changes add up to more than this, or than its
    /// `prepare`'s own bytes when that is more, is compacted: the key's worker is asked for a snapshot
    /// of the layout, which replaces the `prepare` and the changes it covers. 0: not by bytes.
    public var compactAfterBytes = 64 * 1024
    /// `cluster.compactAfterChanges`: a recipe with more changes than this is compacted too (each change
    /// is a step of a rebuild). 0: not by count.
    public var compactAfterChanges = 1024
    /// `cluster.leaseMillis`: with a PostgreSQL journal, how long the active broker's lease lasts unless
    /// renewed (every third of it); a standby takes over within about this long after the active one dies.
    public var leaseMilliseconds = 5000

    public init() {}

    /// `joinEventsEndpoint`, or the join endpoint with its port plus one (one broker).
    public var resolvedJoinEventsEndpoint: String? {
        joinEventsEndpoints.first
    }

    /// The brokers a worker may join, in order (`cluster.join` may list several, comma-separated: an
    /// active broker and its standbys). The worker joins the first, and moves to the next whenever the
    /// one it joined falls silent or lets it go: a standby does not take workers until it is active.
    public var joinEndpoints: [String] {
        Self.list(joinEndpoint)
    }

    /// Every broker's events intake a worker publishes to: `cluster.joinEvents` (comma-separated, one
    /// per broker), or each join endpoint's port plus one. Events go to every broker listed, so the one
    /// that becomes active already has this worker's stream.
    public var joinEventsEndpoints: [String] {
        joinEventsEndpoint != nil ? Self.list(joinEventsEndpoint) : joinEndpoints.compactMap(Self.endpointAfter)
    }

    private static func list(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `endpoint` with its port plus one (nil without a numeric port): where the events intake is
    /// when only the back endpoint is given. The broker and the worker derive it by the same rule, so
    /// `--back tcp://H:P` and `--join tcp://H:P` meet at P + 1 with nothing else said.
    static func endpointAfter(_ endpoint: String) -> String? {
        guard let colon = endpoint.lastIndex(of: ":"), let port = Int(endpoint[endpoint.index(after: colon)...]), port < 65535 else { return nil }
        return "\(endpoint[..<colon]):\(port + 1)"
    }

    /// `workerID`, or `<hostname>-<pid>`.
    public var resolvedWorkerID: String {
        if let workerID, !workerID.isEmpty { return workerID }
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count) == 0 ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "worker"
        return "\(host)-\(getpid())"
    }

    /// Reads `role` and `cluster.*` from `config`, checked.
    public static func read(_ config: ConfigReader) throws -> ClusterConfiguration {
        var c = ClusterConfiguration()
        let roleText = config.string(forKey: "role", default: c.role.rawValue)
        guard let role = ClusterRole(rawValue: roleText) else {
            throw ConfigurationError(key: "role", message: "must be single, broker or worker, not \(roleText)")
        }
        c.role = role
        c.backEndpoint = config.string(forKey: "cluster.back", default: c.backEndpoint)
        c.eventsInEndpoint = config.string(forKey: "cluster.eventsIn") ?? Self.endpointAfter(c.backEndpoint) ?? c.eventsInEndpoint
        c.joinEndpoint = config.string(forKey: "cluster.join")
        c.joinEventsEndpoint = config.string(forKey: "cluster.joinEvents")
        c.workerID = config.string(forKey: "cluster.workerId")
        c.workerStatsEndpoint = config.string(forKey: "cluster.workerStats")
        let workerHTTP = config.string(forKey: "cluster.workerHttp") ?? ""
        guard workerHTTP.isEmpty || OperationsAddress(parsing: workerHTTP) != nil else {
            throw ConfigurationError(key: "cluster.workerHttp", message: "must be host:port (an IPv6 host in brackets) or empty, not \"\(workerHTTP)\"")
        }
        c.workerHTTPAddress = workerHTTP.isEmpty ? nil : workerHTTP
        let direct = config.string(forKey: "cluster.direct") ?? ""
        c.directEndpoint = direct.isEmpty ? nil : direct
        let advertised = config.string(forKey: "cluster.directAdvertise") ?? ""
        c.directAdvertiseEndpoint = advertised.isEmpty ? nil : advertised
        let workerSecret = config.string(forKey: "security.workerSecretKeyFile", default: "")
        let brokerPublic = config.string(forKey: "security.serverPublicKeyFile", default: "")
        switch (workerSecret.isEmpty, brokerPublic.isEmpty) {
        case (true, true):
            break
        case (false, true):
            throw ConfigurationError(key: "security.serverPublicKeyFile", message: "must be given with security.workerSecretKeyFile: CURVE needs the broker's public key")
        case (true, false):
            throw ConfigurationError(key: "security.workerSecretKeyFile", message: "must be given with security.serverPublicKeyFile: CURVE needs the worker's own key")
        case (false, false):
            c.workerSecretKeyFile = workerSecret
            c.brokerPublicKeyFile = brokerPublic
        }
        c.heartbeatMilliseconds = try positive(config.int(forKey: "cluster.heartbeatMillis", default: c.heartbeatMilliseconds), "cluster.heartbeatMillis")
        c.liveness = try positive(config.int(forKey: "cluster.liveness", default: c.liveness), "cluster.liveness")
        c.reconnectMilliseconds = try positive(config.int(forKey: "cluster.reconnectMillis", default: c.reconnectMilliseconds), "cluster.reconnectMillis")
        c.reconnectMaxMilliseconds = try positive(config.int(forKey: "cluster.reconnectMaxMillis", default: c.reconnectMaxMilliseconds), "cluster.reconnectMaxMillis")
        guard c.reconnectMaxMilliseconds >= c.reconnectMilliseconds else {
            throw ConfigurationError(key: "cluster.reconnectMaxMillis", message: "must be >= cluster.reconnectMillis (\(c.reconnectMilliseconds))")
        }
        if let rejoin = config.int(forKey: "cluster.rejoinMillis") {
            c.rejoinMilliseconds = try nonNegative(rejoin, "cluster.rejoinMillis")
        }
        if role == .broker, let rejoin = c.rejoinMilliseconds, rejoin > 0, rejoin < c.readLeaseMilliseconds {
            throw ConfigurationError(key: "cluster.rejoinMillis", message: "must be >= the workers' read lease, cluster.heartbeatMillis × (cluster.liveness − 1) = \(c.readLeaseMilliseconds), not \(rejoin) (or 0 for a cluster started fresh): a worker of the previous broker may answer direct reads that long after it")
        }
        c.dropGraceMilliseconds = try nonNegative(config.int(forKey: "cluster.dropGraceMillis", default: c.dropGraceMilliseconds), "cluster.dropGraceMillis")
        let recipeBytes = config.int(forKey: "cluster.recipeBytes", default: c.recipeBytes)
        guard recipeBytes >= 0 else { throw ConfigurationError(key: "cluster.recipeBytes", message: "must be >= 0, not \(recipeBytes)") }
        c.recipeBytes = recipeBytes
        c.restoresPerWorker = try positive(config.int(forKey: "cluster.restoresPerWorker", default: c.restoresPerWorker), "cluster.restoresPerWorker")
        c.leaseMilliseconds = try positive(config.int(forKey: "cluster.leaseMillis", default: c.leaseMilliseconds), "cluster.leaseMillis")
        c.compactAfterBytes = try nonNegative(config.int(forKey: "cluster.compactAfterBytes", default: c.compactAfterBytes), "cluster.compactAfterBytes")
        c.compactAfterChanges = try nonNegative(config.int(forKey: "cluster.compactAfterChanges", default: c.compactAfterChanges), "cluster.compactAfterChanges")
        let serverSecret = config.string(forKey: "security.serverSecretKeyFile", default: "")
        let clientKeys = config.string(forKey: "security.clientKeysFile", default: "")
        if c.directEndpoint != nil, c.workerSecretKeyFile != nil, serverSecret.isEmpty || clientKeys.isEmpty {
            // Its clients are the broker's: without the broker's key and allow-list, the direct endpoint
            // would admit anyone, in no client's namespace.
            throw ConfigurationError(key: "cluster.direct", message: "a worker with CURVE needs the broker's security.serverSecretKeyFile and security.clientKeysFile for its direct endpoint")
        }
        if role == .worker, c.joinEndpoint == nil {
            throw ConfigurationError(key: "cluster.join", message: "a worker needs the broker's back endpoint (--join tcp://HOST:5560)")
        }
        if role == .worker, c.joinEventsEndpoints.count != c.joinEndpoints.count {
            throw ConfigurationError(key: "cluster.joinEvents", message: "cannot derive each broker's events-in endpoint from \(c.joinEndpoint ?? ""); give one per broker, comma-separated")
        }
        return c
    }

    private static func positive(_ value: Int, _ key: String) throws -> Int {
        guard value > 0 else { throw ConfigurationError(key: key, message: "must be > 0, not \(value)") }
        return value
    }

    private static func nonNegative(_ value: Int, _ key: String) throws -> Int {
        guard value >= 0 else { throw ConfigurationError(key: key, message: "must be >= 0, not \(value)") }
        return value
    }
}
