import LayoutWire

/// What the console answers, apart from HTTP and sockets (so its rules can be read, and tested, in one
/// place): who may use it, which ops pass the gateway, and how a protocol reply maps to an HTTP status.
struct ConsoleAPI: Sendable {
    /// What to do with one request.
    enum Outcome: Sendable {
        /// Answer this now.
        case respond(OperationsRoutes.Response)
        /// Send this protocol body to the front and answer its reply.
        case forward([UInt8])
        /// Ask the stats socket.
        case stats
        /// Open an event stream of the topics starting with this.
        case stream(topicFilter: String)
    }

    let settings: ConsoleSettings
    /// CURVE is on: without a token, the console is off.
    let isCurveOn: Bool

    /// Whether `path` is the console's (the rest is the operations listener's).
    static func owns(_ path: String) -> Bool {
        path == "/" || path.hasPrefix("/console/") || path.hasPrefix("/api/")
    }

    /// The outcome for `method path` with `authorization` (the header's value) and `body`.
    func outcome(method: String, path: String, query: String, authorization: String?, body: [UInt8]) -> Outcome {
        if isCurveOn && settings.token == nil {
            return .respond(Self.error(401, "Unauthorized", "unauthorized", "the console is off: CURVE is on and no console.token is configured"))
        }
        if !path.hasPrefix("/api/") {
            guard method == "GET" || method == "HEAD" else { return .respond(Self.methodNotAllowed("GET, HEAD")) }
            let name = path == "/" ? "index.html" : String(path.dropFirst("/console/".count))
            guard let asset = ConsoleAssets.asset(named: name) else {
                return .respond(Self.error(404, "Not Found", "not_found", "no console file \(path)"))
            }
            return .respond(OperationsRoutes.Response(status: 200, reason: "OK", contentType: asset.contentType, body: asset.bytes))
        }
        if let token = settings.token, !Self.bearer(authorization, matches: token) {
            var response = Self.error(401, "Unauthorized", "unauthorized", "send the console token: Authorization: Bearer <console.token>")
            response.headers.append(("WWW-Authenticate", #"Bearer realm="layoutd""#))
            return .respond(response)
        }
        switch path {
        case "/api/request":
            guard method == "POST" else { return .respond(Self.methodNotAllowed("POST")) }
            return admit(body)
        case "/api/stats":
            guard method == "GET" else { return .respond(Self.methodNotAllowed("GET")) }
            return .stats
        case "/api/events":
            guard method == "GET" else { return .respond(Self.methodNotAllowed("GET")) }
            return .stream(topicFilter: Self.parameter("topic", in: query) ?? "")
        case "/api/console":
            guard method == "GET" else { return .respond(Self.methodNotAllowed("GET")) }
            let text = #"{"allowChanges":\#(settings.allowsChanges),"maxItems":\#(settings.maxItems),"maxBodyBytes":\#(settings.maxBodyBytes)}"#
            return .respond(OperationsRoutes.Response(status: 200, reason: "OK", contentType: ConsoleAssets.json, body: Array(text.utf8)))
        default:
            return .respond(Self.error(404, "Not Found", "not_found", "no API \(path): try /api/request, /api/stats, /api/events or /api/console"))
        }
    }

    /// Read-only unless changes are allowed; a stateless `layout` within the playground's cap.
    private func admit(_ body: [UInt8]) -> Outcome {
        let route = RequestRoute(scanning: body)
        // An op the scan cannot name (none, unknown, `route`) changes nothing: the front answers it.
        if let operation = route.operation, operation.changesLayout, !settings.allowsChanges {
            let error = WireError(.readOnly, "the console is read-only: `\(operation.rawValue)` changes a layout (console.allowChanges turns changes on)", path: "op")
            return .respond(Self.reply(403, "Forbidden", ReplyEncoder.failure(id: route.id, error: error)))
        }
        if route.operation == .layout, let (count, path) = ConsoleItemCount.exceeding(settings.maxItems, in: body) {
            let error = WireError(.tooLarge, "the console lays out at most \(settings.maxItems) items (console.maxItems), not \(count)", path: path)
            return .respond(Self.reply(413, "Content Too Large", ReplyEncoder.failure(id: route.id, error: error)))
        }
        return .forward(body)
    }

    /// The HTTP answer to a protocol reply from the front: 200 for a success, else by error code.
    static func response(toReply reply: [UInt8]) -> OperationsRoutes.Response {
        let summary = reply.withUnsafeBytes { ReplySummary(scanning: $0, readingResult: false) }
        guard summary.ok != true else { return self.reply(200, "OK", reply) }
        let (status, reason): (Int, String) = switch summary.errorCode {
        case "invalid_json", "invalid_request", "unknown_op", "invalid_update": (400, "Bad Request")
        case "unknown_layout": (404, "Not Found")
        case "version_conflict": (409, "Conflict")
        case "too_large": (413, "Content Too Large")
        case "read_only": (403, "Forbidden")
        case "busy", "unavailable", "moved", "behind": (503, "Service Unavailable")
        default: (500, "Internal Server Error")
        }
        return self.reply(status, reason, reply)
    }

    /// A protocol error body the gateway makes itself (no reply from the front).
    static func error(_ status: Int, _ reason: String, _ code: String, _ message: String) -> OperationsRoutes.Response {
        var text = Array(#"{"v":1,"id":null,"ok":false,"error":{"code":"#.utf8)
        text += ConsoleJSON.quoted(code) + Array(#","message":"#.utf8) + ConsoleJSON.quoted(message) + Array("}}".utf8)
        return reply(status, reason, text)
    }

    static func reply(_ status: Int, _ reason: String, _ body: [UInt8]) -> OperationsRoutes.Response {
        OperationsRoutes.Response(status: status, reason: reason, contentType: ConsoleAssets.json, body: body)
    }

    private static func methodNotAllowed(_ allow: String) -> OperationsRoutes.Response {
        var response = error(405, "Method Not Allowed", "method_not_allowed", "only \(allow)")
        response.allow = allow
        return response
    }

    /// Compares in time that does not depend on where the first difference is.
    static func bearer(_ header: String?, matches token: String) -> Bool {
        guard let header, header.hasPrefix("Bearer ") else { return false }
        let given = Array(header.dropFirst("Bearer ".count).utf8)
        let expected = Array(token.utf8)
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in expected.indices {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }

    /// `name`'s value in a query string, percent-decoded.
    static func parameter(_ name: String, in query: String) -> String? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.first == Substring(name) else { continue }
            return parts.count > 1 ? percentDecoded(parts[1]) : ""
        }
        return nil
    }

    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "+") {
                bytes.append(32)
            } else if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
                      let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
