import LayoutServer
import Synchronization

/// The keys a worker must not answer direct reads of: the broker is moving them to another worker
/// (FENCE). Set by the worker's I/O thread the moment FENCE arrives, read by the pool as each direct read
/// ends. A fence holds until the key's copy here is replaced (a RESTORE of it: the broker gave the key
/// back) or forgotten (RELEASE).
///
/// Set at once rather than in the key's order: a direct read that passed this check before is answered
/// from the copy as it stood before the FENCE's REPLY, and the new owner takes no change before that
/// REPLY, so such an answer is never older than a change acknowledged before the read was sent.
final class DirectReadFences: Sendable {
    private let keys = Mutex<Set<LayoutKey>>([])

    init() {}

    func fence(_ key: LayoutKey) {
        _ = keys.withLock { $0.insert(key) }
    }

    /// The key's copy here is new (a rebuild), or gone.
    func lift(_ key: LayoutKey) {
        _ = keys.withLock { $0.remove(key) }
    }

    func isFenced(_ key: LayoutKey) -> Bool {
        keys.withLock { $0.contains(key) }
    }
}
