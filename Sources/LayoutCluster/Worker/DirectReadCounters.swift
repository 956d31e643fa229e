import Synchronization

/// How a worker's direct endpoint answered its reads (`DirectReadTally`), counted by the pool's threads
/// as each read is answered and read by whoever reports them (the stats socket and heartbeats on the I/O
/// thread, `/metrics` on the HTTP listener's). One relaxed atomic add per read: no lock on the read's path.
final class DirectReadCounters: Sendable {
    /// How one direct request was answered, as far as these counts care.
    enum Outcome: Sendable {
        case answered
        case moved(DirectReadTally.MovedReason)
        case behind
        case readOnly
    }

    private let reads = Atomic<Int>(0)
    private let behind = Atomic<Int>(0)
    private let readOnly = Atomic<Int>(0)
    private let notKept = Atomic<Int>(0)
    private let otherEpoch = Atomic<Int>(0)
    private let fenced = Atomic<Int>(0)
    private let noLease = Atomic<Int>(0)
    private let otherNamespace = Atomic<Int>(0)

    init() {}

    func record(_ outcome: Outcome) {
        // Relaxed: each count stands alone, and a report may be a read or two behind.
        switch outcome {
        case .answered: reads.add(1, ordering: .relaxed)
        case .behind: behind.add(1, ordering: .relaxed)
        case .readOnly: readOnly.add(1, ordering: .relaxed)
        case .moved(.notKept): notKept.add(1, ordering: .relaxed)
        case .moved(.epoch): otherEpoch.add(1, ordering: .relaxed)
        case .moved(.fenced): fenced.add(1, ordering: .relaxed)
        case .moved(.lease): noLease.add(1, ordering: .relaxed)
        case .moved(.namespace): otherNamespace.add(1, ordering: .relaxed)
        }
    }

    /// The counts now, with the lease's from `lease`.
    func tally(lease: ReadLease) -> DirectReadTally {
        var tally = DirectReadTally()
        tally.reads = reads.load(ordering: .relaxed)
        tally.behind = behind.load(ordering: .relaxed)
        tally.readOnly = readOnly.load(ordering: .relaxed)
        let moved: [(DirectReadTally.MovedReason, Int)] = [
            (.notKept, notKept.load(ordering: .relaxed)), (.epoch, otherEpoch.load(ordering: .relaxed)),
            (.fenced, fenced.load(ordering: .relaxed)), (.lease, noLease.load(ordering: .relaxed)),
            (.namespace, otherNamespace.load(ordering: .relaxed)),
        ]
        for (reason, count) in moved where count > 0 { tally.movedBy[reason] = count }
        let transitions = lease.transitions()
        tally.leaseExpiries = transitions.expiries
        tally.leaseRevocations = transitions.revocations
        return tally
    }
}
