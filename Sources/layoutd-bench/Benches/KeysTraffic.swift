import LayoutTestKit
import ZeroMQ

/// Requests to many keys over a few DEALERs, `window` outstanding on each: body `i` is made when it is
/// sent (10^6 bodies are never held at once). A `busy` answer is counted and its request sent again,
/// so every request is answered in the end; any other failure stops the run.
struct KeysTraffic {
    let dealers: [BenchDealer]
    let window: Int

    /// The `busy` answers seen.
    private(set) var busy = 0

    init(endpoint: String, clients: Int, window: Int, context: Context) throws {
        dealers = try (0..<clients).map { _ in try BenchDealer(endpoint: endpoint, context: context) }
        self.window = window
    }

    func close() {
        dealers.forEach { $0.close() }
    }

    /// Sends `count` requests, body `i` from `body(i)` (its `id` must be `i`), and waits for all answers.
    mutating func run(count: Int, body: (Int) -> [UInt8]) throws {
        var poller = Poller()
        var positions: [Poller.Token: Int] = [:]
        for (position, dealer) in dealers.enumerated() { positions[poller.register(dealer.socket)] = position }
        var next = 0
        var retries: [Int] = []
        var answered = 0
        func sendNext(on position: Int) throws {
            if let retry = retries.popLast() {
                try dealers[position].send(body(retry))
            } else if next < count {
                try dealers[position].send(body(next))
                next += 1
            }
        }
        for position in dealers.indices {
            for _ in 0..<Swift.max(1, window) { try sendNext(on: position) }
        }
        while answered < count {
            let ready = try poller.poll(timeout: .seconds(60))
            guard !ready.isEmpty else { throw BenchFailure("no reply within 60 s (\(answered) of \(count) answered)") }
            for item in ready {
                guard let position = positions[item.token] else { continue }
                while let reply = try dealers[position].receive(flags: .dontWait) {
                    if reply.isSuccessReply {
                        answered += 1
                    } else if reply.headContains(Array(#""code":"busy""#.utf8), window: 200), let id = reply.numericID {
                        busy += 1
                        retries.append(id)
                    } else {
                        throw BenchFailure("unexpected reply: \(reply.preview)")
                    }
                    try sendNext(on: position)
                }
            }
        }
    }
}

extension Message {
    /// The `"id":N` of a reply whose id is a number.
    var numericID: Int? {
        withUnsafeBytes { bytes -> Int? in
            let head = Array(bytes.prefix(64))
            let pattern = Array(#""id":"#.utf8)
            guard head.count >= pattern.count else { return nil }
            for start in 0...(head.count - pattern.count) where head[start..<(start + pattern.count)].elementsEqual(pattern) {
                let digits = head[(start + pattern.count)...].prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
                return Int(String(decoding: digits, as: UTF8.self))
            }
            return nil
        }
    }
}
