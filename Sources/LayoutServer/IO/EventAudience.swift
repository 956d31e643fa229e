import Synchronization

/// Whether anyone subscribes to the events socket, as the I/O thread counts subscriptions: a change
/// nobody subscribes to is neither encoded as an event nor handed to the I/O thread.
///
/// Why: with no subscriber, libzmq drops a published event anyway, but making it first cost every
/// `update` its members encoded (the reply writes its own), a trip through the store's `onChange`
/// while the store's lock is held, a post to the mailbox (a pipe write when the I/O thread sleeps) and
/// a send (docs/BENCHMARKS.md, "Where the daemon's time goes").
///
/// A subscription counts from when the I/O thread reads it, which is also when `stats` starts to
/// report it: a subscriber that waits until then sees every later change's event. Before that, its
/// subscription is as unsettled as any ZeroMQ subscription that has just been sent.
public final class EventAudience: Sendable {
    private let subscribed = Atomic<Bool>(false)

    public init() {}

    /// Whether events are wanted now.
    public var isListening: Bool { subscribed.load(ordering: .acquiring) }

    /// Set by the I/O thread whenever its count of subscriptions changes.
    func setListening(_ listening: Bool) {
        subscribed.store(listening, ordering: .releasing)
    }
}
