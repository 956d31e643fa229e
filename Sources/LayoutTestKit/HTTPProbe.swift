#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal blocking HTTP/1.1 client over a plain TCP socket, for the operations listener in tests and
/// the soak suite: one request per connection (`Connection: close`), IPv4 only, every wait bounded.
public enum HTTPProbe {
    public struct Response: Sendable {
        public var status: Int
        /// Header names in lower case.
        public var headers: [String: String]
        public var body: String
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// `method path` against `address` (`127.0.0.1:5558`).
    public static func request(_ method: String = "GET", _ path: String, at address: String, timeoutSeconds: Int = 5) throws(Failure) -> Response {
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else {
            throw Failure(description: "not host:port: \(address)")
        }
        let host = String(address[..<colon])
        let raw = try exchange(host: host, port: port, timeoutSeconds: timeoutSeconds,
                               request: "\(method) \(path) HTTP/1.1\r\nHost: \(address)\r\nConnection: close\r\n\r\n")
        return try parse(raw, hasBody: method != "HEAD")
    }

    /// Sends `request` as it is and reads until the server closes: for malformed requests too.
    /// With `readsReply` false it closes as soon as the bytes are sent (a peer that hangs up).
    public static func exchange(host: String, port: UInt16, timeoutSeconds: Int = 5, request: String, readsReply: Bool = true) throws(Failure) -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else {
            throw Failure(description: "not an IPv4 address: \(host)")
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect \(host):\(port): errno \(errno)") }
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += n
        }
        guard readsReply else { return [] }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                // A reset after the whole response arrived still leaves a usable response.
                if errno == ECONNRESET, !received.isEmpty { break }
                throw Failure(description: "recv: errno \(errno)")
            }
            received += chunk[0..<n]
        }
        return received
    }

    /// Status line, headers and a `Content-Length` body (none for a response to HEAD).
    public static func parse(_ raw: [UInt8], hasBody: Bool = true) throws(Failure) -> Response {
        let separator = Array("\r\n\r\n".utf8)
        guard let end = raw.indices.dropLast(3).first(where: { raw[$0..<($0 + 4)].elementsEqual(separator) }) else {
            throw Failure(description: "no complete response head in \(raw.count) bytes")
        }
        let head = String(decoding: raw[..<end], as: UTF8.self).split(separator: "\r\n").map(String.init)
        let statusParts = head.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line: \(head.first ?? "")")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = String(line[line.index(after: colon)...]).trimmed(" ")
        }
        var body = Array(raw[(end + 4)...])
        if !hasBody {
            body = []
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            guard body.count >= length else { throw Failure(description: "body cut short: \(body.count) of \(length) bytes") }
            body = Array(body.prefix(length))
        }
        return Response(status: status, headers: headers, body: String(decoding: body, as: UTF8.self))
    }
}

extension String {
    /// Without leading and trailing copies of `character`.
    fileprivate func trimmed(_ character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}
