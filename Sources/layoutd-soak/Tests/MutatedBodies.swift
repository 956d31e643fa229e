import Foundation
import LayoutServer
import LayoutTestKit
import ZeroMQ

/// Hostile bodies of every kind `RequestMutator` makes (byte flips, truncation, nesting 10^5 deep, 1 MB
/// strings, NaN and Infinity, lone surrogates, duplicate keys, bytes that are not UTF-8, huge counts,
/// extra frames), from 4 clients one at a time each: every one must get exactly one reply that is
/// either a success or a typed error, the daemon must keep serving, and its memory must not grow with
/// the count.
struct MutatedBodies {
    let plan: SoakPlan
    let executable: URL
    let context: Context

    static let clients = 4
    /// The bodies go in this many rounds, resident memory read after each.
    static let rounds = 4
    /// Growth of resident memory allowed over the last round (a leak of 1 KB per body would be 24 MiB
    /// over a round of 25,000). Earlier growth is the heap reaching its working size: glibc is told to
    /// keep up to 1 GiB of freed heap (docs/OPERATIONS.md, Memory).
    static let lastRoundGrowthBound = 16 << 20

    private struct ClientResult: Sendable {
        var replies = 0
        var tally = Tally()
        var byKind = Tally()
        var unexpected: [String] = []
        var missing = 0
        var extra = 0
        var mismatched = 0
        var notJSON = 0
        var failure: String?
    }

    func run(into report: inout TestReport) throws {
        let daemon = try ChildDaemon(executable: executable)
        let context = self.context
        let front = daemon.front
        let perClient = max(1, plan.mutatedBodies / Self.rounds / Self.clients)
        // A warm-up round first, so the "before" figure has the daemon's buffers in place.
        _ = concurrently(Self.clients, name: "warm-up") { index in
            Self.client(index: index, round: 0, count: min(250, perClient), endpoint: front, context: context)
        }
        var resident = [daemon.usage?.residentBytes ?? 0]
        var results: [ClientResult] = []
        for round in 1...Self.rounds {
            results += concurrently(Self.clients, name: "mutate-\(round)") { index in
                Self.client(index: index, round: round, count: perClient, endpoint: front, context: context)
            }
            resident.append(daemon.usage?.residentBytes ?? 0)
        }
        let usage = daemon.usage

        var all = ClientResult()
        for result in results {
            all.replies += result.replies
            all.tally.merge(result.tally)
            all.byKind.merge(result.byKind)
            all.unexpected += result.unexpected
            all.missing += result.missing
            all.extra += result.extra
            all.mismatched += result.mismatched
            all.notJSON += result.notJSON
            if let failure = result.failure { report.fail(failure) }
        }
        let sent = Self.rounds * Self.clients * perClient
        let alive = try SoakDealer(endpoint: front, context: context, receiveTimeoutMilliseconds: 10_000)
        defer { alive.close() }
        try alive.send(Bodies.ping(id: 1))
        let ping = try alive.receive()

        report.add("bodies", sent)
        report.add("replies", all.replies)
        report.add("codes", all.tally.value)
        report.add("kinds", all.byKind.value)
        report.add("missing", all.missing)
        report.add("extra", all.extra)
        report.add("idMismatches", all.mismatched)
        report.add("rssAfterRoundsMiB", .fields(resident.enumerated().map { ("\($0.offset)", .figure(Double($0.element) / 1_048_576)) }))
        report.add("peakRSSMiB", mebibytes: usage?.residentPeakBytes)
        report.add("clientPeakRSSMiB", mebibytes: ProcessUsage.current()?.residentPeakBytes)
        report.expect(all.replies == sent && all.missing == 0, "\(all.replies) replies to \(sent) bodies (\(all.missing) missing)")
        report.expect(all.extra == 0, "\(all.extra) replies more than bodies")
        report.expect(all.mismatched == 0, "\(all.mismatched) replies carried another request's id")
        report.expect(all.notJSON == 0, "\(all.notJSON) replies were not JSON objects")
        report.expect(all.unexpected.isEmpty, "untyped or unexpected replies: \(all.unexpected.prefix(3))")
        report.expect(ping?.ok == true, "no ping after the bodies")
        let lastRoundGrowth = (resident.last ?? 0) - resident[Self.rounds - 1]
        // Only a round of thousands of bodies says anything about a leak; a small one is noise of the heap.
        if perClient * Self.clients >= 10_000 {
            report.expect(lastRoundGrowth <= Self.lastRoundGrowthBound, "resident memory grew by \(lastRoundGrowth >> 20) MiB over the last round")
        }
        let status = daemon.terminate(waitingUpTo: .seconds(30))
        report.expect(status == 0, "layoutd exited with \(status.map(String.init) ?? "no exit") after SIGTERM")
    }

    private static func client(index: Int, round: Int, count: Int, endpoint: String, context: Context) -> ClientResult {
        var result = ClientResult()
        do {
            let dealer = try SoakDealer(endpoint: endpoint, context: context, receiveTimeoutMilliseconds: 30_000)
            defer { dealer.close() }
            var rng = SeededGenerator(seed: UInt64(round * 1_000 + index) &* 0x9E37_79B9)
            let kinds = RequestMutator.Kind.allCases
            for n in 0..<count {
                let id = (round * Self.clients + index) * 1_000_000 + n
                let kind = kinds[Int.random(in: 0..<kinds.count, using: &rng)]
                let base = RequestMutator.body(Int.random(in: 0..<RequestMutator.validBodies.count, using: &rng), id: id)
                // One or two mutations; the second may be of any kind too.
                var mutation = RequestMutator.mutate(base, kind: kind, using: &rng)
                if Bool.random(using: &rng), mutation.frames.count == 1, mutation.withDelimiter {
                    let again = kinds[Int.random(in: 0..<kinds.count, using: &rng)]
                    if again != .hugeString, again != .deepNesting, again != .hugeCount {
                        mutation = RequestMutator.mutate(mutation.frames[0], kind: again, using: &rng)
                    }
                }
                result.byKind.count(kind.rawValue)
                try dealer.send(frames: (mutation.withDelimiter ? [[]] : []) + mutation.frames)
                guard let reply = try dealer.receiveBytes() else {
                    result.missing += 1
                    continue
                }
                result.replies += 1
                check(reply, id: id, body: mutation.frames.last ?? [], kind: kind, into: &result)
            }
            // Exactly once: nothing else may be waiting.
            try dealer.setReceiveTimeout(milliseconds: 100)
            while try dealer.receiveBytes() != nil { result.extra += 1 }
        } catch {
            result.failure = "client \(index): \(error)"
        }
        return result
    }

    private static func check(_ reply: [UInt8], id: Int, body: [UInt8], kind: RequestMutator.Kind, into result: inout ClientResult) {
        // A reply that echoes a megabyte-long id is read by its head only: Foundation's parser would
        // spend more time on it than the daemon did.
        guard reply.count <= 64 * 1024 else {
            let head = reply.withUnsafeBytes { ReplyHead($0) }
            guard head.wellFormed else {
                result.notJSON += 1
                return
            }
            result.tally.count(head.ok ? "ok" : head.code ?? "untyped")
            if let code = head.code, !RequestMutator.expectedCodes.contains(code) {
                result.unexpected.append("\(kind): \(code)")
            }
            return
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any], let ok = object["ok"] as? Bool else {
            result.notJSON += 1
            return
        }
        if ok {
            result.tally.count("ok")
        } else {
            let code = (object["error"] as? [String: Any])?["code"] as? String
            result.tally.count(code ?? "untyped")
            if code.map({ !RequestMutator.expectedCodes.contains($0) }) ?? true {
                result.unexpected.append("\(kind): \(String(decoding: reply.prefix(160), as: UTF8.self))")
            }
        }
        // Where the body still carries its own id untouched and no other `id` member, the reply must
        // echo it. (A duplicate-key mutation may add a later `id`, and the last one given is the
        // request's id: the last of a repeated member wins, PROTOCOL.md.)
        let marker = Array(#""id":\#(id),"#.utf8)
        let anyID = Array(#""id":"#.utf8)
        if let echoed = object["id"] as? Int, occurrences(of: marker, in: body) == 1, occurrences(of: anyID, in: body) == 1, echoed != id {
            result.mismatched += 1
        }
    }

    private static func occurrences(of pattern: [UInt8], in bytes: [UInt8]) -> Int {
        guard bytes.count >= pattern.count, let first = pattern.first else { return 0 }
        var count = 0
        for start in 0...(bytes.count - pattern.count) where bytes[start] == first && bytes[start..<(start + pattern.count)].elementsEqual(pattern) {
            count += 1
        }
        return count
    }
}
