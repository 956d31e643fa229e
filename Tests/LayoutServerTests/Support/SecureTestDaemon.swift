import Foundation
import LayoutClient
import Logging
import ZeroMQ
@testable import LayoutServer

/// Key files in a temporary directory: the server's secret key and an allow-list of clients.
final class KeyDirectory {
    let path: String
    let serverKeys: CurveKeyPair

    init() throws {
        path = NSTemporaryDirectory() + "layoutd-keys-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        serverKeys = try CurveKeyPair.generate()
        try "# test server\n\(serverKeys.secretKey.z85)\n".write(toFile: serverSecretKeyFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: serverSecretKeyFile)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    var serverSecretKeyFile: String { path + "/server.key" }
    var clientKeysFile: String { path + "/clients.keys" }

    /// Writes the allow-list: one line per client, as `key [name [admin]]`.
    func allow(_ clients: [(keys: CurveKeyPair, name: String?, admin: Bool)]) throws {
        let lines = clients.map { client in
            [client.keys.publicKey.z85, client.name, client.admin ? "admin" : nil].compactMap { $0 }.joined(separator: " ")
        }
        try ("# written by the test\n" + lines.joined(separator: "\n") + "\n").write(toFile: clientKeysFile, atomically: true, encoding: .utf8)
    }

    /// Writes a secret key file, as `layoutctl keygen` writes `PREFIX.key`.
    func writeSecretKey(_ keys: CurveKeyPair, named name: String) throws -> String {
        let file = path + "/" + name
        try "\(keys.secretKey.z85)\n".write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Writes a public key file, as `layoutctl keygen` writes `PREFIX.pub`.
    func writePublicKey(_ key: CurveKey, named name: String) throws -> String {
        let file = path + "/" + name
        try (key.z85 + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }
}

/// A server with CURVE (a single daemon, or a cluster's broker) and clients of it that hold keys.
protocol SecureTestServer {
    var keys: KeyDirectory { get }
    var context: Context { get }
    var frontEndpoint: String { get }
    var eventsEndpoint: String { get }
    var statsEndpoint: String { get }
}

extension SecureTestServer {
    func credentials(_ clientKeys: CurveKeyPair) -> CurveCredentials {
        CurveCredentials(clientKeys: clientKeys, serverKey: keys.serverKeys.publicKey)
    }

    /// A client of the front with `clientKeys` (nil: plain ZeroMQ), giving up after `timeout`.
    func client(_ clientKeys: CurveKeyPair?, timeout: Duration = .seconds(10)) throws -> LayoutClient {
        try LayoutClient(endpoint: frontEndpoint, context: context, timeout: timeout, curve: clientKeys.map(credentials))
    }

    func statsClient(_ clientKeys: CurveKeyPair, timeout: Duration = .seconds(10)) throws -> StatsClient {
        try StatsClient(endpoint: statsEndpoint, context: context, timeout: timeout, curve: credentials(clientKeys))
    }

    func subscriber(_ clientKeys: CurveKeyPair, prefixes: [String]) throws -> EventSubscriber {
        try EventSubscriber(endpoint: eventsEndpoint, context: context, prefixes: prefixes, curve: credentials(clientKeys))
    }

    /// The counters, read with an admin key.
    func stats(admin: CurveKeyPair) throws -> AnyJSONObject {
        try statsClient(admin).stats()
    }

    /// Waits until `authFailures` reaches `count` (refusals are counted on the server's threads, a moment
    /// after the client gave up); the last value read.
    func authFailures(atLeast count: Int, admin: CurveKeyPair) throws -> Int {
        var seen = 0
        for _ in 0..<200 {
            seen = try stats(admin: admin).int("authFailures") ?? 0
            if seen >= count { return seen }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return seen
    }

    /// Waits until the server counts `count` subscriptions, so that no event is lost to the slow joiner.
    func waitForSubscriptions(_ count: Int, admin: CurveKeyPair) throws {
        for _ in 0..<200 {
            if try stats(admin: admin).int("subscribers") ?? 0 >= count { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw TestFailure("the subscriptions never reached the server")
    }
}

/// A daemon with CURVE on free loopback ports, its key files, and clients that hold keys.
final class SecureTestDaemon: SecureTestServer {
    let keys: KeyDirectory
    let running: RunningDaemon
    let context: Context

    var frontEndpoint: String { running.frontEndpoint }
    var eventsEndpoint: String { running.eventsEndpoint }
    var statsEndpoint: String { running.statsEndpoint }

    /// Starts a daemon admitting `clients` (written to the allow-list first).
    init(clients: [(keys: CurveKeyPair, name: String?, admin: Bool)]) throws {
        keys = try KeyDirectory()
        try keys.allow(clients)
        var configuration = ServerConfiguration()
        configuration.useFreeLoopbackPorts()
        configuration.workers = 2
        configuration.serverSecretKeyFile = keys.serverSecretKeyFile
        configuration.clientKeysFile = keys.clientKeysFile
        running = try LayoutDaemon(configuration: configuration, logger: Self.logger).start()
        context = try Context()
    }

    deinit {
        running.stop()
        context.terminate()
    }

    static var logger: Logger {
        var logger = Logger(label: "layoutd-security-test")
        logger.logLevel = .critical
        return logger
    }
}

/// A client's key pair with its allow-list entry.
func listed(_ keys: CurveKeyPair, _ name: String? = nil, admin: Bool = false) -> (keys: CurveKeyPair, name: String?, admin: Bool) {
    (keys, name, admin)
}
