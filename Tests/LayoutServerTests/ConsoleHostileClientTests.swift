import Foundation
import LayoutTestKit
import Testing
@testable import LayoutServer

/// What the HTTP fuzzer (scripts/fuzz-http, docs/FUZZING.md) found in the listener, each over real
/// loopback sockets: requests that are not HTTP get the protocol's error body, and a client that pipelines
/// requests without reading the answers costs the daemon one queued answer, not one per request.
@Suite(.serialized) struct ConsoleHostileClientTests {
    private func error(in raw: [UInt8]) throws -> (status: Int, code: String?) {
        let response = try HTTPProbe.parse(raw)
        #expect(response.headers["content-type"]?.hasPrefix("application/json") == true, "\(response)")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
        #expect(body["v"] as? Int == 1)
        #expect(body["ok"] as? Bool == false)
        let error = try #require(body["error"] as? [String: Any])
        #expect(error["message"] is String)
        return (response.status, error["code"] as? String)
    }

    @Test func requestsThatAreNotHTTPGetTheProtocolsErrorBody() throws {
        let daemon = try TestDaemon { $0.httpAddress = "127.0.0.1:0" }
        let address = try #require(daemon.running.httpAddress)
        let parts = address.split(separator: ":")
        let malformed = [
            "FOO / HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /api/stats HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
            "POST /api/request HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{}",
            "POST /api/request HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        ]
        for request in malformed {
            let raw = try HTTPProbe.exchange(host: String(parts[0]), port: UInt16(parts[1]) ?? 0, timeoutSeconds: 15, request: request)
            let (status, code) = try error(in: raw)
            #expect(status == 400, "\(request.debugDescription)")
            #expect(code == "invalid_request", "\(request.debugDescription)")
        }
        // Over the decoder's 80 KiB of request line and headers.
        let big = "GET /api/stats HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "v", count: 82 * 1024))\r\n\r\n"
        let (status, code) = try error(in: try HTTPProbe.exchange(host: String(parts[0]), port: UInt16(parts[1]) ?? 0, timeoutSeconds: 15, request: big))
        #expect(status == 431)
        #expect(code == "too_large")
        #expect(try HTTPProbe.request("GET", "/readyz", at: address).status == 200)
    }

    /// Garbage longer than one read: the decoder reports it again on the next read, which used to close the
    /// connection before the gateway's answer came back (0 answers in 10 tries).
    @Test func aRequestFollowedByBytesThatAreNotHTTPIsAnsweredFirst() throws {
        let daemon = try TestDaemon { $0.httpAddress = "127.0.0.1:0" }
        let address = try #require(daemon.running.httpAddress)
        let parts = address.split(separator: ":")
        let body = #"{"v":1,"id":7,"op":"ping"}"#
        let garbage = "NOT HTTP\r\n" + String(repeating: "x", count: 256 * 1024)
        let request = "POST /api/request HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)\(garbage)"
        let raw = try HTTPProbe.exchange(host: String(parts[0]), port: UInt16(parts[1]) ?? 0, timeoutSeconds: 15, request: request)
        let text = String(decoding: raw, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK"), "\(text.prefix(300))")
        let ping = try #require(text.range(of: #"{"v":1,"id":7,"ok":true"#), "\(text.prefix(300))")
        if let refusal = text.range(of: "HTTP/1.1 400 Bad Request") {
            #expect(ping.lowerBound < refusal.lowerBound)
        }
    }

    /// Before the fix the listener answered every pipelined request at once, queuing megabytes of answers
    /// per connection in memory (about 100 MB in 20 s with a debug build and a 1 KB asset).
    @Test func aClientThatPipelinesAndNeverReadsIsBoundedAndClosed() throws {
        let port = try LayoutdProcess.freePort()
        let daemon = try LayoutdProcess(arguments: ["--http", "127.0.0.1:\(port)"], environment: ["LAYOUTD_CONSOLE_TIMEOUT_MILLIS": "1000"])
        let address = "127.0.0.1:\(port)"
        try poll(for: .seconds(60), "layoutd ready") { (try? HTTPProbe.request("GET", "/readyz", at: address))?.status == 200 }
        let before = try #require(residentBytes(of: daemon.process.processIdentifier))

        let client = try NonReadingClient(port: UInt16(port))
        defer { client.close() }
        // About 11 KB of answer per 50-byte request: without a bound, the answers would take gigabytes.
        let sent = client.sendUntilStalled(Array(String(repeating: "GET /console/layouts.js HTTP/1.1\r\nHost: x\r\n\r\n", count: 64).utf8), limit: 32 << 20)
        #expect(sent > 0)
        let after = try #require(residentBytes(of: daemon.process.processIdentifier))
        #expect(after - before < 64 << 20, "resident memory grew by \(after - before) bytes for \(sent) bytes of unread requests")
        // The answer held for it waits at most console.timeoutMillis; then the connection is closed.
        try poll(for: .seconds(60), "the non-reading client closed") { client.isClosedByPeer() }
        #expect(try HTTPProbe.request("GET", "/readyz", at: address).status == 200)
    }

    private func poll(for bound: Duration, _ what: String, _ condition: () throws -> Bool) throws {
        let deadline = ContinuousClock.now + bound
        while ContinuousClock.now < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TestFailure("\(what): not within \(bound)")
    }

    private func residentBytes(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }
}

/// A TCP client with a small receive buffer that sends and never reads.
private final class NonReadingClient {
    let fd: Int32

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        var size: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("connect: errno \(errno)") }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// Sends `chunk` over and over until `limit` bytes are sent, the daemon has taken nothing for 3 s (it
    /// stopped reading) or closed the connection, or 30 s have passed; the bytes sent.
    func sendUntilStalled(_ chunk: [UInt8], limit: Int) -> Int {
        var sent = 0
        let started = ContinuousClock.now
        var lastProgress = started
        while sent < limit, ContinuousClock.now - lastProgress < .seconds(3), ContinuousClock.now - started < .seconds(30) {
            let n = chunk.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                sent += n
                lastProgress = .now
            } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                Thread.sleep(forTimeInterval: 0.01)
            } else {
                break
            }
        }
        return sent
    }

    /// Whether the daemon has closed the connection, seen without reading (reading would let it answer):
    /// closed with our requests unread, it resets the connection.
    func isClosedByPeer() -> Bool {
        // POLLRDHUP, which Glibc's module does not export.
        let peerHungUp: Int16 = 0x2000
        var entry = pollfd(fd: fd, events: peerHungUp, revents: 0)
        guard poll(&entry, 1, 0) == 1 else { return false }
        return entry.revents & (Int16(POLLHUP | POLLERR) | peerHungUp) != 0
    }

    func close() {
        Glibc.close(fd)
    }
}
