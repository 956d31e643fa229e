import Foundation
import Logging
import Testing
import ZeroMQ
@testable import LayoutServer

/// The allow-list's format, the ZAP decisions and the ZAP wire frames, without sockets.
@Suite struct ClientKeyListTests {
    private let alice: CurveKey
    private let bob: CurveKey
    private let ops: CurveKey

    init() throws {
        alice = try CurveKeyPair.generate().publicKey
        bob = try CurveKeyPair.generate().publicKey
        ops = try CurveKeyPair.generate().publicKey
    }

    @Test func entriesWithAndWithoutNamesAndRoles() throws {
        let list = try ClientKeyList(parsing: """
            # the team's clients

            \(alice.z85) alice   # the feed service
            \t\(bob.z85)\r
            \(ops.z85) ops admin
            """, path: "clients.keys")
        #expect(list.count == 3)
        #expect(list.entry(for: alice)?.caller == Caller(namespace: "alice", isAdmin: false))
        #expect(list.entry(for: bob)?.caller == Caller(namespace: bob.z85, isAdmin: false), "an unnamed key is its own namespace")
        #expect(list.entry(for: ops)?.caller == Caller(namespace: "ops", isAdmin: true))
        #expect(list.entry(userID: alice.z85)?.name == "alice")
        #expect(list.topicPrefixes["alice"] == [Array(alice.z85.utf8)])
        #expect(list.adminCount == 1)
    }

    @Test func aCommentedOutKeyIsNotListed() throws {
        let list = try ClientKeyList(parsing: "#\(alice.z85) alice\n  # \(bob.z85)\n\(ops.z85)\n", path: "k")
        #expect(list.count == 1)
        #expect(list.entry(for: alice) == nil)
        #expect(list.entry(for: ops) != nil)
    }

    @Test func keysSharingANameShareANamespace() throws {
        let list = try ClientKeyList(parsing: "\(alice.z85) alice\n\(bob.z85) alice\n", path: "k")
        #expect(list.namespaceCount == 1)
        #expect(list.topicPrefixes["alice"]?.count == 2)
    }

    /// Each bad line is refused with its line number.
    @Test(arguments: [
        ("not-a-key alice", "is not a public key"),
        ("KEY alice admin extra", "at most"),
        ("KEY alice owner", "must be \"admin\""),
        ("KEY al/ce", "is not a name"),
        ("KEY \(String(repeating: "n", count: 33))", "is not a name"),
    ])
    func badLinesAreRefusedWithTheirLine(line: String, message: String) throws {
        let text = "# header\n" + line.replacingOccurrences(of: "KEY", with: alice.z85) + "\n"
        let error = try #require(throws: KeyFileError.self) { try ClientKeyList(parsing: text, path: "clients.keys") }
        #expect(error.line == 2)
        #expect(error.path == "clients.keys")
        #expect(error.message.contains(message), "\(error)")
    }

    @Test func aKeyListedTwiceIsRefused() throws {
        let error = try #require(throws: KeyFileError.self) {
            try ClientKeyList(parsing: "\(alice.z85) a\n\(bob.z85) b\n\(alice.z85) c\n", path: "k")
        }
        #expect(error.line == 3)
        #expect(error.message.contains("line 1"))
    }

    @Test func anEmptyListAdmitsNobody() throws {
        let list = try ClientKeyList(parsing: "# nobody yet\n", path: "k")
        #expect(list.count == 0)
        #expect(list.entry(for: alice) == nil)
    }
}

@Suite struct AccessControlTests {
    private let alice: CurveKeyPair
    private let ops: CurveKeyPair
    private let keys: KeyDirectory
    private let access: AccessControl

    init() throws {
        alice = try CurveKeyPair.generate()
        ops = try CurveKeyPair.generate()
        keys = try KeyDirectory()
        try keys.allow([listed(alice, "alice"), listed(ops, "ops", admin: true)])
        access = try AccessControl(serverSecretKeyPath: keys.serverSecretKeyFile, clientKeysPath: keys.clientKeysFile, stats: ServerStats(), logger: SecureTestDaemon.logger)
    }

    @Test func theServersPublicKeyFollowsFromItsSecretKeyFile() {
        #expect(access.serverKeys == keys.serverKeys)
    }

    @Test func listedKeysAreAdmittedWithTheirKeyAsUserID() throws {
        #expect(access.decide(domain: "front", mechanism: "CURVE", credentials: alice.publicKey.bytes) == .admit(userID: alice.publicKey.z85))
        #expect(access.caller(userID: alice.publicKey.z85) == Caller(namespace: "alice", isAdmin: false))
        #expect(access.decide(domain: "front", mechanism: "CURVE", credentials: try CurveKeyPair.generate().publicKey.bytes) == .refuse("key not listed"))
    }

    @Test func theStatsSocketAdmitsOnlyAdmins() {
        #expect(access.decide(domain: "stats", mechanism: "CURVE", credentials: alice.publicKey.bytes) == .refuse("not an admin key"))
        #expect(access.decide(domain: "stats", mechanism: "CURVE", credentials: ops.publicKey.bytes) == .admit(userID: ops.publicKey.z85))
        #expect(access.isAdmin(userID: ops.publicKey.z85))
        #expect(!access.isAdmin(userID: alice.publicKey.z85))
    }

    @Test func otherMechanismsAreRefused() {
        #expect(access.decide(domain: "front", mechanism: "PLAIN", credentials: alice.publicKey.bytes) == .refuse("not a CURVE handshake"))
        #expect(access.decide(domain: "front", mechanism: "CURVE", credentials: [1, 2, 3]) == .refuse("not a CURVE handshake"))
    }

    @Test func aReloadSwapsTheWholeListOrNothing() throws {
        try keys.allow([listed(ops, "ops", admin: true)])
        #expect(try access.reload() == AccessControl.Summary(keys: 1, admins: 1, namespaces: 1))
        #expect(access.caller(userID: alice.publicKey.z85) == nil)

        try "\(alice.publicKey.z85) alice\nbroken line\n".write(toFile: keys.clientKeysFile, atomically: true, encoding: .utf8)
        #expect(throws: KeyFileError.self) { try access.reload() }
        #expect(access.caller(userID: alice.publicKey.z85) == nil, "a refused file admits nothing of itself")
        #expect(access.isAdmin(userID: ops.publicKey.z85))
    }

    @Test func missingOrBrokenKeyFilesAreTypedErrors() throws {
        let error = try #require(throws: KeyFileError.self) {
            try AccessControl(serverSecretKeyPath: keys.path + "/missing.key", clientKeysPath: keys.clientKeysFile, stats: ServerStats(), logger: SecureTestDaemon.logger)
        }
        #expect(error.path.hasSuffix("missing.key"))
        let secret = keys.path + "/public-instead.key"
        try "# oops\nnot-a-key\n".write(toFile: secret, atomically: true, encoding: .utf8)
        let broken = try #require(throws: KeyFileError.self) {
            try AccessControl(serverSecretKeyPath: secret, clientKeysPath: keys.clientKeysFile, stats: ServerStats(), logger: SecureTestDaemon.logger)
        }
        #expect(broken.line == 2)
    }

    @Test func refusalsAreCounted() {
        let stats = ServerStats()
        let counted = try? AccessControl(serverSecretKeyPath: keys.serverSecretKeyFile, clientKeysPath: keys.clientKeysFile, stats: stats, logger: SecureTestDaemon.logger)
        counted?.recordRefusal("key not listed", socket: "front", peerAddress: "127.0.0.1", key: nil)
        counted?.recordRefusal("key not listed", socket: "front", peerAddress: "127.0.0.1", key: nil)
        #expect(stats.snapshot(pool: PoolUsage(threads: 1, busy: 0, inFlight: 0, queued: 0), store: (0, 0)).authFailures == 2)
    }
}

@Suite struct ZAPRequestTests {
    private func frames(version: String = "1.0", mechanism: String = "CURVE", credentials: [UInt8] = Array(repeating: 7, count: 32)) -> [[UInt8]] {
        [[0, 1, 2, 3, 4], [], Array(version.utf8), Array("42".utf8), Array("front".utf8), Array("203.0.113.9".utf8), [], Array(mechanism.utf8), credentials]
    }

    @Test func aRequestIsReadFromItsFrames() throws {
        let request = try #require(ZAPRequest(frames: frames()))
        #expect(request.envelope == [[0, 1, 2, 3, 4], []])
        #expect(request.requestID == Array("42".utf8))
        #expect(request.domain == "front")
        #expect(request.address == "203.0.113.9")
        #expect(request.mechanism == "CURVE")
        #expect(request.credentials.count == 32)
    }

    @Test func repliesCarryTheRequestIDStatusAndUserID() throws {
        let request = try #require(ZAPRequest(frames: frames()))
        let text = { (frames: [[UInt8]]) in frames.map { String(decoding: $0, as: UTF8.self) } }
        #expect(text(request.reply(.admit(userID: "KEY"))) == ["\u{0}\u{1}\u{2}\u{3}\u{4}", "", "1.0", "42", "200", "OK", "KEY", ""])
        #expect(text(request.reply(.refuse("key not listed"))) == ["\u{0}\u{1}\u{2}\u{3}\u{4}", "", "1.0", "42", "400", "key not listed", "", ""])
    }

    @Test func otherVersionsAndShortRequestsAreNotRequests() {
        #expect(ZAPRequest(frames: frames(version: "2.0")) == nil)
        #expect(ZAPRequest(frames: Array(frames().prefix(6))) == nil)
        #expect(ZAPRequest(frames: [[1], [2]]) == nil)
    }
}

@Suite struct ExposureTests {
    @Test(arguments: [
        ("tcp://127.0.0.1:5555", true), ("tcp://127.0.0.1:*", true), ("tcp://localhost:5555", true), ("tcp://[::1]:5555", true),
        ("tcp://lo:5555", true), ("ipc:///run/layoutd.sock", true), ("inproc://front", true),
        ("tcp://0.0.0.0:5555", false), ("tcp://*:5555", false), ("tcp://eth0:5555", false), ("tcp://192.168.1.20:5555", false),
        ("tcp://[::]:5555", false), ("epgm://eth0;239.192.1.1:5555", false),
    ])
    func onlyLoopbackAndLocalTransportsAreLocal(endpoint: String, local: Bool) {
        #expect(Exposure.isLocal(endpoint) == local)
    }

    @Test func theWarningNamesEveryReachableEndpoint() {
        var configuration = ServerConfiguration()
        #expect(Exposure.reachableEndpoints(of: configuration).isEmpty)
        configuration.frontEndpoint = "tcp://0.0.0.0:5555"
        configuration.statsEndpoint = "tcp://10.0.0.2:5557"
        #expect(Exposure.reachableEndpoints(of: configuration) == ["tcp://0.0.0.0:5555", "tcp://10.0.0.2:5557"])
    }
}

@Suite struct SecurityConfigurationTests {
    @Test func bothKeyFilesOrNeither() async throws {
        let none = try await ConfigurationLoader.load(filePath: nil, environment: [:])
        #expect(!none.isCurveEnabled)
        let both = try await ConfigurationLoader.load(filePath: nil, environment: [
            "LAYOUTD_SECURITY_SERVER_SECRET_KEY_FILE": "/etc/layoutd/server.key", "LAYOUTD_SECURITY_CLIENT_KEYS_FILE": "/etc/layoutd/clients.keys",
        ])
        #expect(both.isCurveEnabled)
        #expect(both.serverSecretKeyFile == "/etc/layoutd/server.key")
        #expect(both.clientKeysFile == "/etc/layoutd/clients.keys")
        let error = await #expect(throws: ConfigurationError.self) {
            try await ConfigurationLoader.load(filePath: nil, environment: ["LAYOUTD_SECURITY_SERVER_SECRET_KEY_FILE": "/etc/layoutd/server.key"])
        }
        #expect(error?.key == "security.clientKeysFile")
    }

    @Test func aDaemonWhoseKeyFilesAreBrokenDoesNotStart() throws {
        let keys = try KeyDirectory()
        try "\(try CurveKeyPair.generate().publicKey.z85) name with spaces\n".write(toFile: keys.clientKeysFile, atomically: true, encoding: .utf8)
        var configuration = ServerConfiguration()
        configuration.useFreeLoopbackPorts()
        configuration.serverSecretKeyFile = keys.serverSecretKeyFile
        configuration.clientKeysFile = keys.clientKeysFile
        #expect(throws: KeyFileError.self) { try LayoutDaemon(configuration: configuration, logger: SecureTestDaemon.logger).start() }
    }
}
