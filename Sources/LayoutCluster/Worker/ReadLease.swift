import Synchronization

/// Whether a worker may answer direct reads now: until the end of the last lease its broker granted
/// (`LeaseGrant`), on `LeaseClock` (which counts a suspension of the host). Written by the
/// worker's I/O thread, read by the pool's threads as each direct read runs.
///
/// It also counts how leases ended (`transitions()`): a lapse, when no grant came in time, and a
/// revocation, when the connection ended while one held. A lapse happens on its own as time passes, with
/// nobody writing, so it is noticed the next time the lease is looked at off the read path: a grant, a
/// revocation, each heartbeat the worker sends (`noteTime(_:)`), and a report of the counts.
final class ReadLease: Sendable {
    /// When the lease ends; 0: none holds. The one thing a direct read looks at: an atomic, no lock.
    private let endsAt = Atomic<UInt64>(0)
    /// Which connection's grants the lease is made of: moves on at every revocation. A read answers only
    /// under the term it arrived in (`term(ifHoldingAt:)`, `holds(at:inTerm:)`), so a read that waited in
    /// the pool while the worker joined a broker again cannot answer under the new connection's lease
    /// from a copy a RELEASE queued behind it was about to remove.
    private let currentTerm = Atomic<UInt64>(1)
    /// The clock leases are measured on: the process's monotonic one, or a simulated worker's own (whose
    /// rate the simulator sets apart from its broker's).
    private let clock: @Sendable () -> UInt64

    /// How leases ended, and whether one held when last looked at (to count each lapse once).
    private struct Transitions {
        var held = false
        var expiries = 0
        var revocations = 0
    }

    /// Taken only off the read path (grants, revocations, heartbeats and reports), never by `holds(at:)`.
    private let transitionState = Mutex(Transitions())

    init(clock: @escaping @Sendable () -> UInt64 = { LeaseClock.now() }) {
        self.clock = clock
    }

    /// The broker granted, at `now`, a lease that ends at `end` (never earlier than one granted before it
    /// on the same connection: each counts from a later heartbeat).
    func extend(until end: UInt64, at now: UInt64) {
        transitionState.withLock { state in
            noteLapse(in: &state, at: now)
            endsAt.store(end, ordering: .releasing)
            // A grant that arrives already spent (held up on the way) does not make the lease hold.
            state.held = now < end
        }
    }

    /// The connection to the broker ended at `now` (or the worker leaves): no direct read is answered
    /// until a broker grants a lease again, since the one that granted this may be moving the keys already.
    func revoke(at now: UInt64) {
        transitionState.withLock { state in
            noteLapse(in: &state, at: now)
            if state.held { state.revocations += 1 }
            state.held = false
            currentTerm.add(1, ordering: .releasing)
            endsAt.store(0, ordering: .releasing)
        }
    }

    /// Counts a lapse that happened by `now`, if the lease held when last looked at and no longer does.
    func noteTime(_ now: UInt64) {
        transitionState.withLock { noteLapse(in: &$0, at: now) }
    }

    /// Leases that lapsed (`expiries`) and leases dropped while they held (`revocations`), so far.
    func transitions(at now: UInt64? = nil) -> (expiries: Int, revocations: Int) {
        let now = now ?? clock()
        return transitionState.withLock { state in
            noteLapse(in: &state, at: now)
            return (state.expiries, state.revocations)
        }
    }

    /// Whether the lease holds at `now`.
    func holds(at now: UInt64) -> Bool {
        now < endsAt.load(ordering: .acquiring)
    }

    /// The term a read arriving at `now` is answered in; nil when the lease does not hold (the read will
    /// be answered `moved`).
    func term(ifHoldingAt now: UInt64) -> UInt64? {
        // The term first: a revocation between the two loads leaves an old term, which no longer holds.
        let term = currentTerm.load(ordering: .acquiring)
        return holds(at: now) ? term : nil
    }

    /// Whether the lease holds at `now` and has held on the same connection since `term` was taken.
    func holds(at now: UInt64, inTerm term: UInt64) -> Bool {
        holds(at: now) && currentTerm.load(ordering: .acquiring) == term
    }

    private func noteLapse(in state: inout Transitions, at now: UInt64) {
        guard state.held, now >= endsAt.load(ordering: .acquiring) else { return }
        state.held = false
        state.expiries += 1
    }

    /// `extend(until:at:)` at this instant of its clock.
    func extend(until end: UInt64) {
        extend(until: end, at: clock())
    }

    /// `revoke(at:)` at this instant of its clock.
    func revoke() {
        revoke(at: clock())
    }

    /// Whether the lease holds at this instant of its clock.
    var holdsNow: Bool {
        holds(at: clock())
    }

    /// `term(ifHoldingAt:)` at this instant of its clock.
    var termIfHoldingNow: UInt64? {
        term(ifHoldingAt: clock())
    }

    /// `holds(at:inTerm:)` at this instant of its clock.
    func holdsNow(inTerm term: UInt64) -> Bool {
        holds(at: clock(), inTerm: term)
    }
}

/// The numbers and sending times of a worker's recent heartbeats, so that a broker's `LeaseGrant` can
/// be counted from the moment the heartbeat it names left. Used on the worker's I/O thread only.
struct HeartbeatLedger {
    /// Numbers keep counting across connections, so a grant from an earlier connection names no
    /// heartbeat of this one.
    private var nextSequence: UInt64 = 1
    /// The heartbeats sent on this connection and not yet granted, oldest first (a handful: the broker
    /// answers each heartbeat interval).
    private var sent: [(sequence: UInt64, at: UInt64)] = []

    /// Numbers a heartbeat being sent at `time`.
    mutating func noteSent(at time: UInt64) -> UInt64 {
        let sequence = nextSequence
        nextSequence += 1
        sent.append((sequence, time))
        // A broker that grants nothing (an older one) must not make this grow without bound.
        if sent.count > 64 { sent.removeFirst(sent.count - 64) }
        return sequence
    }

    /// When heartbeat `sequence` was sent; nil when it is not one of this connection's. Heartbeats up
    /// to it are forgotten: a later grant never names an earlier one.
    private mutating func takeSendingTime(of sequence: UInt64) -> UInt64? {
        guard let index = sent.firstIndex(where: { $0.sequence == sequence }) else { return nil }
        let time = sent[index].at
        sent.removeFirst(index + 1)
        return time
    }

    /// When the lease `grant` gives ends: `grant.milliseconds` after the heartbeat it names was sent. Nil
    /// when that heartbeat is not one of this connection's or was granted already (it extends nothing).
    mutating func leaseEnd(of grant: LeaseGrant) -> UInt64? {
        takeSendingTime(of: grant.sequence).map { $0 + UInt64(grant.milliseconds) * 1_000_000 }
    }

    /// A new connection: the heartbeats of the last one can no longer be granted.
    mutating func forgetConnection() {
        sent.removeAll()
    }
}
