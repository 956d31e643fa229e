import LayoutServer

/// A key given to another worker's copy *as it is*, with no rebuild: a returning worker taking back its
/// former copy (`BrokerCore+FormerCopies`), or a newer copy reported after the one adopted first
/// (`BrokerCore+Membership`). The key's owner may answer direct reads under a read lease until it is
/// told not to, so the hand-over fences it first, as a move does: FENCE, and the new owner takes no
/// change before its REPLY (requests on the key wait at the broker meanwhile). Only then is the old copy
/// released and the key given over. An owner without a direct endpoint answers nothing directly: the key
/// is handed over at once.
struct HandOver {
    /// The worker whose copy takes the key.
    let worker: WorkerRecord
    /// That copy's stamp.
    let epoch: UInt64
    let version: Int
    /// A newer copy replacing the one adopted first (else a former copy taken back).
    let supersedes: Bool
}

extension BrokerCore {
    /// Gives `record` to `transfer.worker`'s copy. True when done now (the caller then releases the old
    /// owner's copy); false when the old owner was sent FENCE first, and the key waits for its REPLY.
    func handOver(_ record: KeyRecord, _ transfer: HandOver) -> Bool {
        guard let owner = record.owner, owner !== transfer.worker, owner.isAlive, owner.directEndpoint != nil else {
            completeHandOver(record, transfer)
            return true
        }
        drain(record, toward: transfer.worker)
        record.handOver = transfer
        fenceDirectReads(of: record, at: owner)
        if record.inFlight == 0 { drained(record) }
        return false
    }

    /// A draining key's FENCE was answered (`drained`): when it is a hand-over, the key goes to the
    /// copy waiting for it, the old copy is released, and the requests held meanwhile go to the new
    /// owner. False when the key is moving by a rebuild instead.
    func finishHandOver(_ record: KeyRecord) -> Bool {
        guard let transfer = record.handOver else { return false }
        let previous = record.owner
        record.handOver = nil
        settle(record)
        if transfer.worker.isConnected {
            completeHandOver(record, transfer)
            if let previous, previous !== transfer.worker, previous.isConnected { release([record.key], at: previous) }
        } else if previous?.isConnected != true {
            place(record)
        }
        flushHeld(record)
        return true
    }

    /// A hand-over called off before its FENCE was answered (its key settled otherwise: a worker gone):
    /// the copy that was to take the key is not the key's, and is released.
    func abandonHandOver(_ record: KeyRecord) {
        guard let transfer = record.handOver else { return }
        record.handOver = nil
        if transfer.worker.isConnected, record.owner !== transfer.worker { release([record.key], at: transfer.worker) }
    }

    /// `worker`, the owner of `record`, is gone while the key was being handed over to another copy
    /// (its FENCE unanswered). The copy waiting stays the key's next one: given the key at once when
    /// `worker` held no read lease, else once its lease has surely run out (`deadline`), as its other
    /// keys wait. False when no hand-over was under way (the caller goes on as for any key).
    func ownerGone(during record: KeyRecord, of worker: WorkerRecord, deadline: Nanos?) -> Bool {
        guard let transfer = record.handOver, record.owner === worker else { return false }
        record.handOver = nil
        if !record.isSettled { settle(record) }
        setOwner(record, nil)
        guard transfer.worker.isConnected else { return false }
        if let deadline {
            awaitReturn(record, of: worker.name, until: deadline)
            record.handOver = transfer
            var waiting = awaitingReturn[worker.name] ?? (deadline, [])
            waiting.keys.append(record.key)
            waiting.until = max(waiting.until, deadline)
            awaitingReturn[worker.name] = waiting
        } else {
            completeHandOver(record, transfer)
        }
        return true
    }

    /// The wait for a gone owner's lease is over (`endReturnWait`): the copy waiting takes the key.
    func finishHandOverAfterWait(_ record: KeyRecord) -> Bool {
        guard let transfer = record.handOver else { return false }
        record.handOver = nil
        guard transfer.worker.isConnected else { return false }
        settle(record)
        completeHandOver(record, transfer)
        flushHeld(record)
        return true
    }

    private func completeHandOver(_ record: KeyRecord, _ transfer: HandOver) {
        if transfer.supersedes {
            // As when a restarted broker adopts a copy (`BrokerCore+Membership`): a recipe that still
            // reproduces the copy's version is kept, and one the copy is ahead of stays as its fallback.
            if transfer.version != record.version || !record.kept, !keepsFallbackRecipe(record, adoptingVersion: transfer.version) {
                recipes.unprotect(record.key, version: transfer.version)
            }
            record.version = transfer.version
            record.kept = true
            counters.supersededCopies += 1
        } else {
            counters.formerCopiesTakenBack += 1
        }
        setOwner(record, transfer.worker)
        assignEpoch(record, transfer.epoch)
    }

    // MARK: Keys served directly

    /// Notes that `record` may be named, settled at its owner with a direct endpoint, in a client's
    /// route table at its current epoch: that worker may answer direct reads of it at that epoch.
    func noteServedDirectly(_ record: KeyRecord) {
        guard record.isSettled, let owner = record.owner, owner.directEndpoint != nil else { return }
        record.servedDirectly.note(owner.name, epoch: record.epoch)
    }

    /// Whether `record`, being rebuilt at `worker`, moves back to a worker that served it directly at the
    /// epoch the rebuild stamps: a client's table from then names that worker at that epoch, and the
    /// worker, once the rebuild lands, answers direct reads of it until its lease runs out.
    func rebuildsAtFormerDirectOwner(_ record: KeyRecord, _ worker: WorkerRecord) -> Bool {
        guard case .restoring(let target, _) = record.phase, target === worker, worker.directEndpoint != nil else { return false }
        return record.servedDirectly.epochs(of: worker.name).contains(record.epoch)
    }
}

/// The workers a key was settled at with a direct endpoint, and at which epochs (the few last ones):
/// what clients' route tables may still name.
struct DirectOwners {
    private var entries: [(worker: String, epoch: UInt64)] = []
    /// Enough for the moves a route table can be behind by; the oldest go first.
    private static let kept = 8

    mutating func note(_ worker: String, epoch: UInt64) {
        if entries.last.map({ $0.worker == worker && $0.epoch == epoch }) == true { return }
        entries.removeAll { $0.worker == worker && $0.epoch == epoch }
        entries.append((worker, epoch))
        if entries.count > Self.kept { entries.removeFirst(entries.count - Self.kept) }
    }

    func epochs(of worker: String) -> [UInt64] {
        entries.filter { $0.worker == worker }.map(\.epoch)
    }
}
