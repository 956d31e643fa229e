import Foundation
import LayoutClient
import Testing
import ZeroMQ

/// The real `layoutd` executable with CURVE: SIGHUP rereads the client keys, and the daemon (or broker)
/// goes on.
@Suite struct HangUpTests {
    /// Pings with `keys` until an answer comes or `attempts` pings of `timeout` each went unanswered.
    /// With `anyReply`, an error reply counts (a broker without workers answers `unavailable`).
    private func answers(
        _ daemon: LayoutdProcess, keys: KeyDirectory, client: CurveKeyPair, attempts: Int, timeout: Duration, anyReply: Bool = false
    ) throws -> Bool {
        let credentials = CurveCredentials(clientKeys: client, serverKey: keys.serverKeys.publicKey)
        let connection = try LayoutClient(endpoint: daemon.frontEndpoint, timeout: timeout, curve: credentials)
        defer { connection.close() }
        for _ in 0..<attempts {
            guard let reply = try? connection.ping() else { continue }
            if reply.ok || anyReply { return true }
        }
        return false
    }

    @Test func sighupAdmitsTheKeysNowListed() throws {
        let alice = try CurveKeyPair.generate()
        let carol = try CurveKeyPair.generate()
        let keys = try KeyDirectory()
        try keys.allow([(alice, "alice", false)])
        let daemon = try LayoutdProcess(arguments: [
            "--server-secret-key-file", keys.serverSecretKeyFile, "--client-keys-file", keys.clientKeysFile,
        ])
        // Up: it answers Alice (SIGHUP is trapped before the sockets are bound).
        #expect(try answers(daemon, keys: keys, client: alice, attempts: 300, timeout: .milliseconds(100)))
        #expect(try !answers(daemon, keys: keys, client: carol, attempts: 1, timeout: .milliseconds(400)))

        try keys.allow([(alice, "alice", false), (carol, "carol", false)])
        daemon.signal(SIGHUP)
        // The reload runs on the daemon's own time: Carol is admitted within a few tries.
        #expect(try answers(daemon, keys: keys, client: carol, attempts: 150, timeout: .milliseconds(100)))
        #expect(daemon.process.isRunning)

        daemon.signal(SIGTERM)
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus == 0)
    }

    @Test func sighupAtABrokerAdmitsTheKeysNowListed() throws {
        let alice = try CurveKeyPair.generate()
        let carol = try CurveKeyPair.generate()
        let keys = try KeyDirectory()
        try keys.allow([(alice, "alice", false)])
        let broker = try LayoutdProcess(arguments: [
            "--role", "broker", "--back", "tcp://127.0.0.1:\(try freePort())", "--events-in", "tcp://127.0.0.1:\(try freePort())",
            "--server-secret-key-file", keys.serverSecretKeyFile, "--client-keys-file", keys.clientKeysFile,
        ])
        // Up, without workers: it answers Alice (`unavailable`), and Carol not at all.
        #expect(try answers(broker, keys: keys, client: alice, attempts: 300, timeout: .milliseconds(100), anyReply: true))
        #expect(try !answers(broker, keys: keys, client: carol, attempts: 1, timeout: .milliseconds(400), anyReply: true))

        try keys.allow([(carol, "carol", false)])
        broker.signal(SIGHUP)
        #expect(try answers(broker, keys: keys, client: carol, attempts: 150, timeout: .milliseconds(100), anyReply: true))
        #expect(try !answers(broker, keys: keys, client: alice, attempts: 1, timeout: .milliseconds(400), anyReply: true))
        #expect(broker.process.isRunning)

        broker.signal(SIGTERM)
        broker.process.waitUntilExit()
        #expect(broker.process.terminationStatus == 0)
    }
}
