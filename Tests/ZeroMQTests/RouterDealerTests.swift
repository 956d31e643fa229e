import Testing
import ZeroMQ

@Suite struct RouterDealerTests {
    @Test(arguments: Transport.allCases)
    func dealerToRouterKeepsTheEnvelope(over transport: Transport) throws {
        let context = try Context()
        let router = try makeSocket(.router, in: context)
        let dealer = try makeSocket(.dealer, in: context)
        try dealer.set(.routingID, bytes("dealer-1"))
        try link(router, dealer, over: transport)

        try dealer.send(multipart: [bytes("a"), [], bytes("body")])
        let request = try #require(try router.receiveMultipart())
        #expect(request == [bytes("dealer-1"), bytes("a"), [], bytes("body")])

        // The router answers with everything but the body unchanged; the dealer sees its frames only.
        try router.send(multipart: Array(request.dropLast()) + [bytes("reply")])
        #expect(try dealer.receiveMultipart() == [bytes("a"), [], bytes("reply")])
    }

    @Test func receiveMessageHandsOverTheLeadingFramesAndReturnsTheBody() throws {
        let context = try Context()
        let router = try makeSocket(.router, in: context)
        let dealer = try makeSocket(.dealer, in: context)
        try dealer.set(.routingID, bytes("d"))
        try link(router, dealer, over: .inproc)

        try dealer.send(multipart: [bytes("a"), [], bytes("body")])
        var leading: [[UInt8]] = []
        let body = try router.receiveMessage { leading.append($0.bytes) }?.bytes
        #expect(leading == [bytes("d"), bytes("a"), []])
        #expect(body == bytes("body"))
        // Nothing waiting: nil at once, and nothing handed over.
        let nothing = try router.receiveMessage(flags: .dontWait) { leading.append($0.bytes) }?.bytes
        #expect(nothing == nil)
        #expect(leading.count == 3)
    }

    @Test func routerRepliesReachTheRightDealer() throws {
        let context = try Context()
        let router = try makeSocket(.router, in: context)
        let first = try makeSocket(.dealer, in: context)
        let second = try makeSocket(.dealer, in: context)
        try first.set(.routingID, bytes("first"))
        try second.set(.routingID, bytes("second"))
        try link(router, first, over: .inproc)
        try second.connect(router.lastEndpoint)

        try first.send("from first")
        try second.send("from second")
        var received: [[[UInt8]]] = []
        for _ in 0..<2 { received.append(try #require(try router.receiveMultipart())) }
        #expect(Set(received) == [[bytes("first"), bytes("from first")], [bytes("second"), bytes("from second")]])

        try router.send(multipart: [bytes("second"), bytes("for second")])
        try router.send(multipart: [bytes("first"), bytes("for first")])
        #expect(try first.receiveString() == "for first")
        #expect(try second.receiveString() == "for second")
    }

    @Test(arguments: Transport.allCases)
    func routerAnswersARequestClientThroughTheEmptyDelimiter(over transport: Transport) throws {
        let context = try Context()
        let router = try makeSocket(.router, in: context)
        let client = try makeSocket(.req, in: context)
        try client.set(.routingID, bytes("req-client"))
        try link(router, client, over: transport)

        try client.send("hello")
        let request = try required(router.receiveMultipartMessage())
        // REQ puts an empty delimiter frame between the routing id and the body.
        #expect(request.head == [bytes("req-client"), []])
        #expect(request.last.string == "hello")

        try router.send(multipart: request.head + [bytes("world")])
        #expect(try client.receiveString() == "world")
    }

    @Test func routerSendsALargeBodyBehindTheEnvelopeWithoutCopying() throws {
        let context = try Context()
        let router = try makeSocket(.router, in: context)
        let dealer = try makeSocket(.dealer, in: context)
        try dealer.set(.routingID, bytes("d"))
        try link(router, dealer, over: .tcp)
        try dealer.send("request")
        let request = try #require(try router.receiveMultipart())

        let body = try Message(count: 100_000) { buffer in
            for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: index % 13) }
        }
        try router.send(multipart: Array(request.dropLast()), last: body)
        let reply = try required(dealer.receiveMultipartMessage())
        #expect(reply.head.isEmpty)
        #expect(reply.last.bytes == (0..<100_000).map { UInt8($0 % 13) })
    }

    @Test func mandatoryRouterReportsAnUnknownPeer() throws {
        let context = try Context()
        let router = try makeSocket(.router, in: context)
        try router.set(.routerMandatory, true)
        try router.bind(Transport.inproc.bindableEndpoint())
        let error = #expect(throws: ZeroMQError.self) {
            try router.send(multipart: [bytes("nobody"), bytes("lost")])
        }
        #expect(error?.code == .hostUnreachable)
    }

    @Test func plainRouterDropsMessagesForAnUnknownPeer() throws {
        let context = try Context()
        let router = try makeSocket(.router, in: context)
        try router.bind(Transport.inproc.bindableEndpoint())
        #expect(try router.send(multipart: [bytes("nobody"), bytes("lost")]))
    }
}
