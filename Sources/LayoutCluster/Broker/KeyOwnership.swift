import LayoutEngine
import LayoutServer
import LayoutWire

// A key's ownership (issue 14): which worker keeps it, in which phase of a move, at which epoch. The
// phases and every transition between them are here, each named and counted (`OwnershipCounters`, in
// `stats` and `metrics`), so that no path can change a key's state without saying which change it is.
//
//     settled ──drain──▶ draining ──queueRebuild──▶ queued ──beginRebuild──▶ restoring ──settle──▶ settled
//        │                                              ▲                          │
//        └──awaitReturn──▶ awaitingReturn ──settle──────┴── (rebuild refused busy) ┘
//                               │  └─(standby built: settle at it; standby being built: beginRebuild)
//                               └─(owner back: settle at it, standby released)
//
// A key stops being protected only by `lose` (published `lost`), a client's `drop`, or an eviction at its
// worker; a key whose recipe cannot reproduce it is protected again by a snapshot (`reprotect`).

/// What the broker knows of one layout key.
final class KeyRecord {
    /// How far a key is in moving between workers.
    enum Phase {
        /// Served by its owner.
        case settled
        /// Moving to `target`: new requests wait until the requests at the current owner are answered.
        case draining(target: WorkerRecord)
        /// Moving to `target`: waiting for a rebuild slot there.
        case queued(target: WorkerRecord)
        /// Rebuild sent to `target`, now its owner; requests wait at the broker until it is answered (sent
        /// behind it, a `prepare` would run on a worker without the key's version count should the
        /// rebuild be refused: found by the simulator, seed 659). `previous` still keeps the layout until
        /// the rebuild succeeds (a join), or is gone (a death).
        case restoring(target: WorkerRecord, previous: WorkerRecord?)
        /// Its owner's connection dropped (issue 14, defect 5): requests wait for that worker to register
        /// again with its copy, as after a TCP drop healed, until `until`; meanwhile a standby copy is
        /// rebuilt on the worker that would take it, which becomes the key's copy when the wait ends
        /// (settled there, or restoring while its rebuild is still under way).
        case awaitingReturn(from: String, until: Nanos)
    }

    /// The key in its namespace: with CURVE, two clients' "feed" are two keys, which may live on two
    /// workers.
    let key: LayoutKey
    let hash: UInt64
    /// The worker keeping it (its layout, or only its version count); nil when none is (its worker died).
    var owner: WorkerRecord?
    /// The last version acknowledged (a layout's, or a drop's, eviction's or loss's).
    var version = 0
    /// Whether a layout is kept under the key.
    var kept = false {
        didSet { if kept != oldValue { tally.kept += kept ? 1 : -1 } }
    }
    /// The epoch its state was last changed or assigned under: the broker's when a change is acknowledged
    /// or a rebuild sent, else what the READY or journal that brought it reported. Copies are ordered by
    /// (epoch, version).
    var epoch: UInt64 = 0
    var contentSize: Size?
    /// Requests on the key sent to its owner and not answered (rebuilds and snapshots included).
    var inFlight = 0
    /// Whether a SNAPSHOT of it is unanswered.
    var snapshotInFlight = false
    /// Requests waiting for a move, in arrival order.
    var held: [ClientRequest] = []
    /// A rebuild refused busy goes again only once the requests sent behind it are back: they found no
    /// layout and wait here again, and nothing sent after them may overtake them.
    var rebuildWhenQuiet = false
    /// While it waits for its dropped owner (`awaitingReturn`): a copy rebuilt meanwhile on another
    /// worker, which becomes the key's copy if the owner does not return in time (`BrokerCore+Returns`).
    var standby: Standby?
    /// The copy its owner kept when that owner was declared dead or cut off, while the key stands at the
    /// state that copy holds (`BrokerCore+FormerCopies`).
    var formerCopy: FormerCopy?
    /// While a rebuild is under way with a copy kept at `previous`: that copy's stamp (the key's epoch
    /// before the rebuild raised it), the key's epoch again if the key falls back to it. The epoch of a
    /// settled key is always its owner's copy's stamp: an eviction is believed by it (seed 200980).
    var fallbackEpoch: UInt64 = 0
    /// While a copy elsewhere waits to take the key as it is (`BrokerCore+HandOvers`): the key drains
    /// toward that copy's worker, and is handed over once its owner answered FENCE.
    var handOver: HandOver?
    /// The workers with a direct endpoint it was settled at, and at which epochs (`BrokerCore+HandOvers`).
    var servedDirectly = DirectOwners()
    /// Changed only by the transitions below (`BrokerCore`'s extension in this file).
    fileprivate(set) var phase = Phase.settled {
        didSet {
            tally.phases[oldValue.tallyIndex] -= 1
            tally.phases[phase.tallyIndex] += 1
        }
    }
    /// The broker's counts of its records, which `stats` reads without walking every key.
    private let tally: KeyTally

    /// A record of `key`, counted in `tally` (the broker's: every record it makes goes into its `keys`).
    init(key: LayoutKey, tally: KeyTally) {
        self.key = key
        self.tally = tally
        hash = Rendezvous.hash(key)
        tally.phases[Phase.settled.tallyIndex] += 1
    }

    /// Whether new requests must wait at the broker.
    var isHolding: Bool {
        switch phase {
        case .draining, .queued, .restoring, .awaitingReturn: return true
        case .settled: return false
        }
    }

    var isSettled: Bool {
        if case .settled = phase { return true }
        return false
    }
}


/// A copy of a key rebuilt on `worker` while the key waits for its dropped owner's return.
struct Standby {
    let worker: WorkerRecord
    /// The RESTORE's, once sent (it may wait for a rebuild slot first).
    var token: RequestToken?
    /// Where the key stood when the rebuild was sent: the owner's copy is taken back only at this
    /// version, and its epoch is the key's again then.
    var before: (epoch: UInt64, version: Int) = (0, 0)
    /// Whether the rebuild succeeded.
    var ready = false
    /// An earlier standby of the key on the same worker answered after this one was sent: its copy is
    /// there until this one's replaces it, so this one releases the worker's copy if it is not used,
    /// whatever becomes of its own rebuild (a RELEASE sent for the earlier one would have followed this
    /// RESTORE and removed its copy: simulator, seeds 202810 and 14062).
    var releasesEarlierCopy = false
}

/// The copy a key's owner kept when it was declared dead or its connection dropped: `(epoch, version)`,
/// its stamp, is the state the key was rebuilt from elsewhere. While the key stands where that rebuild
/// left it (`rebuilt`, its new stamp; nil until the rebuild succeeds), the two copies hold one state.
struct FormerCopy {
    let worker: String
    let epoch: UInt64
    let version: Int
    var rebuilt: (epoch: UInt64, version: Int)?
}

/// How many times keys went through each transition, and were lost.
struct OwnershipCounters {
    var settled = 0
    var drained = 0
    var queued = 0
    var rebuilt = 0
    var awaitedReturn = 0
    var fallbackChanged = 0
}

extension BrokerCore {
    /// → settled: served by its owner, which may be none (a key no worker keeps, placed at its next request).
    func settle(_ record: KeyRecord) {
        abandonHandOver(record)
        enter(record, .settled)
        ownership.settled += 1
        noteServedDirectly(record)
    }

    /// settled → draining: a move toward `target` waits for the requests at the current owner.
    func drain(_ record: KeyRecord, toward target: WorkerRecord) {
        enter(record, .draining(target: target))
        ownership.drained += 1
    }

    /// → queued: the key waits for a rebuild slot at `target` (a move drained, a death, a rebuild refused
    /// busy); requests wait at the broker.
    func queueRebuild(_ record: KeyRecord, at target: WorkerRecord) {
        enter(record, .queued(target: target))
        ownership.queued += 1
    }

    /// → restoring: a rebuild was sent to `target`, its owner from now; `previous` keeps its copy, stamped
    /// `stamp`, until the rebuild succeeds.
    func beginRebuild(_ record: KeyRecord, at target: WorkerRecord, keepingCopyAt previous: WorkerRecord?, stampedAt stamp: UInt64 = 0) {
        enter(record, .restoring(target: target, previous: previous))
        record.fallbackEpoch = stamp
        ownership.rebuilt += 1
    }

    /// restoring: the worker that keeps a copy until the rebuild succeeds changes (gone, or found again
    /// with a copy stamped `stamp`).
    func keepFallback(_ record: KeyRecord, at previous: WorkerRecord?, stampedAt stamp: UInt64 = 0) {
        guard case .restoring(let target, _) = record.phase else { return }
        record.phase = .restoring(target: target, previous: previous)
        record.fallbackEpoch = stamp
        ownership.fallbackChanged += 1
    }

    /// restoring → settled: the rebuild's worker is gone; the key stays with the copy kept at `previous`,
    /// at that copy's stamp.
    func fallBack(_ record: KeyRecord, to previous: WorkerRecord) {
        settle(record)
        setOwner(record, previous)
        assignEpoch(record, record.fallbackEpoch)
    }

    /// settled → awaitingReturn: its owner's connection dropped; it waits for that worker until `until`.
    func awaitReturn(_ record: KeyRecord, of worker: String, until: Nanos) {
        enter(record, .awaitingReturn(from: worker, until: until))
        ownership.awaitedReturn += 1
    }

    /// The key's layout cannot be rebuilt: `invalidated` with reason `lost`, one version on.
    func lose(_ record: KeyRecord) {
        counters.lost += 1
        // Under the broker's epoch, above any copy made before (as an eviction's end, seed 28111).
        assignEpoch(record, max(record.epoch, epoch))
        record.version += 1
        record.kept = false
        recipes.remove(record.key, droppedAt: record.version)
        let event = EventEncoder.invalidated(layout: record.key.name, version: record.version, reason: .lost, contentSize: record.contentSize ?? .zero)
        output.publish(event, namespace: record.key.namespace)
    }

    /// Changes a key's phase, keeping count of the keys in motion.
    private func enter(_ record: KeyRecord, _ phase: KeyRecord.Phase) {
        let wasSettled = record.isSettled
        record.phase = phase
        if wasSettled, !record.isSettled { keysInMotion += 1 }
        if !wasSettled, record.isSettled {
            keysInMotion -= 1
            if keysInMotion == 0 { releaseWaitingLists() }
        }
    }

    /// Keys in each phase now, for `stats`: counted as they change (`KeyTally`).
    var keysByPhase: [String: Int] {
        Dictionary(uniqueKeysWithValues: zip(KeyRecord.Phase.tallyNames, tally.phases))
    }
}

/// How many of a broker's key records are kept, and in each phase, counted as records change: `stats`
/// reads them, and a walk of a million records took most of a stats answer's half second.
final class KeyTally {
    var kept = 0
    /// By `KeyRecord.Phase.tallyIndex`.
    var phases = [Int](repeating: 0, count: KeyRecord.Phase.tallyNames.count)
}

extension KeyRecord.Phase {
    /// The phases' names in `stats`, in `tallyIndex` order.
    static let tallyNames = ["settled", "draining", "queued", "restoring", "awaitingReturn"]

    var tallyIndex: Int {
        switch self {
        case .settled: return 0
        case .draining: return 1
        case .queued: return 2
        case .restoring: return 3
        case .awaitingReturn: return 4
        }
    }
}
