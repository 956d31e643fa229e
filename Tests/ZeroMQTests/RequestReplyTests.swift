import Testing
import ZeroMQ

@Suite struct RequestReplyTests {
    @Test(arguments: Transport.allCases)
    func requestAndReplyRoundTrip(over transport: Transport) throws {
        let context = try Context()
        let server = try makeSocket(.rep, in: context)
        let client = try makeSocket(.req, in: context)
        try link(server, client, over: transport)

        try client.send("ping")
        #expect(try server.receiveString() == "ping")
        try server.send("pong")
        #expect(try client.receiveString() == "pong")

        // A second exchange proves the REQ/REP state machines went back to their start.
        try client.send([0, 1, 2])
        #expect(try server.receiveBytes() == [0, 1, 2])
        try server.send([3])
        #expect(try client.receiveBytes() == [3])
    }

    @Test func tcpWildcardBindReportsTheRealPort() throws {
        let context = try Context()
        let server = try makeSocket(.rep, in: context)
        try server.bind("tcp://127.0.0.1:*")
        let endpoint = try server.lastEndpoint
        #expect(endpoint.hasPrefix("tcp://127.0.0.1:"))
        let port = Int(endpoint.dropFirst("tcp://127.0.0.1:".count))
        #expect(port.map { (1...65_535).contains($0) } == true)
    }

    @Test func requestSocketRefusesToSendTwiceWithoutAReply() throws {
        let context = try Context()
        let server = try makeSocket(.rep, in: context)
        let client = try makeSocket(.req, in: context)
        try link(server, client, over: .inproc)
        try client.send("one")
        let error = #expect(throws: ZeroMQError.self) { try client.send("two") }
        #expect(error?.code == .invalidState)
    }
}
