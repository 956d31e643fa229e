import Dispatch
import Foundation
import LayoutTestKit
import Synchronization
import ZeroMQ

/// Many clients changing layouts of their own, as apps do: each client is a DEALER with a key of its
/// own holding a small list, and appends one item to it at a time (an `update` of about 200 bytes; the
/// next one leaves when the reply to the last is in: one request outstanding per client). `threads`
/// threads drive the clients, each polling its share of the DEALERs.
///
/// Every `run` first prepares each client's list again (16 items, untimed), so each round starts from
/// the same layouts whatever ran before; then all threads start together and send until the time is up.
struct UpdateLoad: Sendable {
    let endpoint: String
    let context: Context
    /// Keys are `keyPrefix/user-NN/home-feed`.
    let keyPrefix: String
    let clients: Int
    let threads: Int

    static let seedItems = 16

    struct Outcome {
        var updates: Int
        /// From the common start to the last reply.
        var seconds: Double
        /// Every update's round trip, in seconds.
        var latencies: [Double]
        /// The size of an update body.
        var requestBytes: Int
        /// CPU time of the whole process (clients, daemons and libzmq) from the start to the last reply.
        var cpuSeconds: Double

        var updatesPerSecond: Double { Double(updates) / seconds }
    }

    /// One thread's share of a run.
    private struct ThreadOutcome: Sendable {
        var updates: Int
        var lastReply: ContinuousClock.Instant
        var latencies: [Double]
        var requestBytes: Int
    }

    /// What the threads of one run share.
    private final class Shared: Sendable {
        let ready = DispatchGroup()
        let done = DispatchGroup()
        let gate = DispatchSemaphore(value: 0)
        /// Set before the gate opens; nil when a thread failed to set up, which stops the others.
        let start = Mutex<ContinuousClock.Instant?>(nil)
        let outcomes = Mutex<[ThreadOutcome]>([])
        let failures = Mutex<[String]>([])
    }

    /// Sends updates from every client for `duration`, then waits for the last replies.
    func run(for duration: Duration) throws -> Outcome {
        let shared = Shared()
        let clock = ContinuousClock()
        let threadCount = Swift.max(1, Swift.min(threads, clients))
        for thread in 0..<threadCount {
            let mine = Array(stride(from: thread, to: clients, by: threadCount))
            shared.ready.enter()
            shared.done.enter()
            let worker = Thread { [self] in
                drive(clientNumbers: mine, duration: duration, shared: shared)
            }
            worker.name = "update-load-\(thread)"
            worker.start()
        }
        shared.ready.wait()
        let failedToStart = !shared.failures.withLock { $0.isEmpty }
        let cpuBefore = ProcessCPU.seconds
        let start = clock.now
        shared.start.withLock { $0 = failedToStart ? nil : start }
        for _ in 0..<threadCount { shared.gate.signal() }
        shared.done.wait()
        let cpuSeconds = ProcessCPU.seconds - cpuBefore
        if let failure = shared.failures.withLock({ $0.first }) { throw BenchFailure(failure) }
        let outcomes = shared.outcomes.withLock { $0 }
        guard let last = outcomes.map(\.lastReply).max() else { throw BenchFailure("no client thread reported") }
        return Outcome(
            updates: outcomes.reduce(0) { $0 + $1.updates }, seconds: start.duration(to: last).seconds,
            latencies: outcomes.flatMap(\.latencies), requestBytes: outcomes.map(\.requestBytes).max() ?? 0, cpuSeconds: cpuSeconds
        )
    }

    func key(_ client: Int) -> String {
        "\(keyPrefix)/user-\(client < 10 ? "0" : "")\(client)/home-feed"
    }

    /// One thread: its clients' DEALERs made, connected and their lists prepared, then the timed loop.
    private func drive(clientNumbers: [Int], duration: Duration, shared: Shared) {
        defer { shared.done.leave() }
        var dealers: [BenchDealer] = []
        defer { dealers.forEach { $0.close() } }
        var clients = clientNumbers.map { Client(key: key($0)) }
        do {
            dealers = try clients.map { _ in try BenchDealer(endpoint: endpoint, context: context) }
            for (dealer, client) in zip(dealers, clients) { try dealer.send(client.prepareBody) }
            for position in dealers.indices {
                guard let reply = try dealers[position].receive(), reply.isSuccessReply, let version = reply.version else {
                    throw BenchFailure("a client's prepare failed")
                }
                clients[position].version = version
            }
        } catch {
            shared.failures.withLock { $0.append("update load: \(error)") }
            shared.ready.leave()
            return
        }
        shared.ready.leave()
        shared.gate.wait()
        guard let start = shared.start.withLock({ $0 }) else { return }
        do {
            let outcome = try loop(dealers: dealers, clients: &clients, deadline: start + duration)
            shared.outcomes.withLock { $0.append(outcome) }
        } catch {
            shared.failures.withLock { $0.append("update load: \(error)") }
        }
    }

    /// Each client sends its next update when the reply to its last is in, until `deadline`; returns
    /// once every client's last reply is in.
    private func loop(dealers: [BenchDealer], clients: inout [Client], deadline: ContinuousClock.Instant) throws -> ThreadOutcome {
        let clock = ContinuousClock()
        var poller = Poller()
        var index: [Poller.Token: Int] = [:]
        for (position, dealer) in dealers.enumerated() { index[poller.register(dealer.socket)] = position }
        var latencies: [Double] = []
        var updates = 0
        var outstanding = 0
        var lastReply = clock.now
        var requestBytes = 0
        func send(_ position: Int) throws {
            let body = clients[position].nextUpdateBody()
            requestBytes = Swift.max(requestBytes, body.count)
            clients[position].sentAt = clock.now
            try dealers[position].send(body)
            outstanding += 1
        }
        for position in dealers.indices { try send(position) }
        while outstanding > 0 {
            let ready = try poller.poll(timeout: .seconds(60))
            guard !ready.isEmpty else { throw BenchFailure("no reply within 60 s (\(outstanding) outstanding)") }
            for item in ready {
                guard let position = index[item.token] else { continue }
                while let reply = try dealers[position].receive(flags: .dontWait) {
                    let now = clock.now
                    guard reply.isSuccessReply else { throw BenchFailure("an update failed: \(reply.preview)") }
                    latencies.append(clients[position].sentAt.duration(to: now).seconds)
                    clients[position].items += 1
                    clients[position].version += 1
                    outstanding -= 1
                    updates += 1
                    lastReply = now
                    if now < deadline { try send(position) }
                }
            }
        }
        return ThreadOutcome(updates: updates, lastReply: lastReply, latencies: latencies, requestBytes: requestBytes)
    }
}

/// One client: its key, the items and version its list has, and when its outstanding update left.
private struct Client {
    let key: String
    var items = UpdateLoad.seedItems
    var version = 0
    var nextID = 0
    var sentAt = ContinuousClock.now

    init(key: String) {
        self.key = key
    }

    /// A list of `seedItems` items, 375 pt wide. Without ids: an insert into a section with ids copies
    /// the section's ids (a retain each), which would make an update cost more the longer its list grew.
    var prepareBody: [UInt8] {
        let heights = (0..<UpdateLoad.seedItems).map { String(44 + $0 * 8) }.joined(separator: ",")
        return Array(#"{"v":1,"id":"setup","op":"prepare","layout":"\#(key)","bounds":{"width":375,"height":812},"spec":{"type":"list"},"sections":[{"heights":[\#(heights)]}]}"#.utf8)
    }

    /// One item appended at the end of the list, at most once (`ifVersion`), under a UUID-like request
    /// id as clients make them: about 200 bytes.
    mutating func nextUpdateBody() -> [UInt8] {
        nextID += 1
        let item = items
        let id = Self.requestID(key: key, number: nextID)
        return Array(#"{"v":1,"id":"\#(id)","op":"update","layout":"\#(key)","ifVersion":\#(version),"updates":[{"insert":[0,\#(item)],"item":{"height":\#(44 + item % 200)}}]}"#.utf8)
    }

    /// 36 characters in a UUID's shape, from the key and a counter.
    private static func requestID(key: String, number: Int) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        let high = String(hash, radix: 16)
        let low = String(UInt64(truncatingIfNeeded: number) &* 0x9E37_79B9_7F4A_7C15, radix: 16)
        let digits = Array((String(repeating: "0", count: 16 - high.count) + high + String(repeating: "0", count: 16 - low.count) + low).utf8)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if [8, 12, 16, 20].contains(index) { text += "-" }
            text.unicodeScalars.append(Unicode.Scalar(digit))
        }
        return text
    }
}
