import Foundation
import LayoutServer
@testable import LayoutCluster

/// A client of the simulation that reads directly (docs/PROTOCOL.md §11): its route table, as the
/// broker's `route` last answered it, and the newest version of each key it has seen, which its direct
/// reads name as `minVersion`.
struct DirectClient {
    /// Each key the table lists at a worker with a direct endpoint: its epoch and that worker.
    var table: [String: (epoch: UInt64, worker: String)] = [:]
    /// A `route` asked and not answered yet, and the broker process it was asked of.
    var routeAsked: (envelope: [[UInt8]], broker: UInt64)?
    var seen: [String: Int] = [:]

    mutating func saw(_ key: String, _ version: Int) {
        seen[key] = max(seen[key] ?? 0, version)
    }
}

/// The direct-read half of the walk (issue 25): clients read keys at their owners' direct endpoints
/// with the epoch of their route table and `minVersion`, and fall back to the broker on `moved` and
/// `behind`; links between the broker and workers are cut (heartbeats held or lost) and heal; time
/// passes in uneven steps, on clocks that drift. Every `ok` direct read is checked at once: its version
/// is at least the last one acknowledged (to any client) and at least what that client had seen, and
/// its cells are that version's, or those of the one change on its way (sent, not yet acknowledged).
extension Simulation {
    /// Clock rates in thousandths of the broker's: within the 1/liveness the lease's heartbeat of margin
    /// covers (above 2/3 with liveness 3: a lease of 2 heartbeats lasts under 3 of the broker's).
    static let clockRates: [UInt64] = [700, 750, 850, 1000, 1000, 1150, 1330]

    mutating func startDirectReads(seed: UInt64) {
        cluster.modelsLinks = true
        for name in names { cluster.clockRates[name] = pick(Self.clockRates) }
        // c has no direct endpoint in a third of the seeds: its keys are read through the broker.
        let plain = seed % 3 == 0 ? "c" : nil
        for name in names where name != plain { cluster.directEndpoints[name] = "tcp://\(name):5570" }
        for name in names where name != "d" { cluster.join(name) }
        clients = Array(repeating: DirectClient(), count: 3)
        for index in clients.indices { askRoute(index) }
        history.append("direct reads; clocks \(names.map { "\($0) \(cluster.clockRates[$0] ?? 1000)‰" }.joined(separator: ", "))\(plain.map { "; \($0) without a direct endpoint" } ?? "")")
    }

    mutating func directStep() {
        switch random.next() % 100 {
        case 0..<55:
            directRead(by: Int(random.next() % UInt64(clients.count)), of: pick(Self.keys))
        case 55..<62:
            // A `route` event: a client fetches the table again.
            let client = Int(random.next() % UInt64(clients.count))
            history.append("client \(client) asks for the route table")
            askRoute(client)
        case 62..<70:
            let name = pick(names)
            // As the other faults: another worker stays reachable (reads through the broker are answered).
            guard cluster.workers[name]?.connected == true, cluster.workers[name]?.cutOff == nil, reachableWorkers > 1 else { return }
            let holding = chance(50)
            history.append("link to \(name) cut (heartbeats \(holding ? "held" : "lost")); clients still reach it")
            cluster.cut(name, holding: holding)
        case 70..<75:
            let name = pick(names)
            guard cluster.workers[name]?.cutOff != nil else { return }
            history.append("link to \(name) heals")
            cluster.heal(name)
        case 75..<78:
            let name = pick(names)
            guard cluster.workers[name]?.cutOff != nil else { return }
            history.append("heartbeats held for \(name) get through, late; its own still do not reach the broker")
            cluster.deliverHeldHeartbeats(to: name)
        default:
            passTime()
        }
    }

    /// Live workers the broker can reach (not cut off): the faults leave one at least.
    var reachableWorkers: Int {
        cluster.core.live.filter { cluster.workers[$0.name]?.cutOff == nil }.count
    }

    /// Time passes in uneven steps (100 ms to 1 s), so that leases lapse between a worker's heartbeats.
    mutating func passTime() {
        let millis = 100 * (1 + random.next() % 10)
        history.append("\(millis) ms pass")
        cluster.advanceClocks(by: millis * 1_000_000)
    }

    private mutating func askRoute(_ client: Int) {
        clients[client].routeAsked = (cluster.request(#"{"v":1,"id":"route","op":"route"}"#), cluster.brokerEpochs)
    }

    /// The client's table, from the last `route` answered; a question its broker died with is asked again.
    private mutating func takeRoute(_ client: Int) {
        guard let asked = clients[client].routeAsked else { return }
        guard let reply = cluster.reply(for: asked.envelope) else {
            if asked.broker != cluster.brokerEpochs { askRoute(client) }
            return
        }
        clients[client].routeAsked = nil
        guard let result = reply["result"] as? [String: Any] else { return }
        let direct = Set(((result["workers"] as? [[String: Any]]) ?? []).compactMap { $0["direct"] != nil ? $0["worker"] as? String : nil })
        var table: [String: (epoch: UInt64, worker: String)] = [:]
        for entry in (result["keys"] as? [[String: Any]]) ?? [] {
            guard let layout = entry["layout"] as? String, let epoch = entry["epoch"] as? Int, epoch >= 0,
                  let worker = entry["worker"] as? String, direct.contains(worker) else { continue }
            table[layout] = (UInt64(epoch), worker)
        }
        clients[client].table = table
    }

    /// A client reads `key`: at its owner's direct endpoint when its table names one, else (and on
    /// `moved` or `behind`) through the broker.
    private mutating func directRead(by client: Int, of key: String) {
        takeRoute(client)
        guard let entry = clients[client].table[key], let worker = cluster.workers[entry.worker] else {
            readThroughBroker(key)
            return
        }
        // Behind, in the key's order, whatever the worker's pool took before it.
        cluster.finishPool(entry.worker)
        let minVersion = clients[client].seen[key].map { #","minVersion":\#($0)"# } ?? ""
        let list = chance(20)
        let body = list
            ? #"{"v":1,"id":"dl","op":"list","layout":"\#(key)","epoch":\#(entry.epoch)\#(minVersion)}"#
            : #"{"v":1,"id":"dq","op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":320,"height":100000},"epoch":\#(entry.epoch)\#(minVersion)}"#
        let said = "client \(client) reads \(key) at \(entry.worker) directly (\(list ? "list" : "query"), epoch \(entry.epoch), minVersion \(clients[client].seen[key] ?? 0))"
        guard let reply = try? JSONSerialization.jsonObject(with: Data(worker.directRead(body))) as? [String: Any] else {
            problem = "\(said): the reply is not JSON"
            return
        }
        guard reply["ok"] as? Bool == true, let result = reply["result"] as? [String: Any] else {
            let code = (reply["error"] as? [String: Any])?["code"] as? String ?? "?"
            history.append("\(said): \(code)")
            let message = (reply["error"] as? [String: Any])?["message"] as? String ?? ""
            directReadOutcomes[message.contains("read lease") ? "leaseLapsed" : message.contains("moving") ? "fenced" : code, default: 0] += 1
            guard code == "moved" || code == "behind" else {
                problem = "\(said): answered \(reply)"
                return
            }
            if code == "moved" { askRoute(client) }
            readThroughBroker(key)
            return
        }
        let version = list ? ((result["layouts"] as? [[String: Any]])?.first?["version"] as? Int) : result["version"] as? Int
        guard let version else {
            problem = "\(said): no version in \(result)"
            return
        }
        history.append("\(said): v\(version)")
        directReadOutcomes["ok", default: 0] += 1
        checkDirect(key, version: version, cells: list ? nil : Self.heights(in: result), by: client, said: said)
        clients[client].saw(key, version)
    }

    /// The invariant, as the read is answered (it was sent this instant): not older than a change
    /// acknowledged to any client, nor than what this client saw; and the cells of the version it names.
    private mutating func checkDirect(_ key: String, version: Int, cells: [Int]?, by client: Int, said: String) {
        // A drop on its way: the read may come before it or after it.
        guard drops[key] == nil else { return }
        guard let model = models[key] else {
            if let droppedAt = dropped[key], version <= droppedAt {
                problem = "\(said): answered v\(version) of a layout dropped at v\(droppedAt); \(copies(of: key))"
            }
            return
        }
        let seen = clients[client].seen[key] ?? 0
        guard version >= model.version, version >= seen else {
            problem = "\(said): answered v\(version), older than v\(model.version) acknowledged or v\(seen) this client saw; \(copies(of: key))"
            return
        }
        if version == model.version {
            guard cells == nil || cells == model.states[version] else {
                problem = "\(said): v\(version) has cells \(cells ?? []), the acknowledged changes make \(model.states[version] ?? []); \(copies(of: key))"
                return
            }
            return
        }
        // One past: the change sent and not acknowledged yet (or whose outcome is unknown), applied at
        // the worker before its reply reached the broker.
        let onItsWay = model.pending.map { ($0.insert, $0.fromVersion) } ?? model.unknown.map { ($0.insert, $0.fromVersion) }
        guard let (insert, from) = onItsWay, from == model.version, version == from + 1,
              cells == nil || cells == [insert.height] + model.heights else {
            problem = "\(said): answered v\(version) with cells \(cells.map { "\($0)" } ?? "unread"); acknowledged v\(model.version), on its way \(String(describing: onItsWay)); \(copies(of: key))"
            return
        }
    }

    /// The read sent to the broker, as the existing reads are (and checked as they are).
    private mutating func readThroughBroker(_ key: String) {
        if let model = models[key] {
            reads.append((cluster.request(queryBody(key, id: "r")), key, model.version))
        } else if let droppedAt = dropped[key] {
            reads.append((cluster.request(queryBody(key, id: "r")), key, -droppedAt))
        }
    }
}
