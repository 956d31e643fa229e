import Foundation
import LayoutServer
@testable import LayoutCluster

/// The two-broker walk's invariants, checked as each answer arrives (`StandbySimulation`).
extension StandbySimulation {
    mutating func check() {
        guard problem == nil else { return }
        for key in changes.keys.sorted() {
            guard let change = changes[key] else { continue }
            let ticket = change.ticket
            if ticket.reply == nil, pair.abandoned(ticket) {
                changes[key] = nil
                unknowns[key, default: []].append((change.insert, change.fromVersion))
                history.append("  \(key) +\(change.insert): its broker died with it (outcome unknown)")
                clients[0].broker = 1 - ticket.broker
                continue
            }
            guard let reply = ticket.reply else { continue }
            changes[key] = nil
            guard var model = models[key] else { continue }
            guard reply["ok"] as? Bool == true, let version = (reply["result"] as? [String: Any])?["version"] as? Int else {
                let error = reply["error"] as? [String: Any]
                let code = error?["code"] as? String ?? "?"
                history.append("  \(key) +\(change.insert) through broker \(ticket.broker): \(code) \(error?["message"] as? String ?? "")")
                if code == "unavailable" || code == "busy" { clients[0].broker = 1 - ticket.broker }
                if code == "unavailable", ticket.immediate == nil { unknowns[key, default: []].append((change.insert, change.fromVersion)) }
                if code == "unknown_layout" { lost(key, by: ticket); return }
                models[key] = model
                continue
            }
            // Acknowledged: while the database's lease was this broker's, and nobody else's.
            let leaseThen = ticket.envelope.flatMap { pair.epochAtReply[$0] } ?? 0
            let own = ticket.cluster?.fencingEpoch ?? 0
            guard leaseThen == own else {
                problem = "broker \(ticket.broker) acknowledged \(key) +\(change.insert) at v\(version) under its lease epoch \(own) while the lease was at epoch \(leaseThen) (held by broker \(pair.database.holder.map(String.init) ?? "none")): two brokers acknowledge in one epoch; \(copies(of: key))"
                return
            }
            guard version == change.fromVersion + 1 else {
                problem = "\(key): update from v\(change.fromVersion) acknowledged at v\(version)"
                return
            }
            if let shown = model.states[version], shown != [change.insert.height] + model.heights(at: change.fromVersion) {
                problem = "\(key): v\(version) acknowledged with cells \([change.insert.height] + model.heights(at: change.fromVersion)), but a read showed v\(version) as \(shown): a state a client read vanished; \(copies(of: key))"
                return
            }
            model.heights = model.heights(at: change.fromVersion)
            model.apply(change.insert, at: version)
            // Changes of unknown outcome made from this version or before can no longer apply.
            unknowns[key]?.removeAll { $0.fromVersion <= change.fromVersion }
            models[key] = model
            clients[0].saw(key, version)
            acknowledged[key] = version
            counts["acknowledged", default: 0] += 1
            history.append("  \(key) +\(change.insert) acknowledged at v\(version) by broker \(ticket.broker) (lease epoch \(own))")
        }
        var remaining: [StandbyRead] = []
        for read in reads {
            if read.ticket.reply == nil, pair.abandoned(read.ticket) {
                clients[read.client].broker = 1 - read.ticket.broker
                continue
            }
            guard let reply = read.ticket.reply else {
                remaining.append(read)
                continue
            }
            guard problem == nil else { continue }
            guard reply["ok"] as? Bool == true, let result = reply["result"] as? [String: Any], let version = result["version"] as? Int else {
                let code = (reply["error"] as? [String: Any])?["code"] as? String ?? "?"
                counts["broker reads \(code)", default: 0] += 1
                guard ["unavailable", "busy", "behind", "unknown_layout"].contains(code) else {
                    problem = "client \(read.client)'s query of \(read.key) through broker \(read.ticket.broker) answered \(reply)"
                    continue
                }
                if code == "unavailable" || code == "busy" { clients[read.client].broker = 1 - read.ticket.broker }
                if code == "unknown_layout", models[read.key] != nil { lost(read.key, by: read.ticket) }
                if code == "behind" { judgeBehind(reply, read: read) }
                continue
            }
            counts["broker reads ok", default: 0] += 1
            let said = "client \(read.client)'s query of \(read.key) through broker \(read.ticket.broker)"
            history.append("  \(said): v\(version)")
            judge(read.key, version: version, cells: Simulation.heights(in: result), acknowledged: read.acknowledged, seen: read.seen, client: read.client, said: said)
        }
        reads = remaining
    }

    /// A read answered `behind`: the owner's copy is older than the client's `minVersion`, which is
    /// right only when that copy is not older than what was acknowledged before the read was sent (the
    /// client saw a state whose change was not acknowledged, or is on its way); otherwise an
    /// acknowledged change was rolled back.
    private mutating func judgeBehind(_ reply: [String: Any], read: StandbyRead) {
        let copy = ((reply["error"] as? [String: Any])?["copy"] as? [String: Any])?["version"] as? Int
        guard let copy, copy < read.acknowledged else { return }
        problem = "client \(read.client)'s query of \(read.key) through broker \(read.ticket.broker): behind at v\(copy), older than v\(read.acknowledged) acknowledged before it was sent; \(copies(of: read.key))"
    }

    /// A key answered `unknown_layout`: only one kept without a recipe may be lost.
    /// A recipe the journal still holds after the answering broker removed it (its book evicted it, with
    /// a write that failed) is not one that broker could rebuild the key from: that loss is of a key kept
    /// without a recipe.
    /// Judged by the journal as it was when the answer left its broker.
    private mutating func lost(_ key: String, by ticket: SimulatedTicket) {
        let removedThere = ticket.cluster?.removalsMissed.contains(LayoutKey(name: key)) ?? false
        let hadRecipe = ticket.envelope.flatMap { pair.recipesAtReply[$0] }.map { $0.contains(LayoutKey(name: key)) } ?? pair.database.hasRecipe(LayoutKey(name: key))
        // With recipes unbounded no recipe is evicted: every key's recipe holds its acknowledged changes,
        // and a copy ahead of it (changes never acknowledged) keeps it as its fallback.
        if pair.recipeBytes == 1 << 30 {
            problem = "\(key) answered unknown_layout with recipes unbounded: its recipe held every acknowledged change; \(copies(of: key))"
            return
        }
        guard hadRecipe, !removedThere else {
            history.append("  \(key) lost (kept without a recipe)")
            models[key] = nil
            return
        }
        problem = "\(key) answered unknown_layout though the journal keeps its recipe: an acknowledged change lost; \(copies(of: key))"
    }

    /// A read answered `ok` at `version` with `cells`: not older than what was acknowledged when it was
    /// sent, nor than what its client had seen; the cells of that version, or of the change on its way.
    mutating func judge(_ key: String, version: Int, cells: [Int], acknowledged: Int, seen: Int, client: Int, said: String) {
        guard var model = models[key] else { return }
        guard version >= acknowledged else {
            problem = "\(said): answered v\(version), older than v\(acknowledged) acknowledged before it was sent; \(copies(of: key))"
            return
        }
        guard version >= seen else {
            problem = "\(said): answered v\(version), older than v\(seen) this client had seen; \(copies(of: key))"
            return
        }
        clients[client].saw(key, version)
        if let state = model.states[version] {
            if cells != state {
                problem = "\(said): v\(version) has cells \(cells), but \(state) was acknowledged or read at v\(version): rolled back or vanished; \(copies(of: key))"
            }
            return
        }
        // The change on its way (sent, not answered), or one whose outcome is unknown: either may be
        // what the owner applied.
        let onItsWay = (changes[key].map { [($0.insert, $0.fromVersion)] } ?? []) + (unknowns[key] ?? []).map { ($0.insert, $0.fromVersion) }
        guard onItsWay.contains(where: { version == $0.1 + 1 && cells == [$0.0.height] + model.heights(at: $0.1) }) else {
            problem = "\(said): v\(version) with cells \(cells); acknowledged v\(model.version), on its way \(onItsWay.map { "\($0.0) from v\($0.1)" }); \(copies(of: key))"
            return
        }
        // Shown to a client: from here it is a state that must not vanish, and the version the next
        // change names.
        model.states[version] = cells
        model.heights = cells
        model.version = version
        unknowns[key]?.removeAll { $0.fromVersion < version }
        models[key] = model
    }

    /// Everything heals and is delivered; the last reads are answered by the active broker.
    mutating func settle() {
        history.append("everything heals")
        for broker in pair.brokers {
            pair.resume(broker)
            broker.databaseCut = false
            broker.renewalsToFail = 0
        }
        for name in Self.names { for index in 0..<2 { pair.unblock(name, from: index) } }
        for name in departed.sorted() { pair.startWorker(name) }
        departed = []
        for _ in 0..<40 {
            pair.deliverAll()
            pair.advance(by: 1_000_000_000)
            history += pair.notes.map { "  [\($0)]" }
            pair.notes = []
            check()
            if problem != nil { return }
        }
        guard let active = pair.brokers.first(where: { $0.state == .active }) else {
            problem = "no broker is active after everything healed"
            return
        }
        for key in models.keys.sorted() {
            // With `minVersion`, as every query a real client sends (LayoutClient, the Python client): a
            // client that read a state whose change was then answered `unavailable` and rebuilt away
            // (PROTOCOL.md §11, "What a read may show") is answered `behind` rather than taken back.
            let seen = clients[0].seen[key] ?? 0
            let body = #"{"v":1,"id":"final","op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":320,"height":100000},"minVersion":\#(seen)}"#
            reads.append(StandbyRead(ticket: pair.send(body, to: active.index), key: key, client: 0, acknowledged: acknowledged[key] ?? 0, seen: seen))
        }
        pair.deliverAll()
        check()
    }

    /// Where `key` is kept: each worker's copy, each broker's record, the journal.
    func copies(of key: String) -> String {
        let layoutKey = LayoutKey(name: key)
        let held = Self.names.compactMap { name -> String? in
            guard let summary = pair.workers[name]?.store.summaries().first(where: { $0.key == layoutKey }) else { return nil }
            return "\(name)@\(pair.attached[name].map(String.init) ?? "-") v\(summary.version) e\(summary.epoch)"
        }
        let brokers = pair.brokers.map { broker -> String in
            let record = broker.cluster?.core.keys[layoutKey].map { "owner \($0.owner?.name ?? "none") v\($0.version) e\($0.epoch)" } ?? "no record"
            return "broker \(broker.index) \(broker.state)\(broker.paused ? " paused" : "") lease \(broker.leaseEpoch): \(record)"
        }
        let journaled = pair.database.recipes[layoutKey].map { "v\($0.base + $0.bodies.count - 1) e\($0.epoch)" } ?? "none"
        return "copies: \(held.joined(separator: ", ")); \(brokers.joined(separator: "; ")); lease epoch \(pair.database.epoch); journal \(journaled)"
    }
}

extension KeyModel {
    /// The heights at `version` as acknowledged (or shown), or the latest when it is not recorded.
    func heights(at version: Int) -> [Int] {
        states[version] ?? heights
    }
}
