import Foundation
import LayoutServer
import LayoutTestKit
import LayoutWire
import Testing
@testable import LayoutCluster

struct Simulation {
    var random: SeededGenerator
    /// Even seeds run a broker with a journal of its recipes, odd ones without.
    let cluster: SimulatedCluster
    /// Whether workers have direct endpoints, clocks of their own and links that can be cut, and
    /// clients read keys straight from their owners (`ClusterSimulation+DirectReads`): three seeds in
    /// four, not those found before (whose walks stay as they were found).
    let directReads: Bool
    /// a, b, c; and d, which joins later and wins keys (the FENCE path), with direct reads.
    let names: [String]
    /// The clients reading directly, each with its route table; the first makes the changes.
    var clients: [DirectClient] = []
    /// How direct reads were answered: `ok`, `behind`, `moved`, and the `moved` of a lapsed lease and of
    /// a fence apart (the sweep prints them).
    var directReadOutcomes: [String: Int] = [:]
    var models: [String: KeyModel] = [:]
    var reads: [(envelope: [[UInt8]], key: String, issuedAt: Int)] = []
    var history: [String] = []
    var problem: String?
    var nextID = 0
    /// Keys whose only copy was a recipe in the broker's memory when it restarted.
    var lostWithTheBroker = 0
    /// Drops sent and not answered, by key; keys whose drop was acknowledged, at the version it gave.
    var drops: [String: [[UInt8]]] = [:]
    var dropped: [String: Int] = [:]

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        // Half the seeds keep a dropped worker's keys for its return for 2 s (`cluster.dropGraceMillis`).
        // Half have workers whose stores hold two or three layouts, and evict (not the seeds found before
        // they did, which keep the stores they were found with).
        let evicting = (seed / 4) % 2 == 1 && !ClusterSimulationTests.foundBeforeEvictions.contains(seed)
        cluster = SimulatedCluster(
            journaled: seed % 2 == 0, dropGraceNanos: (seed / 2) % 2 == 1 ? 2_000_000_000 : 0, workerStoreBytes: evicting ? 2_000 : 1 << 30
        )
        directReads = seed % 4 != 3 && (ClusterSimulationTests.foundWithDirectReads.contains(seed) || !ClusterSimulationTests.regressionSeeds.contains(seed))
        names = directReads ? ["a", "b", "c", "d"] : ["a", "b", "c"]
        guard directReads else {
            for name in names { cluster.join(name) }
            return
        }
        startDirectReads(seed: seed)
    }

    mutating func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
    mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }

    static let keys = ["k0", "k1", "k2", "k3"]

    mutating func step() {
        let keys = Self.keys
        if directReads, chance(35) {
            directStep()
            check()
            return
        }
        switch random.next() % 100 {
        case 0..<10:
            let key = pick(keys)
            guard models[key] == nil else { return }
            let count = 3 + Int(random.next() % 5)
            let body = prepareBody(key, count: count, id: "p-\(key)")
            history.append("prepare \(key) (\(count) items)")
            let envelope = cluster.request(body)
            cluster.deliverAll()
            guard let reply = cluster.reply(for: envelope), reply["ok"] as? Bool == true,
                  let version = (reply["result"] as? [String: Any])?["version"] as? Int else {
                history.append("  not prepared: \(String(describing: cluster.reply(for: envelope)))")
                return
            }
            if let droppedAt = dropped.removeValue(forKey: key), version <= droppedAt {
                problem = "\(key) prepared again at v\(version), after it was dropped at v\(droppedAt): versions went back"
                return
            }
            var model = KeyModel(heights: (0..<count).map { 10 + $0 % 7 }, version: version)
            model.states[version] = model.heights
            models[key] = model
            if !clients.isEmpty { clients[0].saw(key, version) }
        case 42..<45:
            let key = pick(keys)
            guard let model = models[key], model.pending == nil, model.unknown == nil, drops[key] == nil else { return }
            drops[key] = cluster.request(#"{"id":"d","op":"drop","layout":"\#(key)","ifVersion":\#(model.version)}"#)
            history.append("drop \(key) at v\(model.version)")
        case 10..<42:
            let key = pick(keys)
            guard var model = models[key], model.pending == nil, model.unknown == nil, drops[key] == nil else { return }
            nextID += 1
            let insert = KeyModel.Insert(id: "n\(nextID)", height: 20 + nextID % 97)
            let body = #"{"id":"u","op":"update","layout":"\#(key)","ifVersion":\#(model.version),"updates":[{"insert":[0,0],"item":{"id":"\#(insert.id)","height":\#(insert.height)}}]}"#
            model.pending = (cluster.request(body), insert, model.version)
            models[key] = model
            history.append("update \(key) +\(insert) at v\(model.version)")
        case 45..<70:
            let key = pick(keys)
            if let model = models[key] {
                reads.append((cluster.request(queryBody(key, id: "r")), key, model.version))
                history.append("query \(key)")
            } else if let droppedAt = dropped[key] {
                // Issued at minus the drop's version: a dropped key must not answer that version or an
                // earlier one (it answers unknown_layout, or a later version once it is prepared again).
                reads.append((cluster.request(queryBody(key, id: "r")), key, -droppedAt))
                history.append("query dropped \(key)")
            }
        case 70..<85:
            let name = pick(names)
            history.append("deliver some to \(name)")
            cluster.deliver(to: name, limit: 1 + Int(random.next() % 3))
        case 88..<93:
            let name = pick(names)
            guard cluster.record(of: name)?.isConnected == true, reachableWorkers > 1 else { return }
            let fault = random.next() % 3
            if fault == 0 {
                history.append("kill -9 \(name), restarted empty")
                cluster.kill(name)
                cluster.replaceProcess(name)
            } else if fault == 1, !cluster.orders(to: name).isEmpty {
                // Defect 1: it applies what it was running, but its answer never arrives.
                history.append("\(name) runs its next order and is cut off before answering (keeps its copies)")
                cluster.runNextThenCutOff(name)
            } else {
                history.append("pause \(name) past liveness (keeps its copies)")
                cluster.kill(name)
            }
        case 97..<98:
            // The broker restarts: requests in flight get no answer (a client times out: a change's
            // outcome is unknown, a read is sent again by nobody).
            // Some worker joins the restarted broker (one cut off from it does not see it go).
            guard !directReads || reachableWorkers > 0 else { return }
            history.append("broker kill -9 and restart")
            absorbEvictions()
            cluster.restartBroker()
            for key in models.keys.sorted() {
                guard var model = models[key], let pending = model.pending else { continue }
                if cluster.reply(for: pending.envelope) == nil {
                    model.pending = nil
                    model.unknown = (pending.insert, pending.fromVersion)
                    models[key] = model
                    history.append("  \(key) +\(pending.insert): timed out")
                }
            }
            reads.removeAll { cluster.reply(for: $0.envelope) == nil }
            // Without a journal, a key no worker holds as acknowledged lived only in the broker's recipes
            // and rebuilds in flight, which die with it: lost without an event. Counted, not hidden. A
            // worker may still hold a stale copy whose RELEASE died with the broker; that copy comes back
            // (the weaker guarantee without a journal, docs/OPERATIONS.md). With one, the restarted broker
            // has the recipes, and their epochs rank stale copies below them.
            // So may a cut-off worker's copy of a later epoch (a rebuild it never answered) than the faithful
            // copy a connected worker reports: with nothing journaled, the restarted broker cannot tell
            // which is the acknowledged one, so the key's fate is not checked from here.
            for key in models.keys.sorted() where cluster.journaled == nil && !names.contains(where: { name in
                guard cluster.record(of: name)?.isConnected == true, let kept = copy(of: key, keptBy: name), let model = models[key] else { return false }
                let faithful = (kept.version == model.version && model.states[kept.version] == kept.heights)
                    || model.unknown.map { kept.version == $0.fromVersion + 1 && kept.heights == [$0.insert.height] + model.heights } == true
                let epoch = cluster.workers[name]?.store.summaries().first { $0.key == LayoutKey(name: key) }?.epoch ?? 0
                let outranked = names.contains { other in
                    guard cluster.record(of: other)?.isConnected != true,
                          let summary = cluster.workers[other]?.store.summaries().first(where: { $0.key == LayoutKey(name: key) }) else { return false }
                    return (summary.epoch, summary.version) > (epoch, kept.version)
                }
                return faithful && !outranked
            }) {
                models[key] = nil
                lostWithTheBroker += 1
                history.append("  \(key) lost with the broker's recipes (no journal)")
            }
            // A drop not answered: its outcome is unknown, and the key is left out from here.
            for key in drops.keys.sorted() where cluster.reply(for: drops[key] ?? []) == nil {
                drops[key] = nil
                models[key] = nil
                history.append("  drop of \(key): timed out")
            }
            // Without a journal, a dropped key is forgotten with the broker: a cut-off worker's copy of it
            // may come back (the weaker guarantee without a journal).
            if cluster.journaled == nil { dropped.removeAll() }
        case 85..<88, 99:
            if directReads {
                passTime()
            } else {
                history.append("1 s passes")
                cluster.advance(by: 1_000_000_000)
            }
        case 98..<99:
            let name = pick(names)
            let count = 1 + Int(random.next() % 3)
            cluster.workers[name]?.restoresToRefuse = count
            history.append("\(name) refuses its next \(count) rebuilds (queue full)")
        case 93..<97:
            let name = pick(names)
            guard cluster.record(of: name)?.isConnected != true else { return }
            history.append("join \(name)")
            cluster.join(name)
        default:
            history.append("deliver all")
            cluster.deliverAll()
        }
        check()
        // Replaying one seed: where each key is after every step.
        if ClusterSimulationTests.only != nil {
            for key in Set(models.keys).union(dropped.keys).sorted() { history.append("    [\(key): \(copies(of: key))]") }
        }
    }

    /// Everything delivered and every worker back: the last reads are answered.
    mutating func settle() {
        // Every link heals (a worker its broker gave up on hears DISCONNECT, and joins below).
        if directReads {
            for name in names { cluster.heal(name) }
            cluster.deliverAll()
        }
        for name in names {
            cluster.workers[name]?.restoresToRefuse = 0
            if cluster.record(of: name)?.isConnected != true { cluster.join(name) }
        }
        cluster.deliverAll()
        check()
        guard problem == nil else { return }
        for key in models.keys.sorted() {
            reads.append((cluster.request(queryBody(key, id: "final")), key, models[key]?.version ?? 0))
        }
        cluster.deliverAll()
        check()
        guard problem == nil else { return }
        for key in models.keys.sorted() {
            let holders = names.filter { name in
                cluster.record(of: name)?.isConnected == true && cluster.workers[name]?.store.entry(forKey: LayoutKey(name: key)) != nil
            }
            if holders.count > 1 { problem = "\(key) is kept by \(holders) at once" }
        }
    }

    /// The version and cell heights of `key` as worker `name` keeps it (read through its handler).
    private func copy(of key: String, keptBy name: String) -> (version: Int, heights: [Int])? {
        guard let worker = cluster.workers[name], worker.store.entry(forKey: LayoutKey(name: key)) != nil,
              let (_, reply) = worker.run(.request(RequestToken(0), HeldBody(Array(queryBody(key, id: "peek").utf8)), caller: nil)),
              let object = try? JSONSerialization.jsonObject(with: Data(reply.bytes)) as? [String: Any],
              let result = object["result"] as? [String: Any], let version = result["version"] as? Int else { return nil }
        return (version, Self.heights(in: result))
    }

    /// The cells' heights in item order.
    static func heights(in result: [String: Any]) -> [Int] {
        ((result["attributes"] as? [[String: Any]]) ?? [])
            .filter { $0["kind"] as? String == "cell" }
            .sorted { ($0["item"] as? Int ?? 0) < ($1["item"] as? Int ?? 0) }
            .map { Int(($0["height"] as? Double) ?? -1) }
    }

    /// Where `key` is kept: each worker's copy (version, epoch), and the broker's record.
    func copies(of key: String) -> String {
        let layoutKey = LayoutKey(name: key)
        let held = names.compactMap { name -> String? in
            guard let summary = cluster.workers[name]?.store.summaries().first(where: { $0.key == layoutKey }) else { return nil }
            return "\(name) v\(summary.version) e\(summary.epoch)\(cluster.record(of: name)?.isConnected == true ? "" : " (cut off)")"
        }
        let record = cluster.core.keys[layoutKey].map { record in
            let standby = record.standby.map { " standby \($0.worker.name)\($0.ready ? " built" : $0.token == nil ? " queued" : " sent")" } ?? ""
            return "owner \(record.owner?.name ?? "none") v\(record.version) e\(record.epoch) \(record.phase)\(standby)"
        } ?? "no record"
        let journaled = cluster.journaled.map { $0[layoutKey].map { "v\($0.base + $0.bodies.count - 1) e\($0.epoch)\($0.bodies.first == RecipeBook.unprotectedMarker ? " unprotected" : "")" } ?? "none" }
        let recipe = cluster.core.recipes.recipe(for: layoutKey).map { "v\($0.lastVersion)" } ?? "none"
        return "copies: \(held.joined(separator: ", ")); broker: \(record), epoch \(cluster.core.epoch); recipe \(recipe); journal \(journaled ?? "off")"
    }

    /// An eviction the broker believed (its owner reported it) ends the key as a drop does: it must not
    /// answer that version or an earlier one again. One it did not believe (a stale copy's) changes
    /// nothing, and the reads check that the key still answers. Taken at every check, and before a broker
    /// restart (a step that ends early skips its check: seed 282887, an eviction the old broker believed
    /// was counted after the restart had forgotten, as it may without a journal, what that broker knew).
    private mutating func absorbEvictions() {
        for eviction in cluster.believedEvictions {
            let key = eviction.key.name
            history.append("  \(key) evicted by \(eviction.worker) at v\(eviction.version)")
            models[key] = nil
            dropped[key] = max(dropped[key] ?? 0, eviction.version)
            reads.removeAll { $0.key == key && $0.issuedAt >= 0 }
        }
        cluster.believedEvictions = []
    }

    /// Resolves the answered changes and reads against the model.
    private mutating func check() {
        absorbEvictions()
        for key in drops.keys.sorted() {
            guard let envelope = drops[key], let reply = cluster.reply(for: envelope) else { continue }
            drops[key] = nil
            if reply["ok"] as? Bool == true {
                let version = (reply["result"] as? [String: Any])?["version"] as? Int ?? -1
                models[key] = nil
                dropped[key] = version
                // Reads sent while the drop was on its way answer before or after it: not checked.
                reads.removeAll { $0.key == key && $0.issuedAt >= 0 }
                history.append("  drop of \(key) acknowledged at v\(version)")
            } else {
                let code = (reply["error"] as? [String: Any])?["code"] as? String ?? "?"
                history.append("  drop of \(key): \(code)")
                // Outcome unknown: the key is left out from here.
                if code == "unavailable" {
                    models[key] = nil
                    reads.removeAll { $0.key == key && $0.issuedAt >= 0 }
                }
            }
        }
        for key in models.keys.sorted() {
            guard var model = models[key], let pending = model.pending, let reply = cluster.reply(for: pending.envelope) else { continue }
            model.pending = nil
            if reply["ok"] as? Bool == true {
                let version = (reply["result"] as? [String: Any])?["version"] as? Int ?? -1
                guard version == pending.fromVersion + 1 else {
                    problem = "\(key): update from v\(pending.fromVersion) acknowledged at v\(version)"
                    return
                }
                model.apply(pending.insert, at: version)
                history.append("  \(key) +\(pending.insert) acknowledged at v\(version)")
                // The client that made it has seen that version (its next direct read names it).
                if !clients.isEmpty { clients[0].saw(key, version) }
            } else {
                let code = (reply["error"] as? [String: Any])?["code"] as? String ?? "?"
                history.append("  \(key) +\(pending.insert): \(code)")
                if code == "unavailable" { model.unknown = (pending.insert, pending.fromVersion) }
                if code == "unknown_layout" { models[key] = nil; continue }
            }
            models[key] = model
        }
        var remaining: [(envelope: [[UInt8]], key: String, issuedAt: Int)] = []
        // In the order their answers came (a read sent again after its worker died is answered after
        // reads issued later): versions must not go backwards in that order.
        for read in reads.sorted(by: { (cluster.answerPlace(of: $0.envelope) ?? .max) < (cluster.answerPlace(of: $1.envelope) ?? .max) }) {
            guard let reply = cluster.reply(for: read.envelope) else {
                remaining.append(read)
                continue
            }
            if read.issuedAt < 0 {
                let droppedAt = -read.issuedAt
                if reply["ok"] as? Bool == true, let version = (reply["result"] as? [String: Any])?["version"] as? Int, version <= droppedAt {
                    problem = "\(read.key), dropped at v\(droppedAt), answered v\(version): a dropped layout came back; \(copies(of: read.key))"
                    return
                }
                continue
            }
            guard var model = models[read.key] else { continue }
            guard reply["ok"] as? Bool == true, let result = reply["result"] as? [String: Any], let version = result["version"] as? Int else {
                let code = (reply["error"] as? [String: Any])?["code"] as? String ?? "?"
                if directReads, code == "unavailable", (reply["error"] as? [String: Any])?["message"] as? String == "no worker is serving; retry later" {
                    // Heartbeats lost behind a cut link can make the broker judge a worker dead beside the
                    // faults the walk makes (which leave one worker reachable): none may be left a while.
                    history.append("  read \(read.key): no worker is serving")
                    continue
                }
                if code == "busy" {
                    // A worker's queue full (its credit spent on requests not delivered yet): refused
                    // without running, as a loaded worker may; the client would try again.
                    history.append("  read \(read.key): busy")
                    continue
                }
                if code == "unknown_layout", cluster.published.contains(where: { EventSummary(scanning: $0.body).layout == read.key && EventSummary(scanning: $0.body).reason == .lost }) {
                    history.append("  \(read.key) lost (published)")
                    models[read.key] = nil
                    continue
                }
                problem = "read of \(read.key) failed: \(reply); live: \(cluster.core.live.map(\.name)), workers: \(cluster.core.workers.map { "\($0.name) \($0.state)" }); \(copies(of: read.key)); journaled: \(cluster.journaled?[LayoutKey(name: read.key)].map { "v\($0.base + $0.bodies.count - 1) e\($0.epoch)" } ?? "no")"
                return
            }
            let cells = Self.heights(in: result)
            history.append("  read \(read.key) (issued at v\(read.issuedAt)): v\(version)")
            guard version >= read.issuedAt, version >= model.highestSeen else {
                problem = "\(read.key): read v\(version), issued at v\(read.issuedAt), after v\(model.highestSeen) was seen: went backwards; \(copies(of: read.key))"
                return
            }
            model.highestSeen = version
            if let heights = model.states[version] {
                guard cells == heights else {
                    problem = "\(read.key): v\(version) has cells of heights \(cells), the acknowledged changes make \(heights); \(copies(of: read.key))"
                    return
                }
            } else if let unknown = model.unknown, version == unknown.fromVersion + 1, unknown.fromVersion == model.version,
                      cells == [unknown.insert.height] + model.heights {
                model.apply(unknown.insert, at: version)
                model.unknown = nil
                history.append("  \(read.key) +\(unknown.insert) (unknown) resolved: applied at v\(version)")
            } else {
                problem = "\(read.key): read v\(version) with \(cells) cells; acknowledged v\(model.version), unknown \(String(describing: model.unknown)); \(copies(of: read.key))"
                return
            }
            models[read.key] = model
        }
        reads = remaining
    }
}
