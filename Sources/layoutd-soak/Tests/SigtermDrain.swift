import Foundation
import LayoutTestKit
import ZeroMQ

/// SIGTERM to the real binary while clients send and a 4 M-item prepare runs. Every request the daemon
/// read before it closed must be answered: on one connection requests are read in order, so a request
/// without a reply before one with a reply is a lost admitted request. Clients stop sending once they
/// are told "the daemon is shutting down". The daemon must exit 0 within its grace period.
struct SigtermDrain {
    let plan: SoakPlan
    let executable: URL
    let context: Context

    static let graceSeconds = 30.0

    private struct ClientResult: Sendable {
        var sent = 0
        var tally = Tally()
        var shuttingDown = 0
        /// Unanswered requests sent before the last answered one.
        var gaps = 0
        /// Unanswered requests after the last answered one.
        var tail = 0
        var failure: String?
    }

    func run(into report: inout TestReport) throws {
        let daemon = try ChildDaemon(executable: executable, settings: ["LAYOUTD_SHUTDOWN_GRACE_SECONDS": String(Int(Self.graceSeconds))])
        let context = self.context
        let front = daemon.front
        let plan = self.plan
        let exited = Flag()
        let bigAnswered = Flag()
        let big = BackgroundThread(name: "big") { () -> ReplyHead? in
            guard let dealer = try? SoakDealer(endpoint: front, context: context, receiveTimeoutMilliseconds: Int32(Self.graceSeconds * 1000) + 30_000) else { return nil }
            defer { dealer.close() }
            // Every height spelled out: a body of megabytes to decode before the layout, so the job is
            // still running when the signal comes.
            guard (try? dealer.send(Bodies.list(id: 7, key: "big", count: plan.sigtermPrepareItems))) != nil else { return nil }
            let reply = (try? dealer.receive()) ?? nil
            bigAnswered.set()
            return reply
        }
        // SIGTERM only once the large prepare is admitted and the clients are sending.
        var admitted = false
        for _ in 0..<2_000 where !admitted {
            admitted = try daemon.metric("layoutd_in_flight") >= 1
        }
        guard admitted else { throw SoakFailure("the large prepare was never admitted") }
        let sending = Counter()
        let clients = BackgroundThread(name: "clients") { () -> [ClientResult] in
            concurrently(plan.sigtermClients, name: "sender") { index in
                Self.send(index: index, endpoint: front, context: context, daemonExited: exited, sending: sending)
            }
        }
        // The signal once every client has had some answers (24 requests out, 8 at a time; within a second).
        for _ in 0..<1_000 where sending.value < plan.sigtermClients {
            Thread.sleep(forTimeInterval: 0.001)
        }
        let runningAtSignal = !bigAnswered.isSet
        let signalled = ContinuousClock.now
        let status = daemon.terminate(waitingUpTo: .seconds(Self.graceSeconds + 15))
        let exitSeconds = (ContinuousClock.now - signalled).seconds
        exited.set()
        let results = clients.join() ?? []
        let bigReply = big.join() ?? nil

        var all = ClientResult()
        for result in results {
            all.sent += result.sent
            all.tally.merge(result.tally)
            all.shuttingDown += result.shuttingDown
            all.gaps += result.gaps
            all.tail += result.tail
            if let failure = result.failure { report.fail(failure) }
        }
        report.add("clients", plan.sigtermClients)
        report.add("prepareItems", plan.sigtermPrepareItems)
        report.add("prepareRunningAtSignal", .bool(runningAtSignal))
        report.add("prepareAnswer", .string(bigReply.map { $0.ok ? "ok" : $0.code ?? "?" } ?? "none"))
        report.add("sent", all.sent)
        report.add("answered", all.tally.total)
        report.add("codes", all.tally.value)
        report.add("shuttingDownReplies", all.shuttingDown)
        report.add("lostAdmitted", all.gaps)
        report.add("unansweredAtClose", all.tail)
        report.add("exitStatus", .integer(status.map(Int.init)))
        report.add("exitSeconds", figure: exitSeconds)
        report.add("graceSeconds", figure: Self.graceSeconds)
        report.expect(bigReply?.ok == true, "the large prepare was not answered ok")
        report.expect(all.gaps == 0, "\(all.gaps) requests read by the daemon were never answered")
        // Without a job to drain, the daemon closes at once and what is still on the wire gets no reply
        // (docs/OPERATIONS.md, Stop): the drain is what this test is about.
        report.expect(runningAtSignal, "the prepare finished before the signal: nothing was drained")
        if runningAtSignal {
            report.expect(all.tail == 0, "\(all.tail) requests were left unanswered at close")
            report.expect(all.shuttingDown > 0, "no client was told the daemon is shutting down")
        }
        report.expect(status == 0, "layoutd exited with \(status.map(String.init) ?? "no exit")")
        report.expect(exitSeconds <= Self.graceSeconds, "exit took \(exitSeconds) s, over the grace period")
    }

    /// Pings and small layouts, 8 in flight, until the daemon says it is shutting down; then the
    /// outstanding replies are awaited until the daemon has exited.
    private static func send(index: Int, endpoint: String, context: Context, daemonExited: Flag, sending: Counter) -> ClientResult {
        var result = ClientResult()
        do {
            let dealer = try SoakDealer(endpoint: endpoint, context: context, receiveTimeoutMilliseconds: 100)
            defer { dealer.close() }
            var answered = Set<Int>()
            var toldToStop = false
            var quietAfterExit = 0
            while true {
                while !toldToStop, !daemonExited.isSet, result.sent - answered.count < 8 {
                    let id = result.sent
                    try dealer.send(id % 2 == 0 ? Bodies.ping(id: id) : Bodies.mosaic(id: id, op: "layout", key: nil, count: 100))
                    result.sent += 1
                    if result.sent == 24 { sending.increment() }
                }
                if answered.count == result.sent, toldToStop || daemonExited.isSet { break }
                guard let reply = try dealer.receive() else {
                    // Once the daemon is gone, a few quiet receives end the wait.
                    if daemonExited.isSet {
                        quietAfterExit += 1
                        if quietAfterExit >= 10 { break }
                    }
                    continue
                }
                guard let id = reply.id, id < result.sent, answered.insert(id).inserted else {
                    result.failure = "client \(index): a reply to no outstanding request"
                    continue
                }
                result.tally.count(reply.ok ? "ok" : reply.code ?? "?")
                if reply.shuttingDown {
                    result.shuttingDown += 1
                    toldToStop = true
                }
            }
            let lastAnswered = answered.max() ?? -1
            for id in 0..<result.sent where !answered.contains(id) {
                if id < lastAnswered { result.gaps += 1 } else { result.tail += 1 }
            }
        } catch {
            result.failure = "client \(index): \(error)"
        }
        return result
    }
}
