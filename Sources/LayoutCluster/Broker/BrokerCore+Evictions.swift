import LayoutServer
import LayoutWire

/// Evictions reported by the workers whose stores made them (EVICTED, protocol 5). The event stream
/// cannot say which worker published an `evicted`: believed from anyone, a stale copy evicted on one
/// worker (a copy a move left behind, or one kept until a rebuild succeeds) dropped the recipe of a key
/// its owner still kept, which a later death then lost without a `lost` (issue 14, defect 3).
extension BrokerCore {
    /// `worker` evicted these copies. Only the key's copy at its owner speaks for the key: at the key's
    /// epoch, past the version the broker knows (an eviction older than a change since acknowledged is
    /// stale). A copy kept until a rebuild succeeds, or a standby, is no longer there to fall back on.
    func workerEvicted(_ evicted: [ReadyInfo.KeyVersion], at worker: WorkerRecord) {
        for entry in evicted {
            guard let record = keys[entry.key] else { continue }
            if case .restoring(_, let previous) = record.phase, previous === worker {
                keepFallback(record, at: nil)
                counters.staleEvictions += 1
                continue
            }
            if record.standby?.worker === worker {
                // A standby copy evicted cannot stand in for the key's owner.
                dropStandby(of: record)
                counters.staleEvictions += 1
                continue
            }
            // The key's copy at its owner is stamped with the key's epoch; a copy stamped earlier is one
            // the owner kept from before the key's rebuild there (found by the simulator, seed 2700: a
            // stale copy on a rebuild's target, evicted before the rebuild ran, ended the key).
            guard record.owner === worker, record.kept, entry.version > record.version, entry.epoch >= record.epoch else {
                counters.staleEvictions += 1
                continue
            }
            counters.evictions += 1
            // The key's end, under the broker's epoch: a copy stamped later than the key's epoch (a
            // rebuild or standby sent, then abandoned) must not outrank it (seed 28111: such a copy, of an
            // earlier version, came back after the eviction).
            assignEpoch(record, max(record.epoch, epoch))
            record.kept = false
            record.version = entry.version
            recipes.remove(record.key, droppedAt: entry.version)
        }
    }
}
