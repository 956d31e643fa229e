import Dispatch

/// How every role stops on SIGTERM: it stops accepting work, answers what it admitted, and gives up after
/// `server.shutdownGraceSeconds`, so that a stuck request cannot keep a process from stopping.
public struct ShutdownDrain {
    private let graceNanos: UInt64
    /// When the drain began (`DispatchTime` uptime nanoseconds); nil while serving.
    public private(set) var since: UInt64?

    public init(graceSeconds: Double) {
        graceNanos = UInt64(max(0, graceSeconds) * 1e9)
    }

    /// Whether new requests are accepted (no drain has begun).
    public var isAccepting: Bool { since == nil }

    /// Begins the drain at `now`; true the first time it is asked, when the role says it is stopping.
    public mutating func begin(at now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> Bool {
        guard since == nil else { return false }
        since = now
        return true
    }

    /// Whether the grace period is over at `now`, with requests left unanswered.
    public func isOverGrace(at now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> Bool {
        guard let since, now > since else { return false }
        return now - since > graceNanos
    }

    /// How long the loop may block in its poll: not at all when it has work, `serving` while it serves,
    /// and briefly while it drains, because what it waits for then (the pool going idle) signals no
    /// descriptor.
    public func pollTimeout(busy: Bool, serving: Duration) -> Duration {
        busy ? .zero : since == nil ? serving : .milliseconds(20)
    }
}
