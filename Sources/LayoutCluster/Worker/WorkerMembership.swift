import Dispatch
import Synchronization

/// Whether a worker is joined to a broker: READY sent on the current connection and the broker heard
/// from within liveness. Written by the worker's I/O thread, read by the HTTP listener's (`/readyz`).
final class WorkerMembership: Sendable {
    private let readySent = Atomic<Bool>(false)
    /// `LeaseClock` nanoseconds (the worker link's clock) of the last message from the broker.
    private let lastHeard = Atomic<UInt64>(0)
    private let livenessNanos: UInt64
    /// The connection to the broker, counted from 1; it moves on when a connection ends.
    private let conversationNumber = Atomic<UInt64>(1)

    /// - Parameter livenessNanos: how long the broker may stay silent (heartbeat × liveness).
    init(livenessNanos: UInt64) {
        self.livenessNanos = livenessNanos
    }

    /// READY has gone to the broker on a new connection.
    func noteReadySent(at time: UInt64) {
        lastHeard.store(time, ordering: .relaxed)
        readySent.store(true, ordering: .releasing)
    }

    /// Something came from the broker.
    func noteHeard(at time: UInt64) {
        lastHeard.store(time, ordering: .relaxed)
    }

    /// The connection is closed (the broker refused or went silent, or the worker leaves).
    func noteLeft() {
        readySent.store(false, ordering: .releasing)
        conversationNumber.add(1, ordering: .releasing)
    }

    /// The current connection's number: requests are stamped with it as they arrive, and one whose
    /// connection has ended since is not run (issue 14, defect 4: a worker cut off from its broker must
    /// not go on changing layouts the broker has given to another worker, publishing their events).
    var conversation: UInt64 {
        conversationNumber.load(ordering: .acquiring)
    }

    /// Nil while joined; else why not, for `/readyz`.
    var notJoinedReason: String? {
        guard readySent.load(ordering: .acquiring) else {
            return "not joined: no READY sent on a connection to the broker"
        }
        let now = LeaseClock.now()
        let last = lastHeard.load(ordering: .relaxed)
        guard now <= last || now - last <= livenessNanos else {
            return "not joined: the broker silent for \((now - last) / 1_000_000) ms"
        }
        return nil
    }
}
