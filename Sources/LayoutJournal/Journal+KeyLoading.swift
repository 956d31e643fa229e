import Foundation

/// Reading the index after an open that left it (`loadsKeysInBackground`): a million keys take seconds
/// to read, sort and index, and a daemon serves meanwhile. Until the index is complete, a key it does
/// not hold yet is looked up in the database by itself; writes made meanwhile win over what the
/// background read finds, being newer.
extension Journal {
    /// Whether the index holds every key (false while `loadKeysInBackground` is still reading it).
    public var isIndexComplete: Bool {
        state.withLock { $0.isIndexComplete }
    }

    /// What the index knows of `key`, nil for a key never journaled. While the index is still being
    /// read, a key it does not hold yet is read from the database and indexed: what an op on the key
    /// must know (its version goes on from there) before the background read gets to it.
    public func resolvedEntry(for key: JournalKey) throws(JournalError) -> Entry? {
        let (found, isComplete) = state.withLock { ($0.index[key], $0.isIndexComplete) }
        if found != nil || isComplete { return found }
        // No write of the key since the open (it would be indexed), and the open left the database
        // with every write the log held: the database has the key as it is.
        let stored = try reader.withLock { (box: inout StorageBox) throws(JournalError) -> JournalKeyState? in
            try box.storage.keyState(for: key)
        }
        return state.withLock { state in
            // A write, or the background read, that got there first is as new or newer.
            if let indexed = state.index[key] { return indexed }
            guard let stored else { return nil }
            state.index[key] = Entry(stored)
            state.keptCount += stored.isKept ? 1 : 0
            return state.index[key]
        }
    }

    /// Reads every key into the index on a thread of its own, then calls `loaded` there with every
    /// key read, most recently changed first. A journal opened without `loadsKeysInBackground` hands
    /// over `keysAtOpen` the same way. A read that fails is told to `onFailure` and tried again a
    /// second later; nothing is called once the journal is closing.
    public func loadKeysInBackground(onFailure: @escaping @Sendable (JournalError) -> Void, loaded: @escaping @Sendable ([JournalKeyState]) -> Void) {
        let box = keyLoader.withLock { loader in
            defer { loader = nil }
            return loader
        }
        let thread = Thread { [self] in
            guard let box else {
                loaded(keysAtOpen)
                return
            }
            var keys: [JournalKeyState]?
            while keys == nil, !isClosing {
                switch Result(catching: { () throws(JournalError) in try box.storage.loadKeys() }) {
                case .success(let read):
                    keys = Self.mostRecentFirst(read)
                case .failure(let error):
                    onFailure(error)
                    Thread.sleep(forTimeInterval: 1)
                }
            }
            guard let keys, !isClosing else { return }
            index(keys)
            if !isClosing { loaded(keys) }
        }
        thread.name = "layoutd-journal-keys"
        thread.start()
    }

    /// Adds `keys` to the index where it does not hold them, a slice per lock so that appends and
    /// lookups go on meanwhile; then the index is complete.
    private func index(_ keys: [JournalKeyState]) {
        state.withLock { $0.index.reserveCapacity($0.index.count + keys.count) }
        for start in stride(from: 0, to: keys.count, by: Self.indexSlice) {
            state.withLock { state in
                for key in keys[start..<min(keys.count, start + Self.indexSlice)] where state.index[key.key] == nil {
                    state.index[key.key] = Entry(key)
                    state.keptCount += key.isKept ? 1 : 0
                }
            }
        }
        state.withLock { $0.isIndexComplete = true }
    }

    /// Keys indexed per lock: a few ms of work, what an append may wait for.
    private static let indexSlice = 4096

    private var isClosing: Bool {
        state.withLock { $0.isClosing || $0.isStopping }
    }

    /// Keys in the order a restore takes them: most recently changed first.
    static func mostRecentFirst(_ keys: [JournalKeyState]) -> [JournalKeyState] {
        keys.sorted { ($0.changedAtMillis, $1.key) > ($1.changedAtMillis, $0.key) }
    }

    /// A connection that reads the journal at `url` (what the index is read through).
    static func readingStorage(_ url: JournalURL, role: JournalRole, durability: JournalDurability) throws(JournalError) -> (any JournalStorage)? {
        switch url {
        case .none: nil
        case .sqlite(let path): try SQLiteJournalStorage(path: path, role: role, durability: nil)
        case .postgres(let url): try PostgresJournalStorage(url: url, role: role, durability: durability)
        }
    }
}

extension Journal.Entry {
    init(_ state: JournalKeyState) {
        self.init(
            version: state.version, epoch: state.epoch, items: state.items, isKept: state.isKept,
            rebuildBytes: state.rebuildBytes, changeBytes: state.changeBytes, changes: state.changes
        )
    }
}
