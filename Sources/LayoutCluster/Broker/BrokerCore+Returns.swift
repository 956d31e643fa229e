import LayoutServer
import LayoutWire

/// Keys whose worker's connection dropped, waiting for it to register again (issue 14, defect 5). A TCP
/// reset healed within `cluster.dropGraceMillis` then moves no key: the worker reports its copies and
/// takes them back, instead of every key being rebuilt elsewhere and later moved back (two rebuilds per
/// key per blip). A worker that does not return in time is treated as dead: its keys are rebuilt.
extension BrokerCore {
    /// The earliest end of a wait, for the I/O loop's timer; nil when no key waits.
    var nextReturnDeadline: Nanos? {
        awaitingReturn.values.map(\.until).min()
    }

    /// A worker reported `entry` for a key waiting for a return: taken back when its copy is the one the
    /// key stands at or newer (a change answered `unavailable` may have been applied on it before the
    /// drop). False for an older copy, which is released; the key waits on (for the worker it waits for,
    /// until the end of its READY, which places every key it did not take back).
    func takeBack(_ record: KeyRecord, reported entry: ReadyInfo.KeyVersion, by worker: WorkerRecord) -> Bool {
        guard (entry.epoch, entry.version) >= (record.epoch, record.version) else { return false }
        if entry.version != record.version {
            // It applied a change answered `unavailable` before the drop: the recipe cannot reproduce
            // that version, so it goes, as when a newer copy is adopted.
            recipes.unprotect(record.key, version: entry.version)
        }
        settle(record)
        record.version = entry.version
        assignEpoch(record, entry.epoch)
        setOwner(record, worker)
        if var waiting = awaitingReturn[worker.name] {
            waiting.keys.removeAll { $0 == record.key }
            awaitingReturn[worker.name] = waiting.keys.isEmpty ? nil : waiting
        }
        counters.keysKeptThroughDrops += 1
        flushHeld(record)
        reprotect(record)
        return true
    }

    /// Once the wait's time is over: the keys still waiting are rebuilt elsewhere.
    func endReturnWaits(now: Nanos) {
        for (name, waiting) in awaitingReturn where waiting.until <= now {
            logger.warning("worker did not return after its connection dropped; rebuilding its layouts", metadata: ["worker": "\(name)", "layouts": "\(waiting.keys.count)"])
            endReturnWait(of: name)
        }
    }

    /// The keys waiting for `name` stop waiting and are placed anew.
    func endReturnWait(of name: String) {
        guard let waiting = awaitingReturn.removeValue(forKey: name) else { return }
        for key in waiting.keys {
            guard let record = keys[key], case .awaitingReturn(let from, _) = record.phase, from == name else { continue }
            settle(record)
            counters.keysRebuiltAfterDrops += 1
            placeOrAnswer(record)
        }
    }
}
