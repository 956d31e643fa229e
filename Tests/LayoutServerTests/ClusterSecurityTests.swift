import Foundation
import Logging
import Testing
import ZeroMQ
@testable import LayoutCluster
@testable import LayoutServer

/// CURVE on a broker's back and events-in sockets: a worker joins only with a key the broker's
/// allow-list admits (as admin).
@Suite(.serialized) struct ClusterSecurityTests {
    private var logger: Logger {
        var logger = Logger(label: "cluster-security-test")
        logger.logLevel = .critical
        return logger
    }

    /// The broker's stats object, asked with the admin key `admin`.
    private func brokerStats(_ cluster: TestCluster, context: Context, admin: CurveKeyPair, serverKey: CurveKey) throws -> [String: Any] {
        let socket = try Socket(.req, in: context)
        defer { socket.close() }
        try socket.set(.receiveTimeout, 5_000)
        try socket.makeCurveClient(keys: admin, serverKey: serverKey)
        try socket.connect(cluster.broker.statsEndpoint)
        _ = try socket.send("stats")
        guard let reply = try socket.receiveBytes() else { throw TestFailure("no stats reply from the broker") }
        return try TestDaemon.object(reply)
    }

    private func workerIDs(_ stats: [String: Any]) -> [String] {
        let workers = (stats["cluster"] as? [String: Any])?["workers"] as? [[String: Any]] ?? []
        return workers.compactMap { $0["id"] as? String }
    }

    @Test func aListedWorkerJoinsAndServesAndAnUnlistedOneNeverJoins() throws {
        let keys = try KeyDirectory()
        let listed = try CurveKeyPair.generate()
        let notAdmin = try CurveKeyPair.generate()
        let unlisted = try CurveKeyPair.generate()
        try keys.allow([(listed, "worker-listed", true), (notAdmin, "client", false)])
        let brokerPublicKeyFile = try keys.writePublicKey(keys.serverKeys.publicKey, named: "broker.pub")

        var configuration = ServerConfiguration()
        configuration.useFreeLoopbackPorts()
        configuration.workers = 2
        configuration.serverSecretKeyFile = keys.serverSecretKeyFile
        configuration.clientKeysFile = keys.clientKeysFile
        let cluster = try TestCluster(workers: 0, configuration: configuration, statsKeys: listed, logger: logger)
        defer { cluster.stop() }

        // Joins (addWorker waits until the broker counts it) and serves.
        let listedSecret = try keys.writeSecretKey(listed, named: "listed.key")
        try cluster.addWorker(named: "listed") {
            $0.workerSecretKeyFile = listedSecret
            $0.brokerPublicKeyFile = brokerPublicKeyFile
        }
        let context = try Context()
        defer { context.terminate() }
        let dealer = try Socket(.dealer, in: context)
        defer { dealer.close() }
        try dealer.set(.receiveTimeout, 5_000)
        // A client's key (not admin) is served on the front, which is a CURVE server too.
        try dealer.makeCurveClient(keys: notAdmin, serverKey: keys.serverKeys.publicKey)
        try dealer.connect(cluster.broker.frontEndpoint)
        try dealer.send(multipart: [[], Array(#"{"v":1,"id":7,"op":"ping"}"#.utf8)])
        let reply = try dealer.receiveMultipart()
        let body = try TestDaemon.object(try #require(reply?.last))
        #expect(body["ok"] as? Bool == true)
        #expect(body["id"] as? Int == 7)

        // A key not on the list, and a listed key that is not admin: refused at the handshake.
        var strangers: [RunningNode] = []
        defer { for worker in strangers { worker.stop() } }
        for (name, pair) in [("unlisted", unlisted), ("not-admin", notAdmin)] {
            let secret = try keys.writeSecretKey(pair, named: "\(name).key")
            var settings = cluster.cluster
            settings.workerID = name
            settings.workerSecretKeyFile = secret
            settings.brokerPublicKeyFile = brokerPublicKeyFile
            strangers.append(try ClusterWorker(configuration: configuration, cluster: settings, logger: logger).start())
        }
        // Both try (and are counted as refused) within a few heartbeats; neither ever joins.
        let deadline = Date().addingTimeInterval(10)
        let stats = { () throws -> [String: Any] in try self.brokerStats(cluster, context: context, admin: listed, serverKey: keys.serverKeys.publicKey) }
        var seen = try stats()
        while (seen["authFailures"] as? Int ?? 0) < 2, Date() < deadline {
            #expect(workerIDs(seen) == ["listed"])
            Thread.sleep(forTimeInterval: 0.1)
            seen = try stats()
        }
        #expect((seen["authFailures"] as? Int ?? 0) >= 2)
        // Two more heartbeat intervals: a late join would show now.
        Thread.sleep(forTimeInterval: 2)
        #expect(workerIDs(try stats()) == ["listed"])
    }

}
