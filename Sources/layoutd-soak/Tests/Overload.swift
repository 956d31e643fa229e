import Foundation
import LayoutServer
import LayoutTestKit
import Synchronization
import ZeroMQ

/// A daemon with 2 workers and a queue of 4, flooded by clients that each send all their 10^6-item
/// prepares at once (half described by a count, half carrying every height: bodies of megabytes).
/// Every request must get exactly one reply (`ok` or `busy`), the daemon's resident memory must stay
/// bounded while it refuses the surplus, and afterwards it must serve as before.
struct Overload {
    let plan: SoakPlan
    let executable: URL
    let context: Context

    /// The store's bound in this test, and what the daemon's peak resident memory may reach: the store,
    /// the freed heap glibc is told to keep (1 GiB, docs/OPERATIONS.md), and the running jobs.
    static let storeBytes = 512 << 20
    static let residentBound = storeBytes + (1 << 30) + (1 << 30)

    private struct ClientResult: Sendable {
        var tally = Tally()
        var duplicates = 0
        var missing = 0
        var failure: String?
    }

    func run(into report: inout TestReport) throws {
        let daemon = try ChildDaemon(executable: executable, settings: [
            "LAYOUTD_WORKERS": "2", "LAYOUTD_QUEUE": "4", "LAYOUTD_STORE_MAX_BYTES": String(Self.storeBytes),
        ])
        let rssBefore = daemon.usage?.residentBytes
        let stopSampling = Flag()
        let processID = daemon.processID
        let sampler = BackgroundThread(name: "rss") { () -> Int in
            var peak = 0
            while !stopSampling.isSet {
                peak = max(peak, ProcessUsage.of(processID: processID)?.residentBytes ?? 0)
                Thread.sleep(forTimeInterval: 0.01)
            }
            return peak
        }
        let plan = self.plan
        let context = self.context
        let front = daemon.front
        // The bodies are made before the flood so that it arrives at once.
        let listBody = Bodies.list(id: -1, key: nil, count: plan.overloadItems)
        let started = ContinuousClock.now
        let results = concurrently(plan.overloadClients, name: "flood") { index in
            Self.flood(index: index, plan: plan, endpoint: front, context: context, listBody: listBody)
        }
        let floodSeconds = (ContinuousClock.now - started).seconds
        stopSampling.set()
        let sampledPeak = sampler.join() ?? 0

        var all = ClientResult()
        for result in results {
            all.tally.merge(result.tally)
            all.duplicates += result.duplicates
            all.missing += result.missing
            if let failure = result.failure { report.fail(failure) }
        }
        let sent = plan.overloadClients * plan.overloadRequestsPerClient
        // Recovery: a ping and a large prepare are served, and nothing is left in flight.
        let after = try SoakDealer(endpoint: front, context: context, receiveTimeoutMilliseconds: 120_000)
        defer { after.close() }
        try after.send(Bodies.ping(id: 1))
        let ping = try after.receive()
        try after.send(Bodies.mosaic(id: 2, key: "after", count: plan.overloadItems))
        let prepare = try after.receive()
        let usage = daemon.usage
        // A reply leaves a moment before its job is counted finished: look again for up to a second.
        var metrics = try daemon.metrics()
        for _ in 0..<100 where metrics["layoutd_in_flight"] != 0 || metrics["layoutd_queued"] != 0 {
            Thread.sleep(forTimeInterval: 0.01)
            metrics = try daemon.metrics()
        }

        report.add("requests", sent)
        report.add("items", plan.overloadItems)
        report.add("replies", all.tally.total)
        report.add("ok", all.tally["ok"])
        report.add("busy", all.tally["busy"])
        report.add("codes", all.tally.value)
        report.add("duplicates", all.duplicates)
        report.add("missing", all.missing)
        report.add("floodSeconds", figure: floodSeconds)
        report.add("rssBeforeMiB", mebibytes: rssBefore)
        report.add("peakRSSMiB", mebibytes: max(sampledPeak, usage?.residentPeakBytes ?? 0))
        report.add("rssAfterMiB", mebibytes: usage?.residentBytes)
        report.add("boundMiB", mebibytes: Self.residentBound)
        report.expect(all.tally.total == sent && all.missing == 0, "\(all.tally.total) replies to \(sent) requests, \(all.missing) missing")
        report.expect(all.duplicates == 0, "\(all.duplicates) requests answered twice")
        report.expect(all.tally["busy"] > 0, "the queue never filled: no busy reply")
        let unexpected = all.tally.counts.filter { $0.key != "ok" && $0.key != "busy" }
        report.expect(unexpected.isEmpty, "error replies: \(unexpected)")
        report.expect((usage?.residentPeakBytes ?? 0) <= Self.residentBound, "peak resident memory over the bound")
        report.expect(ping?.ok == true, "no ping after the flood")
        report.expect(prepare?.ok == true, "no prepare after the flood: \(prepare?.code ?? "no reply")")
        report.expect(metrics["layoutd_in_flight"] == 0 && metrics["layoutd_queued"] == 0, "requests left in flight after the flood: \(metrics["layoutd_in_flight"] ?? -1) in flight, \(metrics["layoutd_queued"] ?? -1) queued")
        let status = daemon.terminate(waitingUpTo: .seconds(30))
        report.expect(status == 0, "layoutd exited with \(status.map(String.init) ?? "no exit") after SIGTERM")
    }

    private static func flood(index: Int, plan: SoakPlan, endpoint: String, context: Context, listBody: [UInt8]) -> ClientResult {
        var result = ClientResult()
        do {
            let dealer = try SoakDealer(endpoint: endpoint, context: context, receiveTimeoutMilliseconds: 180_000)
            defer { dealer.close() }
            var pending = Set<Int>()
            for request in 0..<plan.overloadRequestsPerClient {
                let id = index * 10_000 + request
                let key = "flood-\(index)-\(request % 2)"
                if request % 2 == 0 {
                    try dealer.send(Bodies.mosaic(id: id, key: key, count: plan.overloadItems))
                } else {
                    // The shared body with this request's id and key spliced in front of its sections.
                    try dealer.send(Self.splice(listBody, id: id, key: key))
                }
                pending.insert(id)
            }
            while !pending.isEmpty {
                guard let reply = try dealer.receive() else { break }
                guard let id = reply.id, pending.remove(id) != nil else {
                    result.duplicates += 1
                    continue
                }
                result.tally.count(reply.ok ? "ok" : reply.code ?? "?")
            }
            result.missing = pending.count
            // Nothing more may come.
            try dealer.setReceiveTimeout(milliseconds: 200)
            while try dealer.receive() != nil { result.duplicates += 1 }
        } catch {
            result.failure = "client \(index): \(error)"
        }
        return result
    }

    /// `{"v":1,"id":-1,…` → `{"v":1,"id":ID,"layout":"KEY",…`.
    private static func splice(_ body: [UInt8], id: Int, key: String) -> [UInt8] {
        let head = Array(#"{"v":1,"id":-1,"#.utf8)
        return Array(#"{"v":1,"id":\#(id),"layout":"\#(key)","#.utf8) + body[head.count...]
    }
}
