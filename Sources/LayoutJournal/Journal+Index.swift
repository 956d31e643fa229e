import Foundation

extension Journal {
    // MARK: The index

    /// Whether a change to `key` that gave `version` (with a body of `bytes`) must be written as a
    /// snapshot rather than a change: it does not follow the key's last write, a write of the key failed,
    /// or the key's changes have outgrown its rebuild body (`compaction`).
    public func needsSnapshot(of key: JournalKey, changeVersion version: Int, bytes: Int) -> Bool {
        state.withLock { state in
            guard let entry = state.index[key], entry.isKept, !entry.isBroken, entry.version == version - 1 else { return true }
            if compaction.afterChanges > 0, entry.changes + 1 > compaction.afterChanges { return true }
            if compaction.afterBytes > 0, entry.changeBytes + bytes > max(compaction.afterBytes, entry.rebuildBytes) { return true }
            return false
        }
    }

    /// Whether a change of `key` that gave `version` can be written as a change: the key's last write
    /// gave the version before it, and no write of the key has failed since (a broker, which keeps each
    /// key's whole recipe, writes the recipe again when not).
    public func follows(_ key: JournalKey, changeVersion version: Int) -> Bool {
        state.withLock { state in
            guard let entry = state.index[key] else { return false }
            return entry.isKept && !entry.isBroken && entry.version == version - 1
        }
    }

    /// What the index knows of `key`; nil for a key never journaled (or, while the index is still
    /// being read in the background, not read yet: `resolvedEntry(for:)` looks it up).
    public func entry(for key: JournalKey) -> Entry? {
        state.withLock { $0.index[key] }
    }

    /// The kept keys of `namespace` (nil: every namespace), with what the index knows of them.
    public func keptKeys(in namespace: String?) -> [(key: JournalKey, entry: Entry)] {
        state.withLock { state in
            state.index.filter { $0.value.isKept && (namespace == nil || $0.key.namespace == namespace) }.map { ($0.key, $0.value) }
        }
    }


    /// Applies `write` to `index`; returns how the count of kept keys changed (-1, 0 or 1).
    @discardableResult
    static func apply(_ write: JournalWrite, to index: inout [JournalKey: Entry], lsn: UInt64 = 0, bodyBytes: Int? = nil) -> Int {
        let bytes = bodyBytes ?? write.bodyBytes
        let wasKept = index[write.key]?.isKept ?? false
        defer { index[write.key]?.lsn = lsn }
        switch write {
        case .rebuild(let key, let version, let epoch, let items, _):
            index[key] = Entry(version: version, epoch: epoch, items: items, isKept: true, rebuildBytes: bytes, changeBytes: 0, changes: 0)
        case .change(let key, let version, let items, _):
            var entry = index[key] ?? Entry(version: version, epoch: 0, items: items, isKept: true, rebuildBytes: 0, changeBytes: 0, changes: 0)
            entry.version = version
            entry.items = items
            entry.changeBytes += bytes
            entry.changes += 1
            index[key] = entry
        case .drop(let key, let version):
            // The epoch stays what the key reached, as in the storages.
            index[key] = Entry(version: version, epoch: index[key]?.epoch ?? 0, items: 0, isKept: false, rebuildBytes: 0, changeBytes: 0, changes: 0)
        case .epoch(let key, let epoch):
            guard var entry = index[key] else { return 0 }
            entry.epoch = max(entry.epoch, epoch)
            index[key] = entry
        }
        return (index[write.key]?.isKept ?? false ? 1 : 0) - (wasKept ? 1 : 0)
    }
}
