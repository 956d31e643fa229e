import Synchronization

/// Until when the active broker may act: answer clients, grant read leases and acknowledge changes.
/// With a PostgreSQL lease, each renewal that succeeds moves its end to the moment the renewal was
/// *sent*, plus the lease, less a margin for the clocks' rates (`driftMarginMillis`): the database
/// counts the lease from when it ran the renewal, which is later, so the window ends before a standby
/// can take the lease, whatever the renewal thread is doing (a renewal hung on a dead link, a thread not
/// scheduled) and through a shutdown's drain. Timed on `LeaseClock`, which counts a suspension.
///
/// Written by the lease keeper's thread, read by the broker's loop on every reply and grant: an atomic.
final class ServingWindow: Sendable {
    /// `LeaseClock` nanoseconds; `UInt64.max`: no lease bounds this broker (no PostgreSQL journal).
    private let endsAt: Atomic<UInt64>

    /// The share of a lease kept as a margin for clocks' rates: the broker's and the database server's
    /// may differ by up to 1/`driftDivisor` (5 %) over one lease (docs/OPERATIONS.md, "A standby broker").
    static let driftDivisor = 20

    /// A window that never closes (a broker without a lease).
    static var unbounded: ServingWindow { ServingWindow(endingAt: .max) }

    init(endingAt end: UInt64) {
        endsAt = Atomic(end)
    }

    /// The margin taken off a lease of `leaseMillis`.
    static func driftMarginMillis(leaseMillis: Int) -> Int {
        max(1, leaseMillis / driftDivisor)
    }

    /// Where a lease taken or renewed by a statement sent at `sentAt` lets the window end.
    static func end(sentAt: UInt64, leaseMillis: Int) -> UInt64 {
        sentAt + UInt64(max(0, leaseMillis - driftMarginMillis(leaseMillis: leaseMillis))) * 1_000_000
    }

    /// A renewal sent at `sentAt` succeeded (never moves the end back: renewals may answer out of turn
    /// only in tests, but a later one's end is the later).
    func renewed(sentAt: UInt64, leaseMillis: Int) {
        let end = Self.end(sentAt: sentAt, leaseMillis: leaseMillis)
        var current = endsAt.load(ordering: .acquiring)
        while current < end && current != 0 {
            let (exchanged, original) = endsAt.compareExchange(expected: current, desired: end, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }

    /// The lease is gone (another broker took it): closed now, for good.
    func close() {
        endsAt.store(0, ordering: .releasing)
    }

    /// Whether the broker may act at `now` (`LeaseClock` nanoseconds).
    func isOpen(at now: UInt64) -> Bool {
        now < endsAt.load(ordering: .acquiring)
    }

    /// Whether the broker may act now.
    var isOpen: Bool {
        let end = endsAt.load(ordering: .acquiring)
        return end == .max || LeaseClock.now() < end
    }

    /// When it ends (`LeaseClock` nanoseconds; `UInt64.max` when unbounded, 0 once closed).
    var end: UInt64 { endsAt.load(ordering: .acquiring) }
}
