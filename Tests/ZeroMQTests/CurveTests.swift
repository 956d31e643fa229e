import Testing
import ZeroMQ

/// Z85, CURVE key pairs, the CURVE and ZAP socket options, message properties and XPUB_MANUAL.
@Suite struct CurveTests {
    /// The example of ZeroMQ RFC 32.
    @Test func z85MatchesTheSpecificationsExample() {
        let bytes: [UInt8] = [0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B]
        #expect(Z85.encode(bytes) == "HelloWorld")
        #expect(Z85.decode("HelloWorld") == bytes)
    }

    @Test(arguments: ["", "Hell", "HelloWorld!", "Hell,", "Hello\u{0}orld", "Hellö"])
    func z85RefusesWhatIsNotZ85(text: String) {
        #expect(Z85.decode(text) == nil)
    }

    @Test func z85EncodesOnlyWholeGroupsOfFourBytes() {
        #expect(Z85.encode([1, 2, 3]) == nil)
        #expect(Z85.encode([]) == "")
    }

    @Test func keyPairsAreFreshAndThePublicKeyFollowsFromTheSecretOne() throws {
        #expect(zeroMQSupportsCurve)
        let first = try CurveKeyPair.generate()
        let second = try CurveKeyPair.generate()
        #expect(first.publicKey != second.publicKey)
        #expect(first.secretKey != second.secretKey)
        #expect(try CurveKeyPair(secretKey: first.secretKey).publicKey == first.publicKey)

        let text = first.publicKey.z85
        #expect(text.utf8.count == 40)
        #expect(CurveKey(z85: text) == first.publicKey)
        #expect(CurveKey(bytes: first.publicKey.bytes) == first.publicKey)
        // A secret key logged by mistake shows nothing of itself.
        #expect(!"\(first.secretKey)".contains(first.secretKey.z85))
    }

    @Test func keysOfTheWrongSizeAreRefused() {
        #expect(CurveKey(bytes: [UInt8](repeating: 1, count: 31)) == nil)
        #expect(CurveKey(z85: "HelloWorld") == nil)
        #expect(CurveKey(z85: String(repeating: ",", count: 40)) == nil)
    }

    @Test func curveOptionsRoundTrip() throws {
        let context = try Context()
        let keys = try CurveKeyPair.generate()
        let server = try Socket(.router, in: context)
        #expect(try server.get(.curveServer) == false)
        try server.makeCurveServer(secretKey: keys.secretKey)
        #expect(try server.get(.curveServer) == true)
        #expect(try server.get(.curveSecretKey) == keys.secretKey)
        try server.set(.zapDomain, "front")
        #expect(try server.get(.zapDomain) == "front")

        let client = try Socket(.dealer, in: context)
        let clientKeys = try CurveKeyPair.generate()
        try client.makeCurveClient(keys: clientKeys, serverKey: keys.publicKey)
        #expect(try client.get(.curvePublicKey) == clientKeys.publicKey)
        #expect(try client.get(.curveServerKey) == keys.publicKey)
    }

    /// A CURVE handshake asks the ZAP handler; what it answers as User-Id comes with every message of
    /// that connection, together with the peer's address.
    @Test func anAdmittedClientsMessagesCarryTheUserIDItsHandlerGave() throws {
        let pair = try CurvePair()
        let client = try pair.client(keys: CurveKeyPair.generate())
        _ = try client.send(bytes("hello"))

        let request = try pair.answerZAP(status: "200", userID: "alice")
        #expect(request.domain == "front")
        #expect(request.mechanism == "CURVE")
        #expect(request.address == "127.0.0.1")

        let frames = try required(try pair.server.receiveMultipartMessage())
        #expect(frames.head.count == 1, "the routing id")
        #expect(frames.last.string == "hello")
        #expect(frames.last.userID == "alice")
        #expect(frames.last.peerAddress == "127.0.0.1")
        #expect(frames.last.property("Socket-Type") == "DEALER")
        #expect(frames.last.property("X-No-Such-Property") == nil)
    }

    @Test func theHandlerSeesTheClientsPublicKey() throws {
        let pair = try CurvePair()
        let keys = try CurveKeyPair.generate()
        let client = try pair.client(keys: keys)
        _ = try client.send(bytes("hello"))
        let request = try pair.answerZAP(status: "200", userID: "bob")
        #expect(request.credentials == keys.publicKey.bytes)
    }

    @Test func aRefusedClientsMessagesNeverArrive() throws {
        let pair = try CurvePair()
        let client = try pair.client(keys: CurveKeyPair.generate())
        _ = try client.send(bytes("let me in"))
        _ = try pair.answerZAP(status: "400", userID: "")
        try pair.server.set(.receiveTimeout, 300)
        #expect(try pair.server.receive() == nil)
    }

    @Test func aClientThatDoesNotKnowTheServersKeyNeverGetsToTheHandler() throws {
        let pair = try CurvePair()
        let stranger = try Socket(.dealer, in: pair.context)
        try stranger.makeCurveClient(keys: CurveKeyPair.generate(), serverKey: CurveKeyPair.generate().publicKey)
        try stranger.connect(pair.endpoint)
        _ = try stranger.send(bytes("hello"))
        try pair.zap.set(.receiveTimeout, 300)
        #expect(try pair.zap.receive() == nil)
        try pair.server.set(.receiveTimeout, 10)
        #expect(try pair.server.receive() == nil)
    }

    /// Without XPUB_MANUAL a subscriber gets what it asked for; with it, only what the application filed.
    @Test func manualXPUBFilesTheTopicTheApplicationChooses() throws {
        let context = try Context()
        let xpub = try makeSocket(.xpub, in: context)
        try xpub.set(.xpubManual, true)
        let sub = try makeSocket(.sub, in: context)
        try link(xpub, sub, over: .tcp)
        try sub.subscribe("A")
        let request = try required(try xpub.receive())
        #expect(request.bytes == [1] + bytes("A"))
        // File a narrower topic than the one asked for.
        try xpub.set(.subscribe, bytes("AB"))
        // The filing is done by the time a later message of the same pipe goes out.
        _ = try xpub.send(multipart: [bytes("AC-not-filed"), bytes("1")])
        _ = try xpub.send(multipart: [bytes("AB-filed"), bytes("2")])
        let received = try required(try sub.receiveMultipart())
        #expect(received == [bytes("AB-filed"), bytes("2")])
    }

    @Test func aSubscriptionMessageCarriesItsSubscribersUserID() throws {
        let pair = try CurvePair(serverType: .xpub)
        try pair.server.set(.xpubManual, true)
        let keys = try CurveKeyPair.generate()
        let sub = try Socket(.sub, in: pair.context)
        try sub.set(.receiveTimeout, testTimeoutMilliseconds)
        try sub.makeCurveClient(keys: keys, serverKey: pair.serverKeys.publicKey)
        try sub.connect(pair.endpoint)
        try sub.subscribe("batch:")
        _ = try pair.answerZAP(status: "200", userID: "carol")
        let message = try required(try pair.server.receive())
        #expect(message.bytes == [1] + bytes("batch:"))
        #expect(message.userID == "carol")
    }
}

/// A CURVE server socket on tcp with a ZAP handler socket in its context, all on the test's thread:
/// libzmq runs handshakes on its own threads, so one thread can play server, handler and client.
private struct CurvePair {
    let context: Context
    let server: Socket
    let zap: Socket
    let serverKeys: CurveKeyPair
    let endpoint: String

    init(serverType: SocketType = .router) throws {
        context = try Context()
        zap = try makeSocket(.router, in: context)
        try zap.bind("inproc://zeromq.zap.01")
        serverKeys = try CurveKeyPair.generate()
        server = try makeSocket(serverType, in: context)
        try server.makeCurveServer(secretKey: serverKeys.secretKey)
        try server.set(.zapDomain, "front")
        try server.bind("tcp://127.0.0.1:*")
        endpoint = try server.lastEndpoint
    }

    func client(keys: CurveKeyPair) throws -> Socket {
        let client = try makeSocket(.dealer, in: context)
        try client.makeCurveClient(keys: keys, serverKey: serverKeys.publicKey)
        try client.connect(endpoint)
        return client
    }

    struct ZAPRequest {
        var domain: String
        var address: String
        var mechanism: String
        var credentials: [UInt8]
    }

    /// Answers the next ZAP request (RFC 27) with `status` and `userID`.
    func answerZAP(status: String, userID: String) throws -> ZAPRequest {
        let frames = try required(try zap.receiveMultipart())
        // [routing id, empty delimiter, version, request id, domain, address, identity, mechanism, credentials…]
        try #require(frames.count >= 9)
        #expect(frames[1].isEmpty)
        #expect(frames[2] == bytes("1.0"))
        _ = try zap.send(multipart: [frames[0], [], bytes("1.0"), frames[3], bytes(status), bytes("test"), bytes(userID), []])
        return ZAPRequest(
            domain: String(decoding: frames[4], as: UTF8.self), address: String(decoding: frames[5], as: UTF8.self),
            mechanism: String(decoding: frames[7], as: UTF8.self), credentials: frames[8]
        )
    }
}

/// Handshakes that fail before any ZAP request, seen through a socket monitor.
@Suite struct HandshakeMonitorTests {
    @Test func aPlainClientOfACurveServerFailsItsHandshakeAsAMechanismMismatch() throws {
        let context = try Context()
        let server = try makeSocket(.router, in: context)
        try server.makeCurveServer(secretKey: CurveKeyPair.generate().secretKey)
        let endpoint = "inproc://monitor-\(UInt64.random(in: 0 ... .max))"
        try server.monitor(endpoint, events: [.handshakeFailedProtocol, .handshakeSucceeded])
        let watcher = try makeSocket(.pair, in: context)
        try watcher.connect(endpoint)
        try server.bind("tcp://127.0.0.1:*")
        let plain = try makeSocket(.dealer, in: context)
        try plain.connect(server.lastEndpoint)
        _ = try plain.send(bytes("hello"))
        let event = try #require(MonitorEvent(frames: try required(try watcher.receiveMultipart())))
        #expect(event.kind == .handshakeFailedProtocol)
        #expect(MonitorEvent.ProtocolError(rawValue: event.value) == .mechanismMismatch)
        #expect(event.endpoint.hasPrefix("tcp://127.0.0.1:"))
    }

    @Test func aClientWithAWrongServerKeyFailsItsHandshakeCryptographically() throws {
        let context = try Context()
        let server = try makeSocket(.router, in: context)
        try server.makeCurveServer(secretKey: CurveKeyPair.generate().secretKey)
        let endpoint = "inproc://monitor-\(UInt64.random(in: 0 ... .max))"
        let watcher = try makeSocket(.pair, in: context)
        // A PAIR may connect before the monitor binds its end (inproc allows either order).
        try watcher.connect(endpoint)
        try server.monitor(endpoint, events: [.handshakeFailedProtocol])
        try server.bind("tcp://127.0.0.1:*")
        let client = try makeSocket(.dealer, in: context)
        try client.makeCurveClient(keys: CurveKeyPair.generate(), serverKey: CurveKeyPair.generate().publicKey)
        try client.connect(server.lastEndpoint)
        _ = try client.send(bytes("hello"))
        let event = try #require(MonitorEvent(frames: try required(try watcher.receiveMultipart())))
        #expect(event.kind == .handshakeFailedProtocol)
        #expect(MonitorEvent.ProtocolError(rawValue: event.value) == .cryptographic)
    }

    @Test func monitorMessagesOfAnotherShapeAreNotEvents() {
        #expect(MonitorEvent(frames: [[1, 2, 3]]) == nil)
        #expect(MonitorEvent(frames: [[1, 2, 3], []]) == nil)
    }
}
