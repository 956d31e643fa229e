import Foundation
import LayoutTestKit
import Logging
import Testing
import ZeroMQ
@testable import LayoutServer

/// The web console's HTTP gateway over real loopback sockets, in front of a real daemon: what passes,
/// what is refused and how, and the bounds a hostile client meets (docs/OPERATIONS.md, The web console).
@Suite(.serialized) struct ConsoleGatewayTests {
    private func daemon(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> (TestDaemon, String) {
        let daemon = try TestDaemon {
            $0.httpAddress = "127.0.0.1:0"
            configure(&$0)
        }
        let running = daemon.running
        return (daemon, try #require(running.httpAddress))
    }

    private func json(_ response: HTTPProbe.Response) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
    }

    private func error(_ response: HTTPProbe.Response) throws -> [String: Any] {
        let body = try json(response)
        #expect(body["ok"] as? Bool == false)
        return try #require(body["error"] as? [String: Any])
    }

    @Test func readsPassAndChangesAreRefusedByDefault() throws {
        let (daemon, address) = try daemon()
        #expect(try daemon.call(mosaicJob(key: "feed", count: 20)).ok)
        let ping = try ConsoleHTTP.post("/api/request", #"{"v":1,"id":"p","op":"ping"}"#, at: address)
        #expect(ping.status == 200)
        #expect(try json(ping)["id"] as? String == "p")
        let query = try ConsoleHTTP.post("/api/request", #"{"v":1,"id":2,"op":"query","layout":"feed","rect":{"x":0,"y":0,"width":375,"height":200}}"#, at: address)
        #expect(query.status == 200)
        #expect(try json(query)["ok"] as? Bool == true)
        #expect(try ConsoleHTTP.post("/api/request", #"{"op":"list"}"#, at: address).status == 200)

        for body in [#"{"v":1,"id":3,"op":"drop","layout":"feed"}"#, #"{"op":"ping","op":"update","layout":"feed","updates":[]}"#, mosaicJob(key: "other")] {
            let refused = try ConsoleHTTP.post("/api/request", body, at: address)
            #expect(refused.status == 403)
            let fault = try error(refused)
            #expect(fault["code"] as? String == "read_only")
            #expect(fault["path"] as? String == "op")
        }
        // Nothing was changed: feed is still kept.
        let kept = try daemon.call(#"{"v":1,"id":1,"op":"query","layout":"feed","items":[[0,0]]}"#)
        #expect(kept.ok)
    }

    @Test func changesPassWhenTheOperatorAllowsThem() throws {
        let (daemon, address) = try daemon { $0.console.allowsChanges = true }
        defer { withExtendedLifetime(daemon) {} }
        let prepared = try ConsoleHTTP.post("/api/request", mosaicJob(key: "made-here", count: 5), at: address)
        #expect(prepared.status == 200)
        #expect(try daemon.call(#"{"v":1,"id":1,"op":"query","layout":"made-here","items":[[0,0]]}"#).ok)
    }

    @Test func badRequestsGetTheProtocolsErrorBody() throws {
        let (daemon, address) = try daemon()
        defer { withExtendedLifetime(daemon) {} }
        let broken = try ConsoleHTTP.post("/api/request", #"{"v":1,"id":7,"op":"ping""#, at: address)
        #expect(broken.status == 400)
        #expect(try error(broken)["code"] as? String == "invalid_json")
        #expect(try json(broken)["id"] as? Int == 7)
        let unknown = try ConsoleHTTP.post("/api/request", #"{"v":1,"id":8,"op":"query","layout":"nosuch","rect":{"x":0,"y":0,"width":1,"height":1}}"#, at: address)
        #expect(unknown.status == 404)
        #expect(try error(unknown)["code"] as? String == "unknown_layout")
        let invalid = try ConsoleHTTP.post("/api/request", #"{"op":"layout","bounds":{"width":375,"height":600},"spec":{"type":"list"},"sections":[{"heights":[4,-5]}]}"#, at: address)
        #expect(invalid.status == 400)
        #expect(try error(invalid)["path"] as? String == "sections[0].heights[1]")
        let wrongMethod = try ConsoleHTTP.send("GET", "/api/request", body: "", at: address)
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["allow"] == "POST")
        #expect(try error(wrongMethod)["code"] as? String == "method_not_allowed")
        #expect(try ConsoleHTTP.send("GET", "/api/nosuch", body: "", at: address).status == 404)
    }

    @Test func theItemCapAndTheBodyBoundHold() throws {
        let (daemon, address) = try daemon {
            $0.console.maxItems = 100
            $0.console.maxBodyBytes = 4096
        }
        let capped = try ConsoleHTTP.post("/api/request", #"{"id":1,"op":"layout","bounds":{"width":375,"height":600},"spec":{"type":"list"},"sections":[{"count":50},{"count":51}]}"#, at: address)
        #expect(capped.status == 413)
        let fault = try error(capped)
        #expect(fault["code"] as? String == "too_large")
        #expect(fault["path"] as? String == "sections[1]")
        #expect(try ConsoleHTTP.post("/api/request", #"{"op":"layout","bounds":{"width":375,"height":600},"spec":{"type":"list"},"sections":[{"count":100}]}"#, at: address).status == 200)

        let huge = #"{"op":"ping","pad":""# + String(repeating: "x", count: 10_000) + #""}"#
        let oversized = try ConsoleHTTP.post("/api/request", huge, at: address)
        #expect(oversized.status == 413)
        #expect(try error(oversized)["code"] as? String == "too_large")
        // Huge headers are the HTTP decoder's to refuse; the listener serves on.
        let parts = address.split(separator: ":")
        let headers = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "y", count: 200_000) + "\r\n\r\n"
        let answer = (try? HTTPProbe.exchange(host: String(parts[0]), port: UInt16(parts[1]) ?? 0, request: headers)) ?? []
        #expect(answer.isEmpty || String(decoding: answer.prefix(12), as: UTF8.self).hasPrefix("HTTP/1.1 4"))
        #expect(try ConsoleHTTP.post("/api/request", #"{"op":"ping"}"#, at: address).status == 200)
        #expect(try daemon.call(#"{"v":1,"id":1,"op":"ping"}"#).ok)
    }

    @Test func aSlowClientIsCutOff() throws {
        let (daemon, address) = try daemon { $0.console.timeoutMillis = 300 }
        defer { withExtendedLifetime(daemon) {} }
        let parts = address.split(separator: ":")
        // Half a request head, then silence: the listener closes the connection (the read returns).
        let started = ContinuousClock.now
        let answer = try HTTPProbe.exchange(host: String(parts[0]), port: UInt16(parts[1]) ?? 0, timeoutSeconds: 30, request: "GET /api/stats HTTP/1.1\r\nHost: x\r\n")
        #expect(answer.isEmpty)
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func statsAndTheConsolesOwnSettingsAnswer() throws {
        let (daemon, address) = try daemon()
        defer { withExtendedLifetime(daemon) {} }
        let stats = try ConsoleHTTP.send("GET", "/api/stats", body: "", at: address)
        #expect(stats.status == 200)
        #expect(try json(stats)["uptimeSeconds"] != nil)
        let settings = try json(try ConsoleHTTP.send("GET", "/api/console", body: "", at: address))
        #expect(settings["allowChanges"] as? Bool == false)
        let page = try HTTPProbe.request("GET", "/", at: address)
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(try HTTPProbe.request("GET", "/console/app.js", at: address).headers["content-type"] == "text/javascript; charset=utf-8")
        #expect(try HTTPProbe.request("GET", "/console/nosuch.js", at: address).status == 404)
    }

    @Test func theConsoleCanBeTurnedOff() throws {
        let (daemon, address) = try daemon { $0.console.isEnabled = false }
        defer { withExtendedLifetime(daemon) {} }
        #expect(try HTTPProbe.request("GET", "/", at: address).status == 404)
        #expect(try ConsoleHTTP.post("/api/request", #"{"op":"ping"}"#, at: address).status == 404)
        #expect(try HTTPProbe.request("GET", "/healthz", at: address).status == 200)
    }

    @Test func withCurveAndNoTokenEverythingIs401() throws {
        let secure = try CurveConsoleDaemon(token: nil)
        for path in ["/", "/console/app.js", "/api/stats"] {
            let response = try HTTPProbe.request("GET", path, at: secure.address)
            #expect(response.status == 401)
            #expect(try error(response)["code"] as? String == "unauthorized")
        }
        #expect(try ConsoleHTTP.post("/api/request", #"{"op":"ping"}"#, at: secure.address).status == 401)
        #expect(try HTTPProbe.request("GET", "/healthz", at: secure.address).status == 200)
    }

    @Test func withCurveAndATokenTheGatewayActsAsAnAdmin() throws {
        let token = "console-token-0123456789abcdef"
        let secure = try CurveConsoleDaemon(token: token)
        #expect(try ConsoleHTTP.send("GET", "/api/stats", body: "", at: secure.address).status == 401)
        let wrong = try ConsoleHTTP.send("GET", "/api/stats", body: "", headers: ["Authorization: Bearer console-token-0123456789abcdeX"], at: secure.address)
        #expect(wrong.status == 401)
        #expect(wrong.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        let bearer = ["Authorization: Bearer \(token)"]
        // Over CURVE, with the console's own admin key: stats (admins only) and a list of every namespace.
        #expect(try ConsoleHTTP.send("GET", "/api/stats", body: "", headers: bearer, at: secure.address).status == 200)
        let list = try ConsoleHTTP.send("POST", "/api/request", body: #"{"op":"list"}"#, headers: bearer, at: secure.address)
        #expect(list.status == 200)
        // The page itself carries no data: it is served without the token, and asks for it.
        #expect(try HTTPProbe.request("GET", "/", at: secure.address).status == 200)
    }

    @Test func thePageWeighsAtMost150KBAndShipsTheExamples() throws {
        #expect(ConsoleAssets.totalBytes <= 150_000)
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../examples/jobs").standardized
        let names = try FileManager.default.contentsOfDirectory(atPath: examples.path).filter { $0.hasSuffix(".json") }
        #expect(!names.isEmpty)
        for name in names {
            let shipped = try #require(ConsoleAssets.asset(named: "jobs/\(name)"), "examples/jobs/\(name) is not in the console")
            #expect(shipped.bytes == Array(try Data(contentsOf: examples.appendingPathComponent(name))), "jobs/\(name) differs from examples/jobs")
        }
    }
}

/// A daemon with CURVE and its HTTP listener, with or without a console token.
private final class CurveConsoleDaemon {
    let keys: KeyDirectory
    let running: RunningDaemon
    let address: String

    init(token: String?) throws {
        keys = try KeyDirectory()
        try keys.allow([(keys: try CurveKeyPair.generate(), name: "ops", admin: true)])
        var configuration = ServerConfiguration()
        configuration.useFreeLoopbackPorts()
        configuration.workers = 1
        configuration.httpAddress = "127.0.0.1:0"
        configuration.serverSecretKeyFile = keys.serverSecretKeyFile
        configuration.clientKeysFile = keys.clientKeysFile
        configuration.console.token = token
        running = try LayoutDaemon(configuration: configuration, logger: SecureTestDaemon.logger).start()
        address = running.httpAddress ?? ""
    }

    deinit {
        running.stop()
    }
}

/// Requests with a body and headers, which HTTPProbe.request does not send.
enum ConsoleHTTP {
    static func post(_ path: String, _ body: String, at address: String) throws -> HTTPProbe.Response {
        try send("POST", path, body: body, at: address)
    }

    static func send(_ method: String, _ path: String, body: String, headers: [String] = [], at address: String) throws -> HTTPProbe.Response {
        let parts = address.split(separator: ":")
        let head = (["\(method) \(path) HTTP/1.1", "Host: \(address)", "Connection: close", "Content-Type: application/json",
                     "Content-Length: \(body.utf8.count)"] + headers).joined(separator: "\r\n")
        let raw = try HTTPProbe.exchange(host: String(parts[0]), port: UInt16(parts[1]) ?? 0, timeoutSeconds: 15, request: head + "\r\n\r\n" + body)
        return try HTTPProbe.parse(raw)
    }
}

/// The `console.*` keys, read and checked as the other keys are.
@Suite struct ConsoleConfigurationTests {
    @Test func theKeysAreReadFromTheEnvironment() async throws {
        let configuration = try await ConfigurationLoader.load(filePath: nil, environment: [
            "LAYOUTD_CONSOLE_ALLOW_CHANGES": "true", "LAYOUTD_CONSOLE_TOKEN": "a-token-of-sixteen-chars",
            "LAYOUTD_CONSOLE_MAX_ITEMS": "500", "LAYOUTD_CONSOLE_ENABLED": "false",
        ])
        #expect(configuration.console.allowsChanges)
        #expect(configuration.console.token == "a-token-of-sixteen-chars")
        #expect(configuration.console.maxItems == 500)
        #expect(!configuration.console.isEnabled)
        let defaults = try await ConfigurationLoader.load(filePath: nil, environment: [:])
        #expect(defaults.console == ConsoleSettings())
        #expect(defaults.console.token == nil)
    }

    @Test func badValuesAreRefused() async throws {
        for (key, value) in [("LAYOUTD_CONSOLE_TOKEN", "short"), ("LAYOUTD_CONSOLE_MAX_ITEMS", "0"), ("LAYOUTD_CONSOLE_MAX_BODY_BYTES", "10"),
                             ("LAYOUTD_CONSOLE_TIMEOUT_MILLIS", "5")] {
            await #expect(throws: ConfigurationError.self, "\(key)=\(value)") {
                _ = try await ConfigurationLoader.load(filePath: nil, environment: [key: value])
            }
        }
    }
}
