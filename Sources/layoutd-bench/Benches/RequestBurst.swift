import LayoutTestKit
import ZeroMQ

/// Many requests at once over a few DEALERs, as clients reconnecting after a restart send them: body
/// `i` goes on DEALER `i % dealers.count`, at most `window` outstanding on each, every reply checked.
enum RequestBurst {
    static func send(_ bodies: [[UInt8]], over dealers: [BenchDealer], window: Int, check: (borrowing Message) -> Bool) throws {
        guard !dealers.isEmpty else { throw BenchFailure("no DEALER to send on") }
        var poller = Poller()
        var index: [Poller.Token: Int] = [:]
        for (position, dealer) in dealers.enumerated() { index[poller.register(dealer.socket)] = position }
        var next = [Int](dealers.indices)
        var received = 0
        func sendNext(on position: Int) throws {
            guard next[position] < bodies.count else { return }
            try dealers[position].send(bodies[next[position]])
            next[position] += dealers.count
        }
        for position in dealers.indices {
            for _ in 0..<Swift.max(1, window) { try sendNext(on: position) }
        }
        while received < bodies.count {
            let ready = try poller.poll(timeout: .seconds(60))
            guard !ready.isEmpty else { throw BenchFailure("no reply within 60 s (\(received) of \(bodies.count) received)") }
            for item in ready {
                guard let position = index[item.token] else { continue }
                while let reply = try dealers[position].receive(flags: .dontWait) {
                    guard check(reply) else { throw BenchFailure("unexpected reply: \(reply.preview)") }
                    received += 1
                    try sendNext(on: position)
                }
            }
        }
    }
}

extension Message {
    /// Whether `pattern` is among the frame's first `window` bytes (a reply's `"version":4`).
    func headContains(_ pattern: [UInt8], window: Int = 128) -> Bool {
        withUnsafeBytes { bytes in
            let head = bytes.prefix(window)
            guard let first = pattern.first, head.count >= pattern.count else { return false }
            for start in 0...(head.count - pattern.count) where head[start] == first {
                if head[start..<(start + pattern.count)].elementsEqual(pattern) { return true }
            }
            return false
        }
    }
}

extension Message {
    /// The first `"version":N` among the frame's first 128 bytes (a `prepare` or `update` reply's).
    var version: Int? {
        withUnsafeBytes { bytes -> Int? in
            let head = Array(bytes.prefix(128))
            let pattern = Array(#""version":"#.utf8)
            guard head.count >= pattern.count else { return nil }
            for start in 0...(head.count - pattern.count) where head[start..<(start + pattern.count)].elementsEqual(pattern) {
                let digits = head[(start + pattern.count)...].prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
                return Int(String(decoding: digits, as: UTF8.self))
            }
            return nil
        }
    }
}
