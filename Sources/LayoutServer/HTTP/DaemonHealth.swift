import Dispatch
import Synchronization

/// Where a daemon is in its life, and whether its I/O thread still makes progress: what `/readyz` and
/// `/healthz` answer from. Written by the daemon, read by the HTTP listener's thread.
public final class DaemonHealth: Sendable {
    public enum Phase: UInt8, Sendable {
        /// Binding its sockets.
        case starting
        /// Sockets bound, taking requests.
        case serving
        /// A stop was asked for: answering admitted requests, refusing new ones.
        case draining
        /// Sockets closed.
        case stopped
    }

    /// How long the I/O thread may go without a pass of its loop before `/healthz` fails. A pass waits
    /// at most a second for something to do, and the work in one pass is bounded.
    public static let stallLimit: Duration = .seconds(10)

    private let phaseValue = Atomic<UInt8>(Phase.starting.rawValue)
    /// `DispatchTime` nanoseconds of the I/O loop's last pass.
    private let lastPass = Atomic<UInt64>(DispatchTime.now().uptimeNanoseconds)

    public init() {}

    public var phase: Phase {
        Phase(rawValue: phaseValue.load(ordering: .acquiring)) ?? .stopped
    }

    /// Moves forward only: a late `serving` cannot undo a `draining`.
    public func advance(to next: Phase) {
        var current = phaseValue.load(ordering: .relaxed)
        while current < next.rawValue {
            let (exchanged, original) = phaseValue.compareExchange(expected: current, desired: next.rawValue, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }

    /// Called by the I/O loop on every pass.
    public func notePass() {
        lastPass.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
    }

    /// How long since the I/O loop's last pass.
    public var sinceLastPass: Duration {
        let now = DispatchTime.now().uptimeNanoseconds
        let last = lastPass.load(ordering: .relaxed)
        return .nanoseconds(Int64(clamping: now > last ? now - last : 0))
    }

    /// Sockets bound and not shutting down.
    public var isReady: Bool { phase == .serving }

    /// The I/O thread has made a pass of its loop within `stallLimit`, or has finished.
    public var isAlive: Bool { phase == .stopped || sinceLastPass <= Self.stallLimit }
}
