import LayoutEngine
import LayoutWire
import Synchronization

/// A change the store made, in the order it made them; `version` is the layout's version after it.
public enum StoreChange: Sendable {
    /// `epoch`: the stamp of the layout it concerns (a cluster worker's, see `stamp`; 0 elsewhere), by
    /// which a broker tells an eviction of the key's copy from one of a stale copy.
    case invalidated(key: LayoutKey, version: Int, reason: InvalidationReason, contentSize: Size, epoch: UInt64 = 0)
    case batch(key: LayoutKey, version: Int, members: [EncodedMember], contentSize: Size)
}

/// Why a layout is being stored.
public enum StoreCause: Sendable {
    /// A `prepare`: publishes `replaced` when the key had a layout before (even one dropped or evicted,
    /// so that versions seen by subscribers stay consecutive).
    case prepare
    /// A bounds size change: publishes `invalidated` with reason `bounds`.
    case bounds
    /// A batch update or diff: publishes `batch` with these pre-encoded members; nil publishes nothing
    /// (nobody subscribed when the change was made, so its members were not encoded: `EventAudience`).
    case batch([EncodedMember]?)
}

/// The prepared layouts kept under their keys, bounded in bytes; the least recently used go first.
///
/// A reference type: it is the one shared store of the daemon. Versions count per key from 1 and keep
/// counting across replace, drop and eviction, so subscribers never see a version go backwards.
/// Every change is reported to `onChange` while the store's lock is held, so changes reach the
/// publisher in version order.
public final class LayoutStore: Sendable {
    public struct Entry: Sendable {
        public var layout: PreparedLayout
        public var version: Int
        public var bytes: Int
        fileprivate var lastUse: UInt64
    }

    /// A summary of one kept layout (the `list` op).
    public struct Summary: Sendable, Hashable {
        public var key: LayoutKey
        public var version: Int
        public var items: Int
        public var bytes: Int
        /// The epoch the layout was last changed under (a cluster worker's; 0 elsewhere).
        public var epoch: UInt64 = 0
    }

    private struct State: ~Copyable {
        var entries: [LayoutKey: Entry] = [:]
        /// The last version of every key seen, kept after drop/evict so versions never restart.
        var lastVersions: [LayoutKey: Int] = [:]
        /// A cluster worker's: the broker epoch each key was last changed under (see `stamp`).
        var epochs: [LayoutKey: UInt64] = [:]
        /// The keys `list` shows, in order: those in memory, and with a journal those it keeps too.
        var listed = SortedKeys()
        var totalBytes = 0
        var clock: UInt64 = 0
        var evictions = 0
    }

    /// What stands behind the layouts in memory.
    public enum Backing: Sendable {
        /// Nothing: an evicted layout is gone, published as `invalidated` with reason `evicted`.
        case memoryOnly
        /// A journal: the store is its cache. An evicted layout leaves memory only; it is still kept, at
        /// the same version, and comes back from the journal when it is asked for, so nothing is published.
        case journal
    }

    /// The memory bound, in bytes.
    public let capacityBytes: Int
    public let backing: Backing
    private let state = Mutex(State())
    private let onChange: @Sendable (StoreChange) -> Void

    public init(capacityBytes: Int, backing: Backing = .memoryOnly, onChange: @escaping @Sendable (StoreChange) -> Void) {
        self.capacityBytes = capacityBytes
        self.backing = backing
        self.onChange = onChange
    }

    /// The entry under `key`, marked as just used.
    public func entry(forKey key: LayoutKey) -> Entry? {
        state.withLock { state in
            // One lookup, and the entry updated in place: queries come by the hundred thousand.
            guard let index = state.entries.index(forKey: key) else { return nil }
            state.clock += 1
            state.entries.values[index].lastUse = state.clock
            return state.entries.values[index]
        }
    }

    /// What `store` did.
    public enum Outcome: Sendable, Hashable {
        /// Kept, at this version.
        case stored(version: Int)
        /// The layout alone is over the store's bound; nothing changed.
        case tooLarge
        /// The layout this change was computed from is no longer kept at the expected version (an
        /// eviction, triggered by work on another key, removed it meanwhile); nothing changed.
        case stale
        /// The key is not at the version the request required (`ifVersion`); nothing changed.
        case versionConflict(current: Int)
    }

    /// The key's version: its kept layout's, or the last it had (dropped or evicted), 0 for a key never kept.
    public func version(forKey key: LayoutKey) -> Int {
        state.withLock { $0.lastVersions[key] ?? 0 }
    }

    /// Keeps `layout` under `key` with the next version, publishing what `cause` implies, and evicts
    /// least recently used layouts while the store is over its bound.
    /// - Parameter expectedVersion: for a change computed from a kept layout (bounds, update, diff), the
    ///   version it was computed from: the change applies only if that layout is still kept as it was.
    /// - Parameter requiredVersion: a `prepare`'s `ifVersion`: the key's version (`version(forKey:)`)
    ///   must be this, checked under the same lock as the store.
    public func store(_ layout: PreparedLayout, forKey key: LayoutKey, cause: StoreCause, expectedVersion: Int? = nil, requiredVersion: Int? = nil) -> Outcome {
        let bytes = layout.byteCount
        guard bytes <= capacityBytes else { return .tooLarge }
        return state.withLock { state in
            if let requiredVersion, (state.lastVersions[key] ?? 0) != requiredVersion {
                return .versionConflict(current: state.lastVersions[key] ?? 0)
            }
            if let expectedVersion, state.entries[key]?.version != expectedVersion { return .stale }
            let previous = state.lastVersions[key]
            let version = (previous ?? 0) + 1
            state.lastVersions[key] = version
            if let old = state.entries.removeValue(forKey: key) {
                state.totalBytes -= old.bytes
            } else {
                // A search of the order only for a key not in memory: changes come by the ten thousand.
                state.listed.insert(key)
            }
            state.clock += 1
            state.entries[key] = Entry(layout: layout, version: version, bytes: bytes, lastUse: state.clock)
            state.totalBytes += bytes
            switch cause {
            case .prepare:
                if previous != nil {
                    onChange(.invalidated(key: key, version: version, reason: .replaced, contentSize: layout.contentSize))
                }
            case .bounds:
                onChange(.invalidated(key: key, version: version, reason: .bounds, contentSize: layout.contentSize))
            case .batch(let members?):
                onChange(.batch(key: key, version: version, members: members, contentSize: layout.contentSize))
            case .batch(nil):
                break
            }
            evictOverflow(&state, keeping: key)
            return .stored(version: version)
        }
    }

    /// Forgets `key`, publishing `invalidated` with reason `dropped`; returns the version of that event.
    /// With `ifVersion`, only a layout kept at that version is dropped (`versionConflict` otherwise).
    public func drop(_ key: LayoutKey, ifVersion: Int? = nil) -> Result<Int, DropRefusal> {
        state.withLock { state in
            guard let kept = state.entries[key] else { return .failure(.unknown) }
            if let ifVersion, kept.version != ifVersion { return .failure(.versionConflict(current: kept.version)) }
            guard let old = state.entries.removeValue(forKey: key) else { return .failure(.unknown) }
            state.listed.remove(key)
            state.totalBytes -= old.bytes
            return .success(invalidate(&state, key: key, reason: .dropped, contentSize: old.layout.contentSize))
        }
    }

    /// Why `drop` dropped nothing.
    public enum DropRefusal: Error, Sendable, Hashable {
        /// No layout is kept under the key.
        case unknown
        /// The kept layout is at another version than `ifVersion`.
        case versionConflict(current: Int)
    }

    /// Keeps `layout` under `key` at exactly `version`, publishing nothing, or (with a nil layout) only
    /// makes the key's version count continue from `version` (0: as if the key had never been kept):
    /// a layout rebuilt where its subscribers already saw every change, such as on a cluster worker
    /// taking over a key (the broker replays the key's recipe). Evicts as `store` does.
    public func restore(_ layout: PreparedLayout?, forKey key: LayoutKey, version: Int) -> Outcome {
        if let layout, layout.byteCount > capacityBytes { return .tooLarge }
        return state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.totalBytes -= old.bytes }
            state.lastVersions[key] = layout == nil && version <= 0 ? nil : version
            guard let layout else {
                state.listed.remove(key)
                return .stored(version: version)
            }
            state.listed.insert(key)
            state.clock += 1
            state.entries[key] = Entry(layout: layout, version: version, bytes: layout.byteCount, lastUse: state.clock)
            state.totalBytes += layout.byteCount
            evictOverflow(&state, keeping: key)
            return .stored(version: version)
        }
    }

    /// Keeps `layout` under `key` at `version`, publishing nothing, only when no layout is kept under the
    /// key and its version is still `version`: a layout rebuilt from the journal in the background, which
    /// a change made meanwhile must win over. Evicts as `store` does; true when kept.
    public func restoreIfAbsent(_ layout: PreparedLayout, forKey key: LayoutKey, version: Int) -> Bool {
        guard layout.byteCount <= capacityBytes else { return false }
        return state.withLock { state in
            guard state.entries[key] == nil, state.lastVersions[key] == version else { return false }
            state.listed.insert(key)
            state.clock += 1
            state.entries[key] = Entry(layout: layout, version: version, bytes: layout.byteCount, lastUse: state.clock)
            state.totalBytes += layout.byteCount
            evictOverflow(&state, keeping: key)
            return true
        }
    }

    /// Publishes `invalidated` with reason `lost` for `key`, forgetting its layout: one that cannot be
    /// rebuilt (a corrupt journal record). Returns the version of that event.
    public func markLost(_ key: LayoutKey, contentSize: Size = .zero) -> Int {
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.totalBytes -= old.bytes }
            state.listed.remove(key)
            return invalidate(&state, key: key, reason: .lost, contentSize: contentSize)
        }
    }

    /// Whether a layout is in memory under `key` (without marking it used).
    public func isResident(_ key: LayoutKey) -> Bool {
        state.withLock { $0.entries[key] != nil }
    }

    /// Forgets `key` and its version, publishing nothing: the key now lives elsewhere (a cluster worker
    /// giving up a key that moved to another worker). True when a layout was kept.
    @discardableResult
    public func release(_ key: LayoutKey) -> Bool {
        state.withLock { state in
            state.lastVersions[key] = nil
            state.epochs[key] = nil
            state.listed.remove(key)
            guard let old = state.entries.removeValue(forKey: key) else { return false }
            state.totalBytes -= old.bytes
            return true
        }
    }

    /// Records that `key` was last changed under `epoch` (a cluster worker's broker epoch), which READY
    /// reports with its version; never goes back.
    public func stamp(_ key: LayoutKey, epoch: UInt64) {
        state.withLock { state in
            if epoch > state.epochs[key] ?? 0 { state.epochs[key] = epoch }
        }
    }

    /// The kept layout under `key`, its version and epoch stamp; nil when none is kept. One lookup: a
    /// cluster worker's direct endpoint asks it for every read it answers.
    public func summary(forKey key: LayoutKey) -> Summary? {
        state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            return Summary(key: key, version: entry.version, items: entry.layout.itemCount, bytes: entry.bytes, epoch: state.epochs[key] ?? 0)
        }
    }

    /// The kept layouts of `namespace` (nil: of every namespace), sorted by namespace, then key.
    public func summaries(in namespace: String? = nil) -> [Summary] {
        listing(KeyPage(namespace: namespace, limit: .max)).entries.compactMap(\.summary)
    }

    /// One key of a page of `list`, with its summary when its layout is in memory (nil: a key only a
    /// journal keeps now, `journaled(_:)`).
    public struct Listed: Sendable, Hashable {
        public var key: LayoutKey
        public var summary: Summary?
    }

    /// The listed keys of `page` in order, and whether more of its range follow: with a journal, those
    /// it keeps and memory does not hold too (`noteJournaled`).
    public func listing(_ page: KeyPage) -> (entries: [Listed], more: Bool) {
        state.withLock { state in
            let (keys, more) = state.listed.keys(of: page)
            let entries = keys.map { key in
                Listed(key: key, summary: state.entries[key].map {
                    Summary(key: key, version: $0.version, items: $0.layout.itemCount, bytes: $0.bytes, epoch: state.epochs[key] ?? 0)
                })
            }
            return (entries, more)
        }
    }

    /// Lists `keys`, which a journal keeps though memory may not hold them (after a start): `list` shows
    /// them until they are dropped or lost.
    public func noteJournaled(_ keys: some Sequence<LayoutKey>) {
        state.withLock { state in
            for key in keys { state.listed.insert(key) }
        }
    }

    /// Layouts pushed out of memory by its bound since the store began.
    public var evictions: Int {
        state.withLock { $0.evictions }
    }

    /// Number of kept layouts and the bytes they hold.
    public var usage: (count: Int, bytes: Int) {
        state.withLock { ($0.entries.count, $0.totalBytes) }
    }

    private func evictOverflow(_ state: inout State, keeping key: LayoutKey) {
        while state.totalBytes > capacityBytes {
            // A scan, not a sorted structure: evictions are rare next to lookups. Lazily, so the scan
            // does not copy the store while its lock is held.
            let victim = state.entries.lazy.filter { $0.key != key }.min { $0.value.lastUse < $1.value.lastUse }
            guard let (victimKey, entry) = victim else { return }
            state.entries[victimKey] = nil
            state.totalBytes -= entry.bytes
            state.evictions += 1
            if backing == .memoryOnly {
                // With a journal the key is still kept, and listed.
                state.listed.remove(victimKey)
                _ = invalidate(&state, key: victimKey, reason: .evicted, contentSize: entry.layout.contentSize)
            }
        }
    }

    private func invalidate(_ state: inout State, key: LayoutKey, reason: InvalidationReason, contentSize: Size) -> Int {
        let version = (state.lastVersions[key] ?? 0) + 1
        state.lastVersions[key] = version
        onChange(.invalidated(key: key, version: version, reason: reason, contentSize: contentSize, epoch: state.epochs[key] ?? 0))
        return version
    }
}
