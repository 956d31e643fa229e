import LayoutTestKit
import ZeroMQ

/// A client DEALER that frames bodies as `[empty delimiter, body]` (as REQ and `LayoutClient` do) and
/// reads back the last frame of each reply. Belongs to the thread that made it.
final class SoakDealer {
    let socket: Socket

    init(endpoint: String, context: Context, receiveTimeoutMilliseconds: Int32 = 30_000) throws {
        socket = try Socket(.dealer, in: context)
        try socket.set(.receiveTimeout, receiveTimeoutMilliseconds)
        try socket.set(.sendTimeout, 30_000)
        try socket.set(.linger, 0)
        try socket.connect(endpoint)
    }

    func send(_ body: [UInt8]) throws {
        guard try socket.send(multipart: [[], body]) else { throw SoakFailure("send timed out") }
    }

    func send(_ body: String) throws {
        try send(Array(body.utf8))
    }

    /// Sends these frames as one message, as they are.
    func send(frames: [[UInt8]]) throws {
        guard try socket.send(multipart: frames) else { throw SoakFailure("send timed out") }
    }

    /// The last frame of the next reply, or nil after the receive timeout (or at once with `.dontWait`).
    func receive(flags: ReceiveFlags = []) throws -> ReplyHead? {
        guard let message = try socket.receiveMultipartMessage(flags: flags) else { return nil }
        return message.last.withUnsafeBytes { ReplyHead($0) }
    }

    /// The last frame of the next reply, whole.
    func receiveBytes(flags: ReceiveFlags = []) throws -> [UInt8]? {
        guard let message = try socket.receiveMultipartMessage(flags: flags) else { return nil }
        return message.last.bytes
    }

    func setReceiveTimeout(milliseconds: Int32) throws {
        try socket.set(.receiveTimeout, milliseconds)
    }

    func close() {
        socket.close()
    }
}

/// What the suite needs of a reply, read from its first bytes without parsing the rest (a query reply
/// can hold thousands of frames): `{"v":1,"id":…,"ok":…` and, for a failure, `"error":{"code":"…"`.
struct ReplyHead: Sendable {
    /// A numeric id, as the suite's own requests carry; nil for a string or null id.
    var id: Int?
    var ok: Bool
    /// The error code of a failure.
    var code: String?
    /// Whether the reply began as every reply must.
    var wellFormed: Bool
    /// A `busy` because the daemon is shutting down (not because its queue is full).
    var shuttingDown = false
    /// The layout version of a success that carries one (`prepare`, `update`, …), from its first bytes.
    var version: Int?
    var byteCount: Int

    init(_ bytes: UnsafeRawBufferPointer) {
        byteCount = bytes.count
        var cursor = ByteCursor(bytes)
        id = nil
        ok = false
        code = nil
        wellFormed = false
        guard cursor.skip(#"{"v":1,"id":"#) else { return }
        if cursor.peek == UInt8(ascii: "-") || cursor.peek.map({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) == true {
            // Any number an id may be; only a plain integer is one of the suite's own.
            let start = cursor.offset
            let number = cursor.integer()
            let end = cursor.offset
            cursor.skipNumberRest()
            id = cursor.offset == end && start != end ? number : nil
        } else if cursor.skip("null") {
        } else if !cursor.skipString() {
            return
        }
        if cursor.skip(#","ok":true"#) {
            ok = true
            wellFormed = true
            version = cursor.integer(after: #""version":"#, within: 256)
        } else if cursor.skip(#","ok":false,"error":{"code":""#) {
            code = cursor.stringBody()
            wellFormed = code != nil
            if code == "busy" { shuttingDown = cursor.contains(Self.shuttingDownMarker) }
        }
    }

    /// `busy` with the message the daemon gives while it shuts down.
    static let shuttingDownMarker = Array("the daemon is shutting down".utf8)
}

/// A forward-only reader of a reply's bytes.
private struct ByteCursor {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func skip(_ literal: String) -> Bool {
        let pattern = Array(literal.utf8)
        guard offset + pattern.count <= bytes.count else { return false }
        for (index, byte) in pattern.enumerated() where bytes[offset + index] != byte { return false }
        offset += pattern.count
        return true
    }

    var peek: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    /// Skips what is left of a JSON number (sign, fraction, exponent).
    mutating func skipNumberRest() {
        let numberBytes = Array("+-0123456789.eE".utf8)
        while offset < bytes.count, numberBytes.contains(bytes[offset]) { offset += 1 }
    }

    mutating func integer() -> Int? {
        var value = 0
        var digits = 0
        while offset < bytes.count, bytes[offset] >= UInt8(ascii: "0"), bytes[offset] <= UInt8(ascii: "9"), digits < 18 {
            value = value * 10 + Int(bytes[offset] - UInt8(ascii: "0"))
            offset += 1
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    /// Skips a JSON string (with escapes).
    mutating func skipString() -> Bool {
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { return false }
        offset += 1
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: "\\"): offset += 2
            case UInt8(ascii: "\""):
                offset += 1
                return true
            default: offset += 1
            }
        }
        return false
    }

    /// The integer after the first `pattern` within `limit` bytes from here.
    func integer(after pattern: String, within limit: Int) -> Int? {
        let needle = Array(pattern.utf8)
        let end = min(bytes.count, offset + limit)
        guard end - offset >= needle.count else { return nil }
        for start in offset...(end - needle.count) where needle.indices.allSatisfy({ bytes[start + $0] == needle[$0] }) {
            var cursor = self
            cursor.offset = start + needle.count
            return cursor.integer()
        }
        return nil
    }

    /// Whether `pattern` occurs from here on.
    func contains(_ pattern: [UInt8]) -> Bool {
        guard bytes.count - offset >= pattern.count else { return false }
        for start in offset...(bytes.count - pattern.count)
        where bytes[start] == pattern[0] && pattern.indices.allSatisfy({ bytes[start + $0] == pattern[$0] }) {
            return true
        }
        return false
    }

    /// The characters up to the next quote (error codes hold no escapes).
    mutating func stringBody() -> String? {
        let start = offset
        while offset < bytes.count, bytes[offset] != UInt8(ascii: "\"") { offset += 1 }
        guard offset < bytes.count else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
    }
}

/// Counts by key (reply codes), printed as a JSON object.
struct Tally: Sendable {
    private(set) var counts: [String: Int] = [:]

    mutating func count(_ key: String, by amount: Int = 1) {
        counts[key, default: 0] += amount
    }

    subscript(key: String) -> Int { counts[key] ?? 0 }

    var total: Int { counts.values.reduce(0, +) }

    /// A JSON object, keys sorted.
    var value: BenchValue {
        .fields(counts.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })
    }

    mutating func merge(_ other: Tally) {
        for (key, count) in other.counts { counts[key, default: 0] += count }
    }
}

/// Reading one figure out of a JSON body without parsing it.
enum ByteReader {
    /// The integer after the first `pattern` in `bytes`.
    static func integer(after pattern: String, in bytes: UnsafeRawBufferPointer) -> Int? {
        ByteCursor(bytes).integer(after: pattern, within: bytes.count)
    }
}
