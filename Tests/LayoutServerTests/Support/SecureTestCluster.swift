import Foundation
import LayoutClient
import Logging
import ZeroMQ
@testable import LayoutCluster
@testable import LayoutServer

/// A broker with CURVE on free loopback ports and workers that join with admin keys of its allow-list,
/// with clients that hold keys.
final class SecureTestCluster: SecureTestServer {
    let keys: KeyDirectory
    let cluster: TestCluster
    let context: Context
    /// The workers' keys, listed as admins named `worker-N`: those started, then the spare ones.
    let workerKeys: [CurveKeyPair]
    private let brokerPublicKeyFile: String
    private let directReads: Bool

    var frontEndpoint: String { cluster.broker.frontEndpoint }
    var eventsEndpoint: String { cluster.broker.eventsEndpoint }
    var statsEndpoint: String { cluster.broker.statsEndpoint }

    /// Starts a broker admitting `clients` and `workers` workers; returns once they have joined. `admin`
    /// (one of `clients`) reads the broker's stats.
    /// With `directReads`, each worker also binds a direct endpoint (`cluster.direct`), secured with the
    /// broker's key and allow-list, which its configuration carries as the broker's does.
    /// `spareWorkers` more keys are listed from the start, for workers a test starts later
    /// (`startWorker`), so that a join needs no change of the list.
    init(
        workers: Int, spareWorkers: Int = 0, clients: [(keys: CurveKeyPair, name: String?, admin: Bool)], admin: CurveKeyPair,
        heartbeatMilliseconds: Int = 1000, liveness: Int = 3, directReads: Bool = false
    ) throws {
        keys = try KeyDirectory()
        workerKeys = try (0..<(workers + spareWorkers)).map { _ in try CurveKeyPair.generate() }
        self.directReads = directReads
        try keys.allow(clients + Self.workerEntries(workerKeys))
        brokerPublicKeyFile = try keys.writePublicKey(keys.serverKeys.publicKey, named: "broker.pub")
        var configuration = ServerConfiguration()
        configuration.useFreeLoopbackPorts()
        configuration.workers = 2
        configuration.serverSecretKeyFile = keys.serverSecretKeyFile
        configuration.clientKeysFile = keys.clientKeysFile
        cluster = try TestCluster(
            workers: 0, configuration: configuration, heartbeatMilliseconds: heartbeatMilliseconds, liveness: liveness, statsKeys: admin,
            logger: SecureTestDaemon.logger
        )
        context = try Context()
        for index in 0..<workers { try startWorker(index) }
    }

    /// Starts worker `index` (`worker-N`, with its listed key); returns once the broker counts it among
    /// the workers started so far.
    @discardableResult
    func startWorker(_ index: Int) throws -> RunningNode {
        let secret = try keys.writeSecretKey(workerKeys[index], named: "worker-\(index).key")
        let brokerPublicKeyFile = self.brokerPublicKeyFile
        let directReads = self.directReads
        return try cluster.addWorker(named: "worker-\(index)") {
            $0.workerSecretKeyFile = secret
            $0.brokerPublicKeyFile = brokerPublicKeyFile
            if directReads { $0.directEndpoint = "tcp://127.0.0.1:*" }
        }
    }

    deinit {
        cluster.stop()
        context.terminate()
    }

    /// Rewrites the allow-list: `clients`, and the workers whose indexes are in `workers` (all by default).
    func allow(_ clients: [(keys: CurveKeyPair, name: String?, admin: Bool)], workers: [Int]? = nil) throws {
        let kept = workers.map { indexes in indexes.map { workerKeys[$0] } } ?? workerKeys
        try keys.allow(clients + Self.workerEntries(kept, numbered: workers))
    }

    private static func workerEntries(_ pairs: [CurveKeyPair], numbered: [Int]? = nil) -> [(keys: CurveKeyPair, name: String?, admin: Bool)] {
        pairs.enumerated().map { index, pair in (pair, "worker-\(numbered?[index] ?? index)", true) }
    }

    /// The broker's `cluster` stats member, read with `admin`.
    func clusterStats(admin: CurveKeyPair) throws -> AnyJSONObject {
        guard let cluster = try stats(admin: admin).object("cluster") else { throw TestFailure("no cluster member in the broker's stats") }
        return cluster
    }
}
