import Synchronization

/// With a journal, the events of a change leave only once the change is written: a subscriber never
/// sees a version that a crash could give, after a restart, to another change. Events that no change
/// of a client's makes (`evicted`, `lost`) pass at once.
///
/// The store reports a change while its lock is held and the handler journals it right after, on the
/// same thread, while the key's later requests wait; so a key's held events are exactly those of the
/// change being journaled.
final class EventGate: Sendable {
    private let held = Mutex<[LayoutKey: [StoreChange]]>([:])
    private let publish: @Sendable (StoreChange) -> Void

    init(publish: @escaping @Sendable (StoreChange) -> Void) {
        self.publish = publish
    }

    /// The store's `onChange`.
    func accept(_ change: StoreChange) {
        switch change {
        case .invalidated(let key, _, let reason, _, _) where reason != .evicted && reason != .lost:
            held.withLock { $0[key, default: []].append(change) }
        case .batch(let key, _, _, _):
            held.withLock { $0[key, default: []].append(change) }
        case .invalidated:
            publish(change)
        }
    }

    /// The journal has `key`'s change (publishes its events), or could not write it (drops them: the
    /// change is in memory but not acknowledged, and subscribers see a gap in versions, which they resync).
    func release(_ key: LayoutKey, publishing: Bool) {
        let changes = held.withLock { $0.removeValue(forKey: key) } ?? []
        guard publishing else { return }
        for change in changes { publish(change) }
    }
}
