/// What the operations HTTP listener answers, apart from HTTP itself (so it can be tested without a socket).
struct OperationsRoutes: Sendable {
    /// One response, whole.
    struct Response: Sendable {
        var status: Int
        var reason: String
        var contentType = "text/plain; charset=utf-8"
        var body: [UInt8]
        /// For 405: the methods allowed.
        var allow: String?
    }

    /// The Prometheus text exposition's content type (format 0.0.4).
    static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

    let health: DaemonHealth
    /// The `/metrics` body.
    let metrics: @Sendable () -> [UInt8]

    /// The response to `method path`. `path` may carry a query string, which is ignored.
    func respond(method: String, uri: String) -> Response {
        let path = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? uri
        guard ["/metrics", "/healthz", "/readyz"].contains(path) else {
            return Response(status: 404, reason: "Not Found", body: text("not found: try /metrics, /healthz or /readyz"))
        }
        guard method == "GET" || method == "HEAD" else {
            return Response(status: 405, reason: "Method Not Allowed", body: text("only GET and HEAD"), allow: "GET, HEAD")
        }
        switch path {
        case "/metrics":
            return Response(status: 200, reason: "OK", contentType: Self.metricsContentType, body: metrics())
        case "/healthz":
            guard health.isAlive else {
                let seconds = health.sinceLastPass.components.seconds
                return Response(status: 503, reason: "Service Unavailable", body: text("stalled: the I/O thread made no progress for \(seconds) s"))
            }
            return Response(status: 200, reason: "OK", body: text("ok"))
        default:
            switch health.phase {
            case .serving: return Response(status: 200, reason: "OK", body: text("ready"))
            case .starting: return Response(status: 503, reason: "Service Unavailable", body: text("starting"))
            case .draining: return Response(status: 503, reason: "Service Unavailable", body: text("shutting down"))
            case .stopped: return Response(status: 503, reason: "Service Unavailable", body: text("stopped"))
            }
        }
    }

    private func text(_ line: String) -> [UInt8] {
        Array((line + "\n").utf8)
    }
}
