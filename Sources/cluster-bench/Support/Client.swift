import LayoutTestKit
import ZeroMQ

/// One client DEALER, `[empty delimiter, body]` per request as REQ and LayoutClient frame them.
final class Client {
    let socket: Socket

    init(endpoint: String, context: Context, timeoutMilliseconds: Int32 = 60_000) throws {
        socket = try Socket(.dealer, in: context)
        try socket.set(.receiveTimeout, timeoutMilliseconds)
        try socket.set(.sendTimeout, timeoutMilliseconds)
        try socket.connect(endpoint)
    }

    func send(_ body: [UInt8]) throws {
        guard try socket.send([], flags: .sendMore), try socket.send(body) else { throw BenchFailure("send timed out") }
    }

    /// The next reply's body; nil with `.dontWait` when none is waiting.
    func receive(flags: ReceiveFlags = []) throws -> Message? {
        guard let delimiter = try socket.receive(flags: flags) else {
            if flags.contains(.dontWait) { return nil }
            throw BenchFailure("no reply within the timeout")
        }
        guard delimiter.more, let body = try socket.receive(flags: .dontWait) else { throw BenchFailure("reply is not [delimiter, body]") }
        return body
    }

    func call(_ body: String) throws -> [UInt8] {
        try send(Array(body.utf8))
        guard let reply = try receive() else { throw BenchFailure("no reply") }
        return reply.bytes
    }

    func close() { socket.close() }

    /// Round trips one at a time; each one's seconds.
    func sequential(_ body: [UInt8], count: Int) throws -> [Double] {
        let clock = ContinuousClock()
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            let start = clock.now
            try send(body)
            guard let reply = try receive() else { throw BenchFailure("no reply") }
            let elapsed = start.duration(to: clock.now).seconds
            guard reply.isSuccess else { throw BenchFailure("unexpected reply: \(String(decoding: reply.bytes.prefix(200), as: UTF8.self))") }
            samples.append(elapsed)
        }
        return samples
    }

    /// `window` requests outstanding until `total` are answered; the seconds it took.
    func pipelined(_ body: [UInt8], total: Int, window: Int) throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        var sent = 0
        var received = 0
        while sent < min(window, total) {
            try send(body)
            sent += 1
        }
        while received < total {
            guard let reply = try receive() else { throw BenchFailure("no reply") }
            guard reply.isSuccess else { throw BenchFailure("unexpected reply: \(String(decoding: reply.bytes.prefix(200), as: UTF8.self))") }
            received += 1
            if sent < total {
                try send(body)
                sent += 1
            }
        }
        return start.duration(to: clock.now).seconds
    }
}

extension Message {
    /// Whether the reply is `{"v":1,"id":…,"ok":true…`: `"ok":true` within its first bytes.
    var isSuccess: Bool {
        withUnsafeBytes { bytes in
            let head = bytes.prefix(96)
            let pattern = Array(#""ok":true"#.utf8)
            guard head.count >= pattern.count else { return false }
            for start in 0...(head.count - pattern.count) where head[head.startIndex + start] == pattern[0] {
                if head[(head.startIndex + start)..<(head.startIndex + start + pattern.count)].elementsEqual(pattern) { return true }
            }
            return false
        }
    }
}
