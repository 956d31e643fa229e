import Testing
@testable import LayoutServer

/// What the HTTP listener answers in each phase of the daemon, without a socket.
@Suite struct OperationsRoutesTests {
    private func routes(_ health: DaemonHealth) -> OperationsRoutes {
        OperationsRoutes(health: health, metrics: { Array("m 1\n".utf8) })
    }

    @Test func readinessFollowsThePhaseAndLivenessStaysUp() {
        let health = DaemonHealth()
        let routes = routes(health)
        #expect(routes.respond(method: "GET", uri: "/readyz").status == 503)
        #expect(routes.respond(method: "GET", uri: "/readyz").body == Array("starting\n".utf8))
        health.advance(to: .serving)
        #expect(routes.respond(method: "GET", uri: "/readyz").status == 200)
        health.advance(to: .draining)
        let draining = routes.respond(method: "GET", uri: "/readyz")
        #expect(draining.status == 503)
        #expect(draining.body == Array("shutting down\n".utf8))
        #expect(routes.respond(method: "GET", uri: "/healthz").status == 200)
        // Phases only move forward: a late `serving` does not make a draining daemon ready again.
        health.advance(to: .serving)
        #expect(health.phase == .draining)
        health.advance(to: .stopped)
        #expect(routes.respond(method: "GET", uri: "/readyz").status == 503)
        #expect(routes.respond(method: "GET", uri: "/healthz").status == 200)
    }

    @Test func metricsCarryThePrometheusContentType() {
        let response = routes(DaemonHealth()).respond(method: "GET", uri: "/metrics")
        #expect(response.status == 200)
        #expect(response.contentType == "text/plain; version=0.0.4; charset=utf-8")
        #expect(response.body == Array("m 1\n".utf8))
        #expect(routes(DaemonHealth()).respond(method: "DELETE", uri: "/metrics").status == 405)
        #expect(routes(DaemonHealth()).respond(method: "GET", uri: "/nope").status == 404)
    }

    @Test(arguments: [
        ("127.0.0.1:5558", "127.0.0.1", 5558), ("localhost:0", "localhost", 0), ("[::1]:5558", "::1", 5558),
        ("0.0.0.0:80", "0.0.0.0", 80),
    ])
    func addressesParse(text: String, host: String, port: Int) {
        let address = OperationsAddress(parsing: text)
        #expect(address == OperationsAddress(host: host, port: port))
        #expect(address?.description == text)
    }

    @Test(arguments: ["5558", ":5558", "::1:5558", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:", "host name:1", "http://x:1"])
    func malformedAddressesAreRefused(text: String) {
        #expect(OperationsAddress(parsing: text) == nil)
    }
}
