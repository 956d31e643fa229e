import Foundation
import LayoutServer
import LayoutTestKit
import LayoutWire
@testable import LayoutCluster

/// The two-broker walk (issue 32): two broker processes share a simulated PostgreSQL (the lease row and a
/// journal whose commits check the lease epoch, `SimulatedDatabase`); workers with direct endpoints list
/// both brokers, each in an order of its own. Clients change keys (with ifVersion) and read them through
/// either broker and straight at their owners, while renewals block, fail and time out, a broker's link
/// to the database is blackholed, a broker is paused (SIGSTOP) or killed, one-way partitions join
/// workers to different brokers, a worker leaves cleanly or dies, and clocks drift within the bound.
/// Invariants, checked as each answer arrives:
/// - every change a broker acknowledges is acknowledged while the database's lease is that broker's
///   (so at most one broker acknowledges in any lease epoch);
/// - no read answered `ok`, through a broker or directly, is older than a change acknowledged before it
///   was sent, or than what that client had already seen; its cells are its version's;
/// - no acknowledged change to a key with a recipe is lost or rolled back (nor a state a read showed).
struct StandbySimulation {
    var random: SeededGenerator
    let pair: SimulatedBrokerPair
    static let names = ["a", "b", "c"]
    static let keys = ["k0", "k1", "k2", "k3"]
    var models: [String: KeyModel] = [:]
    /// The version each key's last acknowledged change made (`models` also follows states reads showed).
    var acknowledged: [String: Int] = [:]
    var clients: [StandbyClient] = []
    var changes: [String: (ticket: SimulatedTicket, insert: KeyModel.Insert, fromVersion: Int)] = [:]
    /// Changes whose outcome is unknown (`unavailable`, or their broker died), by key: any may have been
    /// applied, at the version after the one each names.
    var unknowns: [String: [(insert: KeyModel.Insert, fromVersion: Int)]] = [:]
    var reads: [StandbyRead] = []
    /// Workers that left cleanly and have not started again.
    var departed: Set<String> = []
    var history: [String] = []
    var problem: String?
    var nextID = 0
    var counts: [String: Int] = [:]

    init(seed: UInt64, makeKeeper: @escaping (Nanos, Nanos) -> any SimulatedLeaseKeeping) {
        // SplitMix64 streams of neighbouring states are one stream shifted: the seed is mixed first, so
        // that seeds n and n + 1 walk apart.
        var mixer = SeededGenerator(seed: seed ^ 0x2545_F491_4F6C_DD1D)
        random = SeededGenerator(seed: mixer.next())
        var rates: [String: UInt64] = [:]
        var endpoints: [String: String] = [:]
        var pickRandom = random
        for name in Self.names {
            rates[name] = Simulation.clockRates[Int(pickRandom.next() % UInt64(Simulation.clockRates.count))]
            endpoints[name] = "tcp://\(name):5570"
        }
        random = pickRandom
        // Half the seeds keep recipes of a few hundred bytes only: some keys are kept without one, and
        // their changes are acknowledged with no journal write (nothing fences them).
        pair = SimulatedBrokerPair(
            clockRates: rates, directEndpoints: endpoints, recipeBytes: seed % 2 == 0 ? 1 << 30 : 700,
            dropGraceNanos: (seed / 2) % 2 == 1 ? 2_000_000_000 : 0, makeKeeper: makeKeeper
        )
        for name in Self.names { pair.brokerOrder[name] = random.next() % 3 == 0 ? [1, 0] : [0, 1] }
        clients = (0..<3).map { _ in StandbyClient(broker: Int(random.next() % 2)) }
        history.append("clocks \(Self.names.map { "\($0) \(rates[$0] ?? 1000)‰" }.joined(separator: ", ")); orders \(Self.names.map { "\($0) \(pair.brokerOrder[$0] ?? [])" }.joined(separator: ", "))")
        pair.brokers[1].nextAcquire = pair.now + 1_000_000
        pair.tryAcquire(pair.brokers[0])
        for name in Self.names { pair.startWorker(name) }
        // Past the new broker's wait for workers to register again.
        for _ in 0..<5 { pair.advance(by: 1_000_000_000) }
        for key in Self.keys { prepare(key) }
    }

    mutating func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
    mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }

    private mutating func prepare(_ key: String) {
        let count = 3 + Int(random.next() % 5)
        let ticket = pair.send(prepareBody(key, count: count, id: "p-\(key)"), to: 0)
        pair.deliverAll()
        guard let reply = ticket.reply, reply["ok"] as? Bool == true, let version = (reply["result"] as? [String: Any])?["version"] as? Int else {
            history.append("prepare \(key): \(String(describing: ticket.reply))")
            return
        }
        var model = KeyModel(heights: (0..<count).map { 10 + $0 % 7 }, version: version)
        model.states[version] = model.heights
        models[key] = model
        acknowledged[key] = version
        clients[0].saw(key, version)
        history.append("prepare \(key) (\(count) items): v\(version)")
    }

    mutating func step() {
        switch random.next() % 100 {
        case 0..<20: change()
        case 20..<36: readThroughBroker(by: Int(random.next() % 3), key: pick(Self.keys))
        case 36..<52: directRead(by: Int(random.next() % 3), key: pick(Self.keys))
        case 52..<56: askRoute(Int(random.next() % 3))
        case 56..<68:
            let name = pick(Self.names)
            guard let index = pair.attached[name], pair.brokers[index].isRunning else { return }
            history.append("deliver some to \(name) at broker \(index)")
            pair.brokers[index].cluster?.deliver(to: name, limit: 1 + Int(random.next() % 3))
        case 68..<82:
            // Up to 2 s: a walk spans a minute or two, past a renewal's query timeout as built (30 s).
            let millis = 100 * (1 + random.next() % 20)
            history.append("\(millis) ms pass")
            pair.advance(by: millis * 1_000_000)
        default:
            fault()
        }
        history += pair.notes.map { "  [\($0)]" }
        pair.notes = []
        check()
        if let traced = ProcessInfo.processInfo.environment["LAYOUTD_STANDBY_SIM_TRACE"] { history.append("    ~ \(copies(of: traced))") }
    }

    private mutating func fault() {
        let broker = pair.brokers[Int(random.next() % 2)]
        switch random.next() % 16 {
        case 0:
            guard broker.state != .standby else { return }
            history.append("kill -9 broker \(broker.index) (\(broker.state)); it restarts as a standby")
            pair.killAndRestart(broker)
        case 1, 2:
            history.append(broker.paused ? "SIGCONT broker \(broker.index)" : "SIGSTOP broker \(broker.index) (\(broker.state))")
            if broker.paused { pair.resume(broker) } else { pair.pause(broker) }
        case 3, 4:
            broker.databaseCut.toggle()
            history.append("broker \(broker.index)'s link to PostgreSQL \(broker.databaseCut ? "blackholed" : "heals")")
        case 5, 6:
            let name = pick(Self.names)
            if pair.isBlocked(name, broker.index) {
                history.append("\(name) and broker \(broker.index) reach each other again")
                pair.unblock(name, from: broker.index)
            } else if !pair.isBlocked(name, 1 - broker.index) {
                history.append("one-way partition: \(name) and broker \(broker.index) cut off (the other broker, clients reach both)")
                pair.block(name, from: broker.index)
            }
        case 7:
            let name = pick(Self.names)
            guard !departed.contains(name) else { return }
            history.append("kill -9 \(name), restarted empty")
            pair.killWorker(name)
        case 8:
            let name = pick(Self.names)
            guard !departed.contains(name), departed.count < 2 else { return }
            history.append("\(name) leaves cleanly")
            pair.leaveCleanly(name)
            if pair.workers[name] == nil { departed.insert(name) }
        case 9:
            guard let name = departed.sorted().first else { return }
            history.append("\(name) starts again, empty")
            departed.remove(name)
            pair.startWorker(name)
        case 10:
            let count = 1 + Int(random.next() % 3)
            history.append("broker \(broker.index)'s next \(count) renewals fail")
            broker.renewalsToFail = count
        default:
            history.append("deliver all")
            pair.deliverAll()
        }
    }

    // MARK: Clients

    /// The broker a client sends to: the one it used last, unless that one is gone or a standby.
    private mutating func brokerFor(_ client: Int) -> Int {
        clients[client].broker
    }

    private mutating func change() {
        let key = pick(Self.keys)
        guard var model = models[key], changes[key] == nil else { return }
        nextID += 1
        let insert = KeyModel.Insert(id: "n\(nextID)", height: 20 + nextID % 97)
        let body = #"{"id":"u","op":"update","layout":"\#(key)","ifVersion":\#(model.version),"updates":[{"insert":[0,0],"item":{"id":"\#(insert.id)","height":\#(insert.height)}}]}"#
        let broker = brokerFor(0)
        changes[key] = (pair.send(body, to: broker), insert, model.version)
        model.pending = nil
        models[key] = model
        history.append("update \(key) +\(insert) at v\(model.version) through broker \(broker)")
    }

    private mutating func readThroughBroker(by client: Int, key: String) {
        guard let model = models[key] else { return }
        let broker = brokerFor(client)
        // With the newest version this client has seen (`minVersion`): a broker that forwards it has its
        // owner answer `behind` rather than an older copy (issue 32, item 3).
        let seen = clients[client].seen[key].map { #","minVersion":\#($0)"# } ?? ""
        let body = #"{"v":1,"id":"r","op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":320,"height":100000}\#(seen)}"#
        reads.append(StandbyRead(ticket: pair.send(body, to: broker), key: key, client: client, acknowledged: acknowledged[key] ?? model.version, seen: clients[client].seen[key] ?? 0))
        history.append("client \(client) queries \(key) through broker \(broker) (minVersion \(clients[client].seen[key] ?? 0))")
    }

    private mutating func askRoute(_ client: Int) {
        let broker = brokerFor(client)
        clients[client].routeAsked = pair.send(#"{"v":1,"id":"route","op":"route"}"#, to: broker)
        history.append("client \(client) asks broker \(broker) for the route table")
    }

    private mutating func directRead(by client: Int, key: String) {
        clients[client].takeRoute()
        guard let model = models[key], let entry = clients[client].table[key], let worker = pair.workers[entry.worker] else { return }
        if let index = pair.attached[entry.worker], pair.brokers[index].isRunning, !pair.isBlocked(entry.worker, index) {
            pair.brokers[index].cluster?.finishPool(entry.worker)
        }
        let seen = clients[client].seen[key] ?? 0
        let body = #"{"v":1,"id":"dq","op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":320,"height":100000},"epoch":\#(entry.epoch),"minVersion":\#(seen)}"#
        let said = "client \(client) reads \(key) at \(entry.worker) directly (epoch \(entry.epoch), minVersion \(seen))"
        guard let reply = try? JSONSerialization.jsonObject(with: Data(worker.directRead(body))) as? [String: Any] else {
            problem = "\(said): the reply is not JSON"
            return
        }
        guard reply["ok"] as? Bool == true, let result = reply["result"] as? [String: Any], let version = result["version"] as? Int else {
            let code = (reply["error"] as? [String: Any])?["code"] as? String ?? "?"
            history.append("\(said): \(code)")
            counts["direct \(code)", default: 0] += 1
            if code == "moved" { askRoute(client) }
            return
        }
        counts["direct ok", default: 0] += 1
        history.append("\(said): v\(version)")
        judge(key, version: version, cells: Simulation.heights(in: result), acknowledged: acknowledged[key] ?? model.version, seen: seen, client: client, said: said)
    }
}

/// A client of the two-broker walk: the broker it talks to, its route table, what it has seen.
struct StandbyClient {
    var broker: Int
    var table: [String: (epoch: UInt64, worker: String)] = [:]
    var routeAsked: SimulatedTicket?
    var seen: [String: Int] = [:]

    mutating func saw(_ key: String, _ version: Int) {
        seen[key] = max(seen[key] ?? 0, version)
    }

    /// The table from the last `route` answered.
    mutating func takeRoute() {
        guard let asked = routeAsked, let reply = asked.reply else { return }
        routeAsked = nil
        guard let result = reply["result"] as? [String: Any] else { return }
        let direct = Set(((result["workers"] as? [[String: Any]]) ?? []).compactMap { $0["direct"] != nil ? $0["worker"] as? String : nil })
        var table: [String: (epoch: UInt64, worker: String)] = [:]
        for entry in (result["keys"] as? [[String: Any]]) ?? [] {
            guard let layout = entry["layout"] as? String, let epoch = entry["epoch"] as? Int, epoch >= 0,
                  let worker = entry["worker"] as? String, direct.contains(worker) else { continue }
            table[layout] = (UInt64(epoch), worker)
        }
        self.table = table
    }
}

/// A read sent through a broker: what was acknowledged, and what its client had seen, when it was sent.
struct StandbyRead {
    var ticket: SimulatedTicket
    var key: String
    var client: Int
    var acknowledged: Int
    var seen: Int
}
