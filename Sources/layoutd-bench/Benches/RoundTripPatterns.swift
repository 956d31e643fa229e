import LayoutTestKit
import ZeroMQ

/// The client patterns of the round-trip benchmark; each one is run unchanged against the daemon and
/// against the echo server.
enum RoundTripPatterns {
    /// Accepts or rejects a reply; it sees every reply, so it must stay cheap.
    typealias ReplyCheck = (borrowing Message) -> Bool

    /// One request outstanding: send, wait for the reply, repeat. Returns every round trip's latency
    /// in seconds, in order.
    static func sequential(on dealer: BenchDealer, body: [UInt8], count: Int, check: ReplyCheck) throws -> [Double] {
        let clock = ContinuousClock()
        var latencies: [Double] = []
        latencies.reserveCapacity(count)
        for _ in 0..<count {
            let start = clock.now
            try dealer.send(body)
            guard let reply = try dealer.receive() else { throw BenchFailure("no reply") }
            let elapsed = start.duration(to: clock.now)
            guard check(reply) else { throw BenchFailure("unexpected reply: \(reply.preview)") }
            latencies.append(elapsed.seconds)
        }
        return latencies
    }

    /// `window` requests outstanding, spread evenly over `dealers` and served by this one thread: each
    /// reply is answered by the next request on the same DEALER until `total` round trips are done.
    /// Returns the seconds from the first send to the last reply.
    static func pipelined(
        on dealers: [BenchDealer], body: [UInt8], total: Int, window: Int, check: ReplyCheck
    ) throws -> Double {
        var poller = Poller()
        let tokens = dealers.map { poller.register($0.socket) }
        let perDealer = Swift.max(1, window / dealers.count)
        let clock = ContinuousClock()
        let start = clock.now
        var sent = 0
        var received = 0
        for dealer in dealers {
            for _ in 0..<perDealer where sent < total {
                try dealer.send(body)
                sent += 1
            }
        }
        while received < total {
            let ready = try poller.poll(timeout: .seconds(60))
            guard !ready.isEmpty else { throw BenchFailure("no reply within 60 s (\(received) of \(total) received)") }
            for item in ready {
                guard let index = tokens.firstIndex(of: item.token) else { continue }
                let dealer = dealers[index]
                while let reply = try dealer.receive(flags: .dontWait) {
                    guard check(reply) else { throw BenchFailure("unexpected reply: \(reply.preview)") }
                    received += 1
                    if sent < total {
                        try dealer.send(body)
                        sent += 1
                    }
                }
            }
        }
        return start.duration(to: clock.now).seconds
    }
}

extension Message {
    /// The first bytes of the frame as text, for error messages.
    var preview: String {
        withUnsafeBytes { String(decoding: $0.prefix(200), as: UTF8.self) }
    }
}
