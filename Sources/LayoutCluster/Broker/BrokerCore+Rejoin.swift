import LayoutServer
import LayoutWire

/// The wait after a broker starts (issue 14): workers of a previous broker may still hold layouts, and a
/// request served or a key assigned before they register again could answer from a stale copy, or make
/// a second owner. Requests on keys (and `list`) wait; `ping` and `layout` are served at once.
extension BrokerCore {
    /// Most requests held while waiting; beyond, `busy` (every wait is bounded, and so is its memory).
    static let rejoinHoldLimit = 10_000

    /// Holds requests on keys until `deadline`.
    func holdKeyedRequests(until deadline: Nanos) {
        rejoinUntil = deadline
    }

    func holdUntilRejoined(_ request: ClientRequest) {
        guard rejoinHeld.count < Self.rejoinHoldLimit else {
            counters.busy += 1
            answer(request, WireError(.busy, "the broker has just started and is waiting for its workers to register again; retry shortly"))
            return
        }
        counters.held += 1
        rejoinHeld.append(request)
    }

    /// At every tick: once the wait is over, the held requests go out in arrival order.
    func endRejoinWait(now: Nanos) {
        guard let deadline = rejoinUntil, now >= deadline else { return }
        rejoinUntil = nil
        let held = rejoinHeld
        rejoinHeld = []
        logger.info("serving keys", metadata: ["held": "\(held.count)", "workers": "\(live.count)"])
        placeUnclaimed()
        for request in held { dispatch(request) }
    }

    /// Keys the journal brought back that no worker reported having: rebuilt from their recipes.
    func placeUnclaimed() {
        guard !live.isEmpty else { return }
        let unclaimed = keys.values.filter { $0.kept && $0.owner == nil && $0.isSettled }
        guard !unclaimed.isEmpty else { return }
        logger.info("rebuilding journaled layouts no worker reported", metadata: ["layouts": "\(unclaimed.count)"])
        for record in unclaimed.sorted(by: { $0.key < $1.key }) { place(record) }
    }

    /// A restarted broker's recipes, read from its journal before it serves: each key is protected
    /// again at its journaled version, owned by nobody until a worker reports a copy (or, once the
    /// rejoin wait is over, rebuilt from the recipe). A key journaled as kept without a recipe
    /// (`RecipeBook.unprotectedMarker`) is known at its version, and published `lost` once the wait is
    /// over if no worker has it. Nothing is written back while loading.
    ///
    /// `dropped` are the keys the journal holds as dropped (a `drop`, a loss), at the version and epoch
    /// they reached: known again, not kept, so that a stale copy a worker still reports (its RELEASE died
    /// with the previous broker) ranks below the drop and is released, instead of bringing a dropped
    /// layout back at an older version (found by the fault suite, `pause-drop-restart`).
    func loadJournaled(_ journaled: [(key: LayoutKey, base: Int, bodies: [[UInt8]], epoch: UInt64)], dropped: [(key: LayoutKey, version: Int, epoch: UInt64)] = []) {
        for entry in dropped where keys[entry.key] == nil {
            let record = KeyRecord(key: entry.key, tally: tally)
            record.version = entry.version
            record.epoch = entry.epoch
            keys[entry.key] = record
        }
        let onChange = recipes.onChange
        recipes.onChange = nil
        defer { recipes.onChange = onChange }
        for entry in journaled {
            guard let first = entry.bodies.first else { continue }
            if first != RecipeBook.unprotectedMarker {
                _ = recipes.start(entry.key, base: entry.base, prepare: HeldBody(first))
                for body in entry.bodies.dropFirst() { _ = recipes.append(entry.key, change: HeldBody(body)) }
            }
            let record = keys[entry.key] ?? KeyRecord(key: entry.key, tally: tally)
            record.kept = true
            record.version = first == RecipeBook.unprotectedMarker ? entry.base : entry.base + entry.bodies.count - 1
            record.epoch = entry.epoch
            keys[entry.key] = record
        }
    }
}
