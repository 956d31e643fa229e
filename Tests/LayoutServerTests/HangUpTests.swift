import Foundation
import LayoutClient
import Testing
import ZeroMQ

/// The real `layoutd` executable with CURVE: SIGHUP rereads the client keys, and the daemon goes on.
@Suite struct HangUpTests {
    /// Pings with `keys` until an answer comes or `attempts` pings of `timeout` each went unanswered.
    private func answers(_ daemon: LayoutdProcess, keys: KeyDirectory, client: CurveKeyPair, attempts: Int, timeout: Duration) throws -> Bool {
        let credentials = CurveCredentials(clientKeys: client, serverKey: keys.serverKeys.publicKey)
        let connection = try LayoutClient(endpoint: daemon.frontEndpoint, timeout: timeout, curve: credentials)
        defer { connection.close() }
        for _ in 0..<attempts {
            if (try? connection.ping())?.ok == true { return true }
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
        #expect(try answers(daemon, keys: keys, client: alice, attempts: 100, timeout: .milliseconds(100)))
        #expect(try !answers(daemon, keys: keys, client: carol, attempts: 1, timeout: .milliseconds(400)))

        try keys.allow([(alice, "alice", false), (carol, "carol", false)])
        daemon.signal(SIGHUP)
        // The reload runs on the daemon's own time: Carol is admitted within a few tries.
        #expect(try answers(daemon, keys: keys, client: carol, attempts: 50, timeout: .milliseconds(100)))
        #expect(daemon.process.isRunning)

        daemon.signal(SIGTERM)
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus == 0)
    }
}
