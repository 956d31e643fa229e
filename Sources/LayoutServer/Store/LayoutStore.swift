import LayoutEngine
import LayoutWire
import Synchronization

/// A change the store made, in the order it made them; `version` is the layout's version after it.
public enum StoreChange: Sendable {
    /// `stamp`: the key's stamp (see `raiseStamp(of:to:)`; 0 when none was given), by which whoever
    /// stamps keys tells which of their stamps a change concerns.
    case invalidated(key: LayoutKey, version: Int, reason: InvalidationReason, contentSize: Size, stamp: UInt64 = 0)
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
///
/// What counts against the bound is everything a key costs (docs/OPERATIONS.md, What a key costs): its
/// layout as the heap holds it (`PreparedLayout.byteCount`), the store's own tables, and what others
/// keep per key (`perKeyBytes`: the journal's index). A key whose layout was evicted or dropped still
/// has its version kept, and its share of the tables.
public final class LayoutStore: Sendable {
    public struct Entry: Sendable {
        public var layout: PreparedLayout
        public var version: Int
        /// What the key costs: its layout and its share of the store's tables and of `perKeyBytes`.
        public var bytes: Int
    }

    /// A summary of one kept layout (the `list` op).
    public struct Summary: Sendable, Hashable {
        public var key: LayoutKey
        public var version: Int
        public var items: Int
        public var bytes: Int
        /// The key's stamp (see `raiseStamp(of:to:)`; 0 when none was given).
        public var stamp: UInt64 = 0
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
    private let state = Mutex(StoreState())
    private let onChange: @Sendable (StoreChange) -> Void
    /// Bytes kept elsewhere for every key the store knows (the journal's index entry).
    private let perKeyBytes: Int

    /// - Parameter perKeyBytes: what other parts of the daemon keep for each key the store knows (the
    ///   journal's index entry), counted against the bound with the store's own.
    public init(capacityBytes: Int, backing: Backing = .memoryOnly, perKeyBytes: Int = 0, onChange: @escaping @Sendable (StoreChange) -> Void) {
        self.capacityBytes = capacityBytes
        self.backing = backing
        self.perKeyBytes = perKeyBytes
        self.onChange = onChange
    }

    /// The entry under `key`, marked as just used.
    public func entry(forKey key: LayoutKey) -> Entry? {
        state.withLock { state in
            guard let slot = state.slot(of: key), let layout = state[slot].layout else { return nil }
            state.touch(slot)
            return Entry(layout: layout, version: state[slot].version, bytes: state.bytes(of: slot, perKey: perKeyBytes))
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
        state.withLock { state in state.slot(of: key).map { state[$0].version } ?? 0 }
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
            let existing = state.slot(of: key)
            let current = existing.map { state[$0].version } ?? 0
            if let requiredVersion, current != requiredVersion {
                return .versionConflict(current: current)
            }
            // A search of the order only for a key whose layout is not in memory: changes come by the ten thousand.
            if existing.map({ state[$0].layout == nil }) ?? true { state.listed.insert(key) }
            if let expectedVersion {
                guard let existing, state[existing].layout != nil, current == expectedVersion else { return .stale }
            }
            let slot = existing ?? state.addSlot(for: key)
            let version = current + 1
            state[slot].version = version
            state.keep(layout, bytes: bytes, in: slot)
            switch cause {
            case .prepare:
                if current > 0 {
                    onChange(.invalidated(key: key, version: version, reason: .replaced, contentSize: layout.contentSize))
                }
            case .bounds:
                onChange(.invalidated(key: key, version: version, reason: .bounds, contentSize: layout.contentSize))
            case .batch(let members?):
                onChange(.batch(key: key, version: version, members: members, contentSize: layout.contentSize))
            case .batch(nil):
                break
            }
            evictOverflow(&state, keeping: slot)
            return .stored(version: version)
        }
    }

    /// Forgets `key`, publishing `invalidated` with reason `dropped`; returns the version of that event.
    /// With `ifVersion`, only a layout kept at that version is dropped (`versionConflict` otherwise).
    public func drop(_ key: LayoutKey, ifVersion: Int? = nil) -> Result<Int, DropRefusal> {
        state.withLock { state in
            guard let slot = state.slot(of: key), let layout = state[slot].layout else { return .failure(.unknown) }
            let version = state[slot].version
            if let ifVersion, version != ifVersion { return .failure(.versionConflict(current: version)) }
            state.forgetLayout(in: slot)
            state.listed.remove(key)
            return .success(invalidate(&state, slot: slot, reason: .dropped, contentSize: layout.contentSize))
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
        let bytes = layout?.byteCount ?? 0
        if layout != nil, bytes > capacityBytes { return .tooLarge }
        return state.withLock { state in
            guard let layout else {
                if let slot = state.slot(of: key) {
                    state.forgetLayout(in: slot)
                    state[slot].version = max(0, version)
                    state.removeIfEmpty(slot)
                } else if version > 0 {
                    let slot = state.addSlot(for: key)
                    state[slot].version = version
                }
                state.listed.remove(key)
                return .stored(version: version)
            }
            state.listed.insert(key)
            let slot = state.slot(of: key) ?? state.addSlot(for: key)
            state[slot].version = version
            state.keep(layout, bytes: bytes, in: slot)
            evictOverflow(&state, keeping: slot)
            return .stored(version: version)
        }
    }

    /// Keeps `layout` under `key` at `version`, publishing nothing, only when no layout is kept under the
    /// key and its version is still `version`: a layout rebuilt from the journal in the background, which
    /// a change made meanwhile must win over. Evicts as `store` does; true when kept.
    public func restoreIfAbsent(_ layout: PreparedLayout, forKey key: LayoutKey, version: Int) -> Bool {
        let bytes = layout.byteCount
        guard bytes <= capacityBytes else { return false }
        return state.withLock { state in
            guard let slot = state.slot(of: key), state[slot].layout == nil, state[slot].version == version else { return false }
            state.listed.insert(key)
            state.keep(layout, bytes: bytes, in: slot)
            evictOverflow(&state, keeping: slot)
            return true
        }
    }

    /// Publishes `invalidated` with reason `lost` for `key`, forgetting its layout: one that cannot be
    /// rebuilt (a corrupt journal record). Returns the version of that event.
    public func markLost(_ key: LayoutKey, contentSize: Size = .zero) -> Int {
        state.withLock { state in
            state.listed.remove(key)
            let slot = state.slot(of: key) ?? state.addSlot(for: key)
            state.forgetLayout(in: slot)
            return invalidate(&state, slot: slot, reason: .lost, contentSize: contentSize)
        }
    }

    /// Whether a layout is in memory under `key` (without marking it used).
    public func isResident(_ key: LayoutKey) -> Bool {
        state.withLock { state in state.slot(of: key).map { state[$0].layout != nil } ?? false }
    }

    /// Forgets `key` and its version, publishing nothing: the key now lives elsewhere (a cluster worker
    /// giving up a key that moved to another worker). True when a layout was kept.
    @discardableResult
    public func release(_ key: LayoutKey) -> Bool {
        state.withLock { state in
            state.listed.remove(key)
            guard let slot = state.slot(of: key) else { return false }
            let wasResident = state[slot].layout != nil
            state.removeSlot(slot)
            return wasResident
        }
    }

    /// Raises `key`'s stamp to `stamp` (never lowers it): a number its host attaches to the key and
    /// reads back with its version (a cluster worker's: the broker epoch the key last changed under).
    /// The store only keeps it, with the key, for as long as it keeps the key's version.
    public func raiseStamp(of key: LayoutKey, to stamp: UInt64) {
        state.withLock { state in
            let slot = state.slot(of: key) ?? state.addSlot(for: key)
            if stamp > state[slot].stamp { state[slot].stamp = stamp }
        }
    }

    /// The kept layout under `key`, its version and stamp; nil when none is kept. One lookup: a
    /// cluster worker's direct endpoint asks it for every read it answers.
    public func summary(forKey key: LayoutKey) -> Summary? {
        state.withLock { state in
            guard let slot = state.slot(of: key) else { return nil }
            return state.summary(of: slot, perKey: perKeyBytes)
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
                Listed(key: key, summary: state.slot(of: key).flatMap { state.summary(of: $0, perKey: perKeyBytes) })
            }
            return (entries, more)
        }
    }

    /// What a journal holds of a key: the version its count goes on from (a dropped key's too), and
    /// whether it keeps a layout (then `list` shows the key until it is dropped or lost).
    public struct Journaled: Sendable, Hashable {
        public var key: LayoutKey
        public var version: Int
        public var isKept: Bool
    }

    /// Takes what a journal holds of `keys` (after a start, read in the background, or looked up for
    /// one op), for each key the store knows nothing of yet: a key it knows was changed, dropped or
    /// taken since, which wins. Nothing is published and no layout comes into memory.
    public func adoptJournaled(_ keys: some Sequence<Journaled>) {
        state.withLock { state in
            for journaled in keys where state.slot(of: journaled.key) == nil {
                if journaled.version > 0 { state[state.addSlot(for: journaled.key)].version = journaled.version }
                if journaled.isKept { state.listed.insert(journaled.key) }
            }
        }
    }

    /// Layouts pushed out of memory by its bound since the store began.
    public var evictions: Int {
        state.withLock { $0.evictions }
    }

    /// Number of kept layouts and the bytes counted against the bound: layouts, the store's tables and
    /// `perKeyBytes` for every key it knows.
    public var usage: (count: Int, bytes: Int) {
        state.withLock { ($0.resident, $0.totalBytes(perKey: perKeyBytes)) }
    }

    /// Evicts least recently used layouts (never `kept`'s) while the store is over its bound.
    private func evictOverflow(_ state: inout StoreState, keeping kept: Int32) {
        while state.totalBytes(perKey: perKeyBytes) > capacityBytes {
            var victim = state.oldest
            if victim == kept { victim = state[kept].newer }
            guard victim >= 0 else { return }
            guard let layout = state[victim].layout else { return }
            state.forgetLayout(in: victim)
            state.evictions += 1
            if backing == .memoryOnly {
                // With a journal the key is still kept, and listed.
                state.listed.remove(state[victim].key)
                _ = invalidate(&state, slot: victim, reason: .evicted, contentSize: layout.contentSize)
            }
        }
    }

    private func invalidate(_ state: inout StoreState, slot: Int32, reason: InvalidationReason, contentSize: Size) -> Int {
        let version = state[slot].version + 1
        state[slot].version = version
        onChange(.invalidated(key: state[slot].key, version: version, reason: reason, contentSize: contentSize, stamp: state[slot].stamp))
        return version
    }
}
