import Foundation
import LayoutTestKit
import ZeroMQ

/// Connections, subscriptions and garbage that come and go: the daemon must not keep what they leave
/// behind (descriptors, subscriptions) and must keep serving.
struct Churn {
    let plan: SoakPlan
    let executable: URL
    let context: Context

    /// Descriptors the daemon may hold beyond its count at the start once everything is closed
    /// (libzmq opens and closes its own as connections come and go).
    static let descriptorSlack = 16

    /// DEALERs that connect, send a ping and close at once (half without waiting for the reply), and
    /// plain TCP connections that close without a word.
    func connections(into report: inout TestReport) throws {
        let daemon = try ChildDaemon(executable: executable)
        let descriptorsBefore = daemon.usage?.openFileDescriptors ?? 0
        let context = self.context
        let front = daemon.front
        let perThread = plan.connections / 4
        let started = ContinuousClock.now
        let answered = concurrently(4, name: "connect") { thread -> (answered: Int, expected: Int, failure: String?) in
            var answered = 0
            var expected = 0
            do {
                for n in 0..<perThread {
                    let dealer = try SoakDealer(endpoint: front, context: context, receiveTimeoutMilliseconds: 10_000)
                    try dealer.send(Bodies.ping(id: n))
                    if n % 2 == 0 {
                        expected += 1
                        if let reply = try dealer.receive(), reply.ok, reply.id == n { answered += 1 }
                    }
                    dealer.close()
                }
            } catch {
                return (answered, expected, "thread \(thread): \(error)")
            }
            return (answered, expected, nil)
        }
        let port = UInt16(front.split(separator: ":").last ?? "") ?? 0
        for _ in 0..<(plan.connections / 4) {
            _ = try? HTTPProbe.exchange(host: "127.0.0.1", port: port, timeoutSeconds: 1, request: "", readsReply: false)
        }
        let seconds = (ContinuousClock.now - started).seconds
        for result in answered { if let failure = result.failure { report.fail(failure) } }
        let replies = answered.reduce(0) { $0 + $1.answered }
        let expected = answered.reduce(0) { $0 + $1.expected }
        let descriptorsAfter = try settledDescriptors(daemon, atMost: descriptorsBefore + Self.descriptorSlack)
        let ping = try ping(daemon)

        report.add("connections", perThread * 4 + plan.connections / 4)
        report.add("waitedReplies", replies)
        report.add("expectedReplies", expected)
        report.add("descriptorsBefore", descriptorsBefore)
        report.add("descriptorsAfter", descriptorsAfter)
        report.add("connectionsPerSecond", figure: Double(perThread * 4 + plan.connections / 4) / seconds)
        report.expect(replies == expected, "\(expected - replies) pings on short connections went unanswered")
        report.expect(descriptorsAfter <= descriptorsBefore + Self.descriptorSlack, "descriptors went from \(descriptorsBefore) to \(descriptorsAfter)")
        report.expect(ping, "no ping after the connections")
        try stop(daemon, &report)
    }

    /// Rounds of SUB sockets that subscribe to a few prefixes, drop some, and close, while events are
    /// published; afterwards no subscription may be left, and a new subscriber gets its events.
    func subscriptions(into report: inout TestReport) throws {
        let daemon = try ChildDaemon(executable: executable)
        let publisher = try SoakDealer(endpoint: daemon.front, context: context)
        defer { publisher.close() }
        let topics = ["", "invalidated:", "batch:", "invalidated:storm", "invalidated:x", "x", "batch:storm"]
        var rng = SeededGenerator(seed: 0x5AB)
        var subscriptionsMade = 0
        var peak = 0.0
        var nextID = 0
        let rounds = 4
        for _ in 0..<rounds {
            var sockets: [Socket] = []
            for _ in 0..<(plan.subscriberSockets / rounds) {
                let socket = try Socket(.sub, in: context)
                try socket.set(.linger, 0)
                var chosen: [String] = []
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    let topic = topics[Int.random(in: 0..<topics.count, using: &rng)]
                    try socket.subscribe(topic)
                    chosen.append(topic)
                    subscriptionsMade += 1
                }
                try socket.connect(daemon.events)
                if Bool.random(using: &rng), let topic = chosen.first { try socket.unsubscribe(topic) }
                sockets.append(socket)
            }
            for _ in 0..<20 {
                nextID += 1
                try publisher.send(Bodies.mosaic(id: nextID, key: "storm", count: 3))
                _ = try publisher.receive()
            }
            peak = max(peak, try daemon.metric("layoutd_subscribers"))
            for socket in sockets { socket.close() }
        }
        var left = -1.0
        for _ in 0..<300 {
            left = try daemon.metric("layoutd_subscribers")
            if left == 0 { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        // A newcomer still gets its events.
        let subscriber = try Socket(.sub, in: context)
        defer { subscriber.close() }
        try subscriber.set(.receiveTimeout, 5_000)
        try subscriber.subscribe("invalidated:storm")
        try subscriber.connect(daemon.events)
        for _ in 0..<300 where try daemon.metric("layoutd_subscribers") < 1 {
            Thread.sleep(forTimeInterval: 0.01)
        }
        try publisher.send(Bodies.mosaic(id: nextID + 1, key: "storm", count: 3))
        _ = try publisher.receive()
        let event = try subscriber.receiveMultipart()

        report.add("sockets", plan.subscriberSockets)
        report.add("subscriptions", subscriptionsMade)
        report.add("peakSubscribers", Int(peak))
        report.add("subscribersLeft", Int(left))
        report.expect(left == 0, "\(left) subscriptions left after every subscriber closed")
        report.expect(event?.count == 2, "a new subscriber got no event")
        try stop(daemon, &report)
    }

    /// Random multipart garbage to the stats socket (with and without a delimiter, over its 64 KiB
    /// limit too) and random bytes over plain TCP to every port; then every socket still answers.
    func statsGarbage(into report: inout TestReport) throws {
        let daemon = try ChildDaemon(executable: executable)
        let descriptorsBefore = daemon.usage?.openFileDescriptors ?? 0
        var rng = SeededGenerator(seed: 0x6A4B)
        let dealer = try SoakDealer(endpoint: daemon.stats, context: context, receiveTimeoutMilliseconds: 50)
        var sent = 0
        for n in 0..<plan.statsGarbageMessages {
            var frames: [[UInt8]] = []
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let length = n % 200 == 199 ? 70_000 : Int.random(in: 0..<300, using: &rng)
                frames.append((0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) })
            }
            if Bool.random(using: &rng) { frames.insert([], at: 0) }
            try dealer.send(frames: frames)
            sent += 1
        }
        // Answers (to whatever looked like a request) are drained, not checked: garbage gets stats. The
        // message over 64 KiB made the daemon drop the connection (and the answers queued on it); the
        // DEALER reconnects within 100 ms.
        try dealer.setReceiveTimeout(milliseconds: 500)
        var answers = 0
        while try dealer.receiveBytes() != nil { answers += 1 }
        dealer.close()
        var rawConnections = 0
        for endpoint in [daemon.front, daemon.events, daemon.stats] {
            let port = UInt16(endpoint.split(separator: ":").last ?? "") ?? 0
            for _ in 0..<max(1, plan.statsGarbageMessages / 40) {
                let bytes = (0..<Int.random(in: 1...4096, using: &rng)).map { _ in Character(Unicode.Scalar(UInt8.random(in: 1...127, using: &rng))) }
                _ = try? HTTPProbe.exchange(host: "127.0.0.1", port: port, timeoutSeconds: 1, request: String(bytes), readsReply: false)
                rawConnections += 1
            }
        }
        // The console's HTTP gateway: random bodies to /api/request each get an answer (a protocol error
        // for garbage, never a change: it is read-only), and bytes that are not HTTP cost a connection only.
        let httpPort = UInt16(daemon.http.split(separator: ":").last ?? "") ?? 0
        var gatewayAnswers = 0
        let gatewayRequests = max(1, plan.statsGarbageMessages / 40)
        for n in 0..<gatewayRequests {
            let body = String((0..<Int.random(in: 0...2048, using: &rng)).map { _ in Character(Unicode.Scalar(UInt8.random(in: 32...126, using: &rng))) })
            let request = n % 2 == 0
                ? "POST /api/request HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                : body
            let raw = (try? HTTPProbe.exchange(host: "127.0.0.1", port: httpPort, timeoutSeconds: 15, request: request)) ?? []
            if String(decoding: raw.prefix(9), as: UTF8.self) == "HTTP/1.1 " { gatewayAnswers += 1 }
        }
        report.add("gatewayAnswers", gatewayAnswers)
        report.expect(gatewayAnswers >= (gatewayRequests + 1) / 2, "the console's gateway left a request with a body unanswered")
        let stats = try StatsProbe.request("stats", endpoint: daemon.stats, context: context)
        let metrics = try StatsProbe.request("metrics", endpoint: daemon.stats, context: context)
        let health = try HTTPProbe.request("GET", "/healthz", at: daemon.http)
        let ping = try ping(daemon)
        let descriptorsAfter = try settledDescriptors(daemon, atMost: descriptorsBefore + Self.descriptorSlack)

        report.add("garbageMessages", sent)
        report.add("answers", answers)
        report.add("rawConnections", rawConnections)
        report.add("descriptorsBefore", descriptorsBefore)
        report.add("descriptorsAfter", descriptorsAfter)
        let statsObject = try? JSONSerialization.jsonObject(with: Data(stats)) as? [String: Any]
        report.expect(statsObject?["uptimeSeconds"] != nil, "stats did not answer after the garbage")
        report.expect(String(decoding: metrics, as: UTF8.self).contains("layoutd_uptime_seconds"), "metrics did not answer after the garbage")
        report.expect(health.status == 200, "/healthz answered \(health.status)")
        report.expect(ping, "no ping after the garbage")
        report.expect(descriptorsAfter <= descriptorsBefore + Self.descriptorSlack, "descriptors went from \(descriptorsBefore) to \(descriptorsAfter)")
        try stop(daemon, &report)
    }

    private func ping(_ daemon: ChildDaemon) throws -> Bool {
        let dealer = try SoakDealer(endpoint: daemon.front, context: context, receiveTimeoutMilliseconds: 10_000)
        defer { dealer.close() }
        try dealer.send(Bodies.ping(id: 42))
        return try dealer.receive()?.ok == true
    }

    /// The daemon's open descriptors once closed connections are gone (libzmq closes them in the background).
    private func settledDescriptors(_ daemon: ChildDaemon, atMost bound: Int) throws -> Int {
        var count = Int.max
        for _ in 0..<200 {
            count = daemon.usage?.openFileDescriptors ?? 0
            if count <= bound { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return count
    }

    private func stop(_ daemon: ChildDaemon, _ report: inout TestReport) throws {
        let status = daemon.terminate(waitingUpTo: .seconds(30))
        report.expect(status == 0, "layoutd exited with \(status.map(String.init) ?? "no exit") after SIGTERM")
    }
}

/// One request to the stats socket over REQ.
enum StatsProbe {
    static func request(_ body: String, endpoint: String, context: Context) throws -> [UInt8] {
        let socket = try Socket(.req, in: context)
        defer { socket.close() }
        try socket.set(.receiveTimeout, 5_000)
        try socket.set(.linger, 0)
        try socket.connect(endpoint)
        _ = try socket.send(body)
        guard let reply = try socket.receiveBytes() else { throw SoakFailure("no answer to \(body) on the stats socket") }
        return reply
    }
}
