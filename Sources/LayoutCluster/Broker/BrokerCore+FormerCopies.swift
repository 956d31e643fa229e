import LayoutServer
import LayoutWire

/// A worker declared dead that was only paused or cut off comes back with its copies (issue 14, defect 5:
/// false deaths are expensive). Its keys were rebuilt elsewhere from their recipes; moved back to it by
/// rendezvous, each would cost a second rebuild. A key that has not changed since its rebuild holds the
/// state the returning copy holds: that copy takes the key back as it is, and the rebuilt one is released.
/// No rebuild, and the key is where it was before the fault.
extension BrokerCore {
    /// `worker`, the key's owner, is gone: its copy is remembered (a settled, kept key's copy is stamped
    /// with the key's epoch).
    func rememberFormerCopy(of record: KeyRecord, at worker: WorkerRecord) {
        guard record.kept, record.isSettled else { return }
        record.formerCopy = FormerCopy(worker: worker.name, epoch: record.epoch, version: record.version)
    }

    /// The key's rebuild succeeded: its former copy still holds its state if the key is at that version.
    func noteRebuilt(_ record: KeyRecord) {
        guard var former = record.formerCopy else { return }
        guard former.rebuilt == nil, former.version == record.version, record.kept else {
            record.formerCopy = nil
            return
        }
        former.rebuilt = (record.epoch, record.version)
        record.formerCopy = former
    }

    /// `entry` reported by `worker` is the key's former copy, and the key has not changed since its
    /// rebuild (nor is anything on its way to its owner): the key goes back to it. The copy keeps its own
    /// stamp; the rebuilt copy, of a later epoch but the same state, is released by the caller when the
    /// answer is `.now`; with `.afterFence` its owner may answer direct reads, and was sent FENCE first
    /// (`BrokerCore+HandOvers`): the key goes back, and that copy is released, once it answered.
    func takeBackFormerCopy(_ record: KeyRecord, reported entry: ReadyInfo.KeyVersion, by worker: WorkerRecord) -> TakeBack? {
        guard let former = record.formerCopy, former.worker == worker.name, let rebuilt = former.rebuilt,
              (entry.epoch, entry.version) == (former.epoch, former.version), (record.epoch, record.version) == rebuilt,
              record.isSettled, record.kept, record.inFlight - (record.snapshotInFlight ? 1 : 0) == 0, record.held.isEmpty else { return nil }
        record.formerCopy = nil
        return handOver(record, HandOver(worker: worker, epoch: entry.epoch, version: entry.version, supersedes: false)) ? .now : .afterFence
    }

    /// How a key was given back to its former copy.
    enum TakeBack {
        /// Done: the caller releases the copy its owner held.
        case now
        /// Its owner was sent FENCE first; the hand-over finishes once it answered.
        case afterFence
    }
}
