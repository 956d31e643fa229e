/// What the operations HTTP listener answers, apart from HTTP itself (so it can be tested without a socket).
public struct OperationsRoutes: Sendable {
    /// One response, whole.
    struct Response: Sendable {
        var status: Int
        var reason: String
        var contentType = "text/plain; charset=utf-8"
        var body: [UInt8]
        /// For 405: the methods allowed.
        var allow: String?
        /// Further headers (`WWW-Authenticate`).
        var headers: [(String, String)] = []
    }

    /// The Prometheus text exposition's content type (format 0.0.4).
    static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

    let health: DaemonHealth
    /// The `/metrics` body.
    let metrics: @Sendable () -> [UInt8]
    /// A further condition of `/readyz` while `health` is serving: nil when it holds, else why not (the
    /// 503 body). A cluster worker is ready only while joined to a broker.
    let readiness: @Sendable () -> String?
    /// The web console served beside the probes; nil for none.
    let console: ConsoleSetup?

    /// - Parameters:
    ///   - health: the process's phase and I/O progress (`/healthz`, `/readyz`).
    ///   - metrics: the `/metrics` body, made on the listener's thread.
    ///   - readiness: checked by `/readyz` once `health` is serving; nil (the default) for none.
    ///   - console: the web console at `/`, `/console/` and `/api/`; nil (the default) for none.
    public init(
        health: DaemonHealth, metrics: @escaping @Sendable () -> [UInt8], readiness: @escaping @Sendable () -> String? = { nil },
        console: ConsoleSetup? = nil
    ) {
        self.health = health
        self.metrics = metrics
        self.readiness = readiness
        self.console = console.flatMap { $0.settings.isEnabled ? $0 : nil }
    }

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
            case .serving:
                if let reason = readiness() {
                    return Response(status: 503, reason: "Service Unavailable", body: text(reason))
                }
                return Response(status: 200, reason: "OK", body: text("ready"))
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
