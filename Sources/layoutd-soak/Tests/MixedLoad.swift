import Dispatch
import Foundation
import LayoutTestKit
import ZeroMQ

/// Many clients at once, each sending a seeded mix of requests one at a time: pings, rect queries on a
/// prepared large layout, small `layout` jobs, and updates of a layout of its own. Every request must
/// get its reply (`busy` is counted apart); latency and throughput are measured over all of them.
struct MixedLoad {
    let plan: SoakPlan
    let executable: URL
    let context: Context

    private struct ClientResult: Sendable {
        var latencies: [Double] = []
        var tally = Tally()
        var lost = 0
        var stale = 0
        var malformed = 0
        var failure: String?
    }

    func run(into report: inout TestReport) throws {
        let daemon = try ChildDaemon(executable: executable)
        let setup = try SoakDealer(endpoint: daemon.front, context: context, receiveTimeoutMilliseconds: 120_000)
        defer { setup.close() }
        try setup.send(Bodies.mosaic(id: 1, key: "big", count: plan.mixedLayoutItems))
        guard let prepared = try setup.receiveBytes(),
              let object = try JSONSerialization.jsonObject(with: Data(prepared)) as? [String: Any],
              let result = object["result"] as? [String: Any],
              let size = result["contentSize"] as? [String: Any], let contentHeight = size["height"] as? Double
        else { throw SoakFailure("the large layout was not prepared") }

        let plan = self.plan
        let context = self.context
        let front = daemon.front
        let started = ContinuousClock.now
        let results = concurrently(plan.mixedClients, name: "mixed") { index in
            Self.client(index: index, plan: plan, endpoint: front, context: context, contentHeight: Int(contentHeight))
        }
        let elapsed = (ContinuousClock.now - started).seconds

        var all = ClientResult()
        for result in results {
            all.latencies += result.latencies
            all.tally.merge(result.tally)
            all.lost += result.lost
            all.stale += result.stale
            all.malformed += result.malformed
            if let failure = result.failure { report.fail(failure) }
        }
        let sent = plan.mixedClients * plan.mixedRequestsPerClient
        let latency = LatencySummary(all.latencies)
        report.add("clients", plan.mixedClients)
        report.add("requests", sent)
        report.add("layoutItems", plan.mixedLayoutItems)
        report.add("replies", all.tally.total)
        report.add("lost", all.lost)
        report.add("busy", all.tally["busy"])
        report.add("codes", all.tally.value)
        report.add("p50Micros", figure: latency.p50)
        report.add("p99Micros", figure: latency.p99)
        report.add("maxMicros", figure: latency.max)
        report.add("requestsPerSecond", figure: Double(all.tally.total) / elapsed)
        report.add("daemonRSSMiB", mebibytes: daemon.usage?.residentBytes)
        report.expect(all.lost == 0, "\(all.lost) requests got no reply")
        report.expect(all.malformed == 0, "\(all.malformed) replies were not well formed")
        report.expect(all.stale == 0, "\(all.stale) replies answered an earlier request")
        report.expect(all.tally.total == sent, "\(all.tally.total) replies to \(sent) requests")
        let unexpected = all.tally.counts.filter { $0.key != "ok" && $0.key != "busy" }
        report.expect(unexpected.isEmpty, "error replies: \(unexpected)")
        let status = daemon.terminate(waitingUpTo: .seconds(30))
        report.expect(status == 0, "layoutd exited with \(status.map(String.init) ?? "no exit") after SIGTERM")
    }

    private static func client(index: Int, plan: SoakPlan, endpoint: String, context: Context, contentHeight: Int) -> ClientResult {
        var result = ClientResult()
        result.latencies.reserveCapacity(plan.mixedRequestsPerClient)
        do {
            let dealer = try SoakDealer(endpoint: endpoint, context: context)
            defer { dealer.close() }
            let key = "client-\(index)"
            // The client's own layout for its updates: 50 items, so deletes never run out.
            try dealer.send(Bodies.list(id: 0, key: key, count: 50))
            guard let head = try dealer.receive(), head.ok else { throw SoakFailure("client \(index): its layout was not prepared") }
            var rng = SeededGenerator(seed: UInt64(index) &+ 0x5EED)
            var inserted = false
            for request in 1...plan.mixedRequestsPerClient {
                let body: String
                switch Int.random(in: 0..<100, using: &rng) {
                case 0..<30: body = Bodies.ping(id: request)
                case 30..<70: body = Bodies.query(id: request, key: "big", y: Int.random(in: 0...max(0, contentHeight - 800), using: &rng))
                case 70..<85: body = Bodies.mosaic(id: request, op: "layout", key: nil, count: 100)
                default:
                    body = inserted ? Bodies.deleteFirst(id: request, key: key) : Bodies.insertFirst(id: request, key: key)
                    inserted.toggle()
                }
                let sent = DispatchTime.now().uptimeNanoseconds
                try dealer.send(body)
                var answered = false
                while !answered {
                    guard let reply = try dealer.receive() else {
                        result.lost += 1
                        break
                    }
                    guard reply.wellFormed else {
                        result.malformed += 1
                        answered = true
                        continue
                    }
                    guard reply.id == request else {
                        result.stale += 1
                        continue
                    }
                    answered = true
                    result.latencies.append(Double(DispatchTime.now().uptimeNanoseconds - sent) / 1000)
                    result.tally.count(reply.ok ? "ok" : reply.code ?? "?")
                }
            }
        } catch {
            result.failure = "client \(index): \(error)"
        }
        return result
    }
}
