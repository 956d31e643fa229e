import Foundation
import LayoutServer
@testable import LayoutCluster

/// How a broker process keeps its PostgreSQL lease, and until when it may act on it: the part of a
/// broker that lives in threads and sockets (`LeaseKeeper`, `BrokerLoop`'s shutdown drain), which the
/// simulation cannot run and so models, step by step as the code does it.
protocol SimulatedLeaseKeeping {
    /// The lease taken at `now`.
    init(ttl: Nanos, takenAt now: Nanos)
    /// The keeper's thread at `now` (the broker not paused): renews when it is due. `renew` sends a
    /// renewal: `.some(answer)` when it returns at once, nil when it blocks (the link to the database
    /// is blackholed; it is asked again, through `renewalReturned`, when that changes or times out).
    mutating func step(now: Nanos, databaseReachable: Bool, renew: () -> Bool?) -> SimulatedLeaseVerdict
    /// Whether the broker may still answer, grant read leases and acknowledge at `now` (its own
    /// judgement: the process's loop checks it, whatever the keeper's thread is doing).
    func mayAct(now: Nanos) -> Bool
}

enum SimulatedLeaseVerdict: Equatable {
    case holding
    /// The keeper gave up: the broker shuts down (`onLost`).
    case lost
}

/// `LeaseKeeper` as built at 529106f (issue 32, finding 1): a renewal every third of the lease; the
/// lease counted from when a renewal *returned*; a renewal that blocks holds the thread until the
/// connection's `query_timeout` (30 s); the broker stops only after a failed renewal finds the lease's
/// length passed since the last good one, and the loop acts until then (and through its drain).
struct AsBuiltLeaseKeeper: SimulatedLeaseKeeping {
    static let queryTimeout: Nanos = 30_000_000_000
    let ttl: Nanos
    var lastRenewed: Nanos
    /// When the thread wakes from its sleep for the next renewal.
    var wakeAt: Nanos
    /// A renewal sent over a blackholed link, and when it was sent.
    var blockedSince: Nanos?

    init(ttl: Nanos, takenAt now: Nanos) {
        self.ttl = ttl
        lastRenewed = now
        wakeAt = now + ttl / 3
    }

    mutating func step(now: Nanos, databaseReachable: Bool, renew: () -> Bool?) -> SimulatedLeaseVerdict {
        if let since = blockedSince {
            if databaseReachable, let answer = renew() {
                // The link is back: the renewal that waited gets through now.
                blockedSince = nil
                return renewed(answer, now: now)
            }
            guard now - since >= Self.queryTimeout else { return .holding }
            blockedSince = nil
            return failed(now: now)
        }
        guard now >= wakeAt else { return .holding }
        guard databaseReachable else {
            blockedSince = now
            return .holding
        }
        guard let answer = renew() else { return failed(now: now) }
        return renewed(answer, now: now)
    }

    private mutating func renewed(_ answer: Bool, now: Nanos) -> SimulatedLeaseVerdict {
        guard answer else { return .lost }
        lastRenewed = now
        wakeAt = now + ttl / 3
        return .holding
    }

    private mutating func failed(now: Nanos) -> SimulatedLeaseVerdict {
        if now - lastRenewed > ttl { return .lost }
        wakeAt = now + ttl / 3
        return .holding
    }

    /// As built, nothing stops the loop but the keeper's `onLost`.
    func mayAct(now: Nanos) -> Bool { true }
}

/// One broker process of the pair: a standby until it takes the lease, then active (a `SimulatedCluster`
/// of its own, sharing the workers' clock and the database), then draining once its keeper lets go, then
/// gone. It may be paused (SIGSTOP) and its link to the database blackholed.
final class SimulatedBrokerProcess {
    enum State: Equatable {
        case standby
        case active
        /// Its keeper let go: answering what was admitted until its grace is over, taking nothing new.
        case draining(since: Nanos)
        case gone
    }

    let index: Int
    var state = State.standby
    /// Its cluster while it is (or was) active; kept after it is gone so late tickets still resolve.
    var cluster: SimulatedCluster?
    var leaseEpoch: UInt64 = 0
    var keeper: (any SimulatedLeaseKeeping)?
    /// SIGSTOP: nothing of it runs; requests wait in its socket.
    var paused = false
    /// Its link to PostgreSQL is blackholed: renewals and journal commits block.
    var databaseCut = false {
        didSet { cluster?.journalCut = databaseCut }
    }
    /// Renewals the database answers with an error next (a failover of the database, a restart).
    var renewalsToFail = 0
    /// When a standby tries the lease next (every fifth of the lease, as `StandbyFront`).
    var nextAcquire: Nanos = 0
    /// Requests sent to it while paused, in order: it reads them when it runs again.
    var waiting: [SimulatedTicket] = []
    /// How many lease takings it had (its cluster's envelopes are told apart by it).
    var takings = 0

    init(index: Int) {
        self.index = index
    }

    var isRunning: Bool {
        guard !paused else { return false }
        if case .active = state { return true }
        if case .draining = state { return true }
        return false
    }

    var isDraining: Bool {
        if case .draining = state { true } else { false }
    }
}

/// A client's request to one broker, and how it ends: the broker's reply, an answer the process gave
/// without its core (a standby, a drain), or nothing (the process died with it).
final class SimulatedTicket {
    let body: String
    let broker: Int
    var envelope: [[UInt8]]?
    var cluster: SimulatedCluster?
    var immediate: [String: Any]?
    /// The process it was sent to is gone without answering (the client times out).
    var lost = false

    init(body: String, broker: Int) {
        self.body = body
        self.broker = broker
    }

    var reply: [String: Any]? {
        if let immediate { return immediate }
        guard let envelope, let cluster else { return nil }
        return cluster.reply(for: envelope)
    }
}

/// `LeaseKeeper` with issue 32's fix (branch `lease`): the broker acts only inside its serving window,
/// which each renewal that succeeds moves to when it was *sent*, plus the lease, less the drift margin
/// (`ServingWindow.end`); a renewal may take a quarter of the lease (`BrokerLease.renewalTimeoutMillis`)
/// and one that fails is tried again soon (a twentieth of the lease later) while the window holds; the
/// keeper gives up at its first attempt past the window, or at once when the lease was taken.
struct WindowedLeaseKeeper: SimulatedLeaseKeeping {
    let ttl: Nanos
    /// When the serving window ends (the database's lease lasts longer: it counts from when it ran the
    /// statement, after it was sent).
    var windowEnd: Nanos
    var closed = false
    var nextAttempt: Nanos
    /// A renewal sent over a blackholed link, and when it was sent.
    var blockedSince: Nanos?

    init(ttl: Nanos, takenAt now: Nanos) {
        self.ttl = ttl
        windowEnd = Self.end(sentAt: now, ttl: ttl)
        nextAttempt = now + ttl / 3
    }

    static func end(sentAt: Nanos, ttl: Nanos) -> Nanos {
        ServingWindow.end(sentAt: sentAt, leaseMillis: Int(ttl / 1_000_000))
    }

    mutating func step(now: Nanos, databaseReachable: Bool, renew: () -> Bool?) -> SimulatedLeaseVerdict {
        if let sent = blockedSince {
            if databaseReachable, now - sent < ttl / 4, let answer = renew() {
                blockedSince = nil
                return renewed(answer, sentAt: sent)
            }
            guard now - sent >= ttl / 4 else { return .holding }
            // The renewal timed out: tried again soon.
            blockedSince = nil
            nextAttempt = sent + ttl / 4 + ttl / 20
            return .holding
        }
        guard now >= nextAttempt else { return .holding }
        guard mayAct(now: now) else { return .lost }
        guard databaseReachable else {
            blockedSince = now
            return .holding
        }
        guard let answer = renew() else {
            nextAttempt = now + ttl / 20
            return .holding
        }
        return renewed(answer, sentAt: now)
    }

    private mutating func renewed(_ answer: Bool, sentAt: Nanos) -> SimulatedLeaseVerdict {
        guard answer else {
            closed = true
            return .lost
        }
        windowEnd = max(windowEnd, Self.end(sentAt: sentAt, ttl: ttl))
        nextAttempt = sentAt + ttl / 3
        return .holding
    }

    func mayAct(now: Nanos) -> Bool { !closed && now < windowEnd }
}
