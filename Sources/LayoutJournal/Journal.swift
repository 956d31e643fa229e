import Dispatch
import Foundation
import Synchronization

/// The journal of acknowledged changes: what rebuilds every kept layout, written by a thread of its own
/// in group commits, so that no I/O or routing thread ever waits on a disk or a database.
///
/// `append` queues a write and returns at once; its completion runs on the journal thread once the
/// write is committed (and, with `sync` durability, on the disk). Writes are committed in the order they
/// were appended, all the writes waiting at once in one transaction. Reads (`recipe(for:)`) go through
/// a connection of their own.
///
/// With an append-only log in front of SQLite (`AppendOnlyLog`, a single daemon's journal), `append`
/// writes the change to the log on the caller's thread instead: with `async` durability its completion
/// runs at once, on that thread; with `sync`, on the log's syncing thread once the log is synced. The
/// journal thread copies the log into SQLite behind the replies (`Journal+Log.swift`).
///
/// The journal keeps an index of every key in memory (its version and the sizes of its bodies), brought
/// up to date as writes are appended, so that the daemon decides without a read whether a change can
/// follow the key's last write or needs a snapshot.
public final class Journal: Sendable {
    /// When a key's changes are folded into a snapshot (`journal.compactAfterBytes`, `…Changes`).
    public struct Compaction: Sendable, Hashable {
        /// Once the changes add up to more than this or the rebuild body's own bytes, whichever is more.
        public var afterBytes = 64 * 1024
        /// Once there are more changes than this (each costs a step when the key is rebuilt).
        public var afterChanges = 1024

        public init() {}
    }

    /// What `statistics` reads.
    public struct Statistics: Sendable, Hashable {
        public var url: String
        public var durability: JournalDurability
        public var bytes: Int
        public var commits: Int
        public var records: Int
        public var errors: Int
        public var isWritable: Bool
        public var lastError: String?
        public var keys: Int
    }

    public typealias Completion = @Sendable (Result<Void, JournalError>) -> Void

    struct Pending {
        var record: LoggedWrite
        /// Nil for a logged write with `async` durability, whose completion ran when it was logged.
        var completion: Completion?
    }

    struct State: ~Copyable {
        var pending: [Pending] = []
        var index: [JournalKey: Entry] = [:]
        /// How many entries of `index` are kept, counted as they change: `stats` reads it, and counting
        /// a million entries took half a second.
        var keptCount = 0
        var isWritable = true
        var lastError: String?
        var isStopping = false
        var commits = 0
        var records = 0
        var errors = 0
        var bytes = 0
        /// With the log: the lsn of the last record committed to SQLite.
        var committedLSN: UInt64 = 0
        /// With the log: readers waiting for SQLite to have a key's records (the journal thread then
        /// commits at once), each with the lsn it waits for.
        var readers: [(lsn: UInt64, ready: DispatchSemaphore)] = []
        /// With the log: when `pending` last became non-empty, and whether the journal thread is
        /// letting it gather (appends then do not wake it).
        var pendingSince = DispatchTime.now()
        var isGathering = false
        /// With the log and `sync` durability: the completions of writes in the log, in log order,
        /// waiting for the log's next `fdatasync` (`runLogSyncer`).
        var syncWaiting: [Completion] = []
        /// Set by `close` once appends stopped, before `isStopping`: the log's syncing thread ends
        /// before the journal thread can close the log.
        var isSyncerStopping = false
        /// `close` was called (once is enough).
        var isClosing = false
        /// When writing last failed: the next probe waits `probeMillis` from then.
        var failedAt = DispatchTime.now()
    }

    public let url: JournalURL
    public let durability: JournalDurability
    /// With `async` durability, how long a commit may wait to reach the disk, in ms.
    public let syncMillis: Int
    public let compaction: Compaction
    let state: Mutex<State>
    private let reader: Mutex<StorageBox>
    let wake = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    /// With the log and `sync` durability: wakes the thread that syncs the log, and says it has ended.
    let syncWake = DispatchSemaphore(value: 0)
    let syncFinished = DispatchSemaphore(value: 0)
    private let finishedCheckpoints = DispatchSemaphore(value: 0)
    let onCommit: @Sendable (JournalCommit) -> Void
    let onSync: @Sendable (UInt64) -> Void
    let onHealthChange: @Sendable (Bool, String?) -> Void
    /// The append-only log in front of SQLite; nil where changes go straight to the database.
    let log: AppendOnlyLog?
    /// Whether changes are written to the append-only log on the thread that made them.
    public var writesALog: Bool {
        log != nil
    }

    /// Whether changes wait for syncs of the log (the log with `sync` durability): `onSync` is told of them.
    public var syncsLog: Bool {
        log != nil && durability == .sync
    }

    /// The keys found at open, most recently changed first, until `releaseKeysAtOpen()`.
    public var keysAtOpen: [JournalKeyState] {
        openedKeys.withLock { $0 }
    }

    private let openedKeys: Mutex<[JournalKeyState]>

    /// Lets go of `keysAtOpen` (about 100 bytes a key) once its readers have taken what they need.
    public func releaseKeysAtOpen() {
        openedKeys.withLock { $0 = [] }
    }
    /// What opening found worth a line in the operator's log (a torn write left out of the log, records
    /// replayed from it).
    public let notesAtOpen: [String]

    /// Opens the journal at `url` for `role`, reads its index, and starts its thread; nil for `none`.
    /// - Parameter onCommit: told of every group commit, on the journal thread.
    /// - Parameter onSync: with the log and `sync` durability, told how long each of the log's syncs
    ///   took, in µs (what a change's reply waits for), on the thread that syncs it.
    /// - Parameter onHealthChange: told when writing stops working (false, why) and works again (true).
    /// - Parameter fencingEpoch: with PostgreSQL, the epoch of the broker lease (`BrokerLease`) this
    ///   writer holds: every group commit checks it, so a broker whose lease was taken writes nothing more.
    /// - Parameter appendOnlyLog: with SQLite, puts an append-only log in front of the database
    ///   (`AppendOnlyLog`), written by the thread that appends; what it holds that SQLite does not is
    ///   replayed into SQLite here. For a thread that may write a file (a daemon's workers), not for one
    ///   that must never wait on a disk (a broker's routing thread).
    /// - Parameter postgresLogPath: with PostgreSQL, `async` durability and no fencing (a single
    ///   daemon's journal), puts the append-only log in front of the database, at this path on the local
    ///   disk (`journal.logPath`): a change is then answered once it is in the log, and the database has
    ///   it within `syncMillis`, as `async` promises. Not with `sync`, which promises the server has the
    ///   change, nor for a broker, whose journal must hold everything for a standby on another machine.
    public static func open(
        _ url: JournalURL, role: JournalRole, durability: JournalDurability, syncMillis: Int, compaction: Compaction = Compaction(),
        fencingEpoch: UInt64? = nil, appendOnlyLog: Bool = false, postgresLogPath: String? = nil,
        onCommit: @escaping @Sendable (JournalCommit) -> Void = { _ in },
        onSync: @escaping @Sendable (UInt64) -> Void = { _ in },
        onHealthChange: @escaping @Sendable (Bool, String?) -> Void = { _, _ in }
    ) throws(JournalError) -> Journal? {
        try open(
            url, role: role, durability: durability, syncMillis: syncMillis, compaction: compaction, fencingEpoch: fencingEpoch,
            appendOnlyLog: appendOnlyLog, postgresLogPath: postgresLogPath, logSync: AppendOnlyLog.fdatasyncFile,
            onCommit: onCommit, onSync: onSync, onHealthChange: onHealthChange
        )
    }

    /// `open`, with the log's segments synced by `logSync` (a test's stand-in for `fdatasync`), and the
    /// database behind the log seen through `wrapLogged` (a test's stand-in that fails as a disk would).
    static func open(
        _ url: JournalURL, role: JournalRole, durability: JournalDurability, syncMillis: Int, compaction: Compaction,
        fencingEpoch: UInt64?, appendOnlyLog: Bool, postgresLogPath: String?, logSync: @escaping AppendOnlyLog.FileSync,
        wrapLogged: (any LoggedJournalStorage) -> any LoggedJournalStorage = { $0 },
        onCommit: @escaping @Sendable (JournalCommit) -> Void = { _ in },
        onSync: @escaping @Sendable (UInt64) -> Void = { _ in },
        onHealthChange: @escaping @Sendable (Bool, String?) -> Void = { _, _ in }
    ) throws(JournalError) -> Journal? {
        let writer: any JournalStorage
        let reader: any JournalStorage
        var log: AppendOnlyLog?
        var notes: [String] = []
        var committed: UInt64 = 0
        switch url {
        case .none:
            return nil
        case .sqlite(let path) where appendOnlyLog:
            let storage = wrapLogged(try SQLiteJournalStorage(path: path, role: role, durability: nil))
            (log, committed, notes) = try Self.replayLog(at: path, role: role, durability: durability, into: storage, syncFile: logSync)
            writer = storage
            reader = try SQLiteJournalStorage(path: path, role: role, durability: nil)
        case .sqlite(let path):
            writer = try SQLiteJournalStorage(path: path, role: role, durability: durability)
            reader = try SQLiteJournalStorage(path: path, role: role, durability: durability)
        case .postgres(let url) where appendOnlyLog && durability == .async && fencingEpoch == nil && postgresLogPath != nil:
            let path = postgresLogPath ?? ""
            // Its commits synchronous (`sync`): one a `syncMillis`, so the flush costs little, and a
            // commit the server has answered is on its disk: a server crash cannot take a batch the
            // log has already let go of.
            let storage = try PostgresJournalStorage(url: url, role: role, durability: .sync)
            // A log in front of PostgreSQL has no SQLite file that made its folder.
            try JournalFolder.make(for: path)
            (log, committed, notes) = try Self.replayLog(at: path, role: role, durability: durability, into: storage, syncFile: logSync)
            writer = storage
            reader = try PostgresJournalStorage(url: url, role: role, durability: durability)
        case .postgres(let url):
            let storage = try PostgresJournalStorage(url: url, role: role, durability: durability, fencingEpoch: fencingEpoch)
            if let postgresLogPath, appendOnlyLog, fencingEpoch == nil {
                // A log an `async` run left (its last changes may be in it alone) is replayed, not ignored.
                (_, _, notes) = try Self.replay(at: postgresLogPath, role: role, into: storage)
            }
            writer = storage
            reader = try PostgresJournalStorage(url: url, role: role, durability: durability)
        }
        let keys = try writer.loadKeys().sorted { ($0.changedAtMillis, $1.key) > ($1.changedAtMillis, $0.key) }
        return Journal(
            url: url, durability: durability, syncMillis: syncMillis, compaction: compaction, writer: writer, reader: reader, log: log,
            committedLSN: committed, keys: keys, notes: notes, onCommit: onCommit, onSync: onSync, onHealthChange: onHealthChange
        )
    }

    private init(
        url: JournalURL, durability: JournalDurability, syncMillis: Int, compaction: Compaction, writer: any JournalStorage, reader: any JournalStorage,
        log: AppendOnlyLog?, committedLSN: UInt64, keys: [JournalKeyState], notes: [String],
        onCommit: @escaping @Sendable (JournalCommit) -> Void, onSync: @escaping @Sendable (UInt64) -> Void,
        onHealthChange: @escaping @Sendable (Bool, String?) -> Void
    ) {
        self.log = log
        self.onSync = onSync
        notesAtOpen = notes
        self.url = url
        self.durability = durability
        self.syncMillis = max(1, syncMillis)
        self.compaction = compaction
        self.onCommit = onCommit
        self.onHealthChange = onHealthChange
        openedKeys = Mutex(keys)
        var initial = State()
        initial.index.reserveCapacity(keys.count)
        for key in keys {
            initial.index[key.key] = Entry(
                version: key.version, epoch: key.epoch, items: key.items, isKept: key.isKept,
                rebuildBytes: key.rebuildBytes, changeBytes: key.changeBytes, changes: key.changes
            )
        }
        initial.keptCount = keys.reduce(0) { $0 + ($1.isKept ? 1 : 0) }
        initial.bytes = writer.byteCount()
        initial.committedLSN = committedLSN
        state = Mutex(initial)
        self.reader = Mutex(StorageBox(reader))
        let box = StorageBox(writer)
        let thread = Thread { [self] in
            if let log, let storage = box.storage as? any LoggedJournalStorage {
                runLoggedWriter(storage, log: log)
            } else {
                runWriter(box.storage)
            }
        }
        thread.name = "layoutd-journal"
        thread.start()
        if log != nil && durability == .sync {
            // Of its own, so that no SQLite commit (up to tens of ms for a second's writes) delays a
            // reply waiting for the log's sync.
            let syncer = Thread { [self] in runLogSyncer() }
            syncer.name = "layoutd-journal-sync"
            syncer.start()
        }
        let checkpoints = Thread { [self] in runCheckpoints() }
        checkpoints.name = "layoutd-journal-checkpoint"
        checkpoints.start()
    }

    // MARK: Writing

    /// Queues `write`; `completion` runs on the journal thread once it is committed (or has failed).
    /// The index takes the write at once, so the next decision for the key sees it.
    ///
    /// - Parameter body: the body of a rebuild or a change still in the memory it arrived in, used
    ///   instead of `write`'s own (left empty): with the log, nothing of it is copied on this thread.
    public func append(_ write: JournalWrite, body: (any JournalBodySource)? = nil, completion: @escaping Completion) {
        if let log { return append(write, source: body, to: log, completion: completion) }
        let write = body.map { write.withBody($0.joined()) } ?? write
        let (accepted, first) = state.withLock { state -> (Bool, Bool) in
            guard !state.isStopping else { return (false, false) }
            state.pending.append(Pending(record: LoggedWrite(lsn: 0, write: write, atMillis: 0, checksum: 0), completion: completion))
            state.keptCount += Self.apply(write, to: &state.index)
            return (true, state.pending.count == 1)
        }
        guard accepted else {
            completion(.failure(JournalError(.writeFailed, "the journal is closing")))
            return
        }
        // Only the first write of a batch wakes the journal thread: the others join the commit it
        // takes them in (one wake-up per group commit, not per change).
        if first { wake.signal() }
    }

    /// Appends `write` and returns its outcome, where the journal answers at once: an append-only log
    /// with `async` durability, where a write is journaled once it is in the log, on this thread.
    /// Elsewhere nil, and nothing is appended: call `append(_:completion:)`.
    public func appendAtOnce(_ write: JournalWrite, body: (any JournalBodySource)? = nil) -> Result<Void, JournalError>? {
        guard let log, durability == .async else { return nil }
        return appendAnsweringAtOnce(write, source: body, to: log, completion: nil)
    }

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

    /// Whether a write of `key` failed since the last write of it was asked for: the journal's record of
    /// the key may be older than what its writer holds.
    public func writeFailed(of key: JournalKey) -> Bool {
        state.withLock { $0.index[key]?.isBroken ?? false }
    }

    /// Whether writes are working (false from a failed write until one succeeds again).
    public var isWritable: Bool {
        state.withLock { $0.isWritable }
    }

    /// Why the last write failed, while writing does not work.
    public var unwritableReason: String? {
        state.withLock { $0.isWritable ? nil : $0.lastError }
    }

    // MARK: Reading

    /// What the index knows of `key`; nil for a key never journaled.
    public func entry(for key: JournalKey) -> Entry? {
        state.withLock { $0.index[key] }
    }

    /// The kept keys of `namespace` (nil: every namespace), with what the index knows of them.
    public func keptKeys(in namespace: String?) -> [(key: JournalKey, entry: Entry)] {
        state.withLock { state in
            state.index.filter { $0.value.isKept && (namespace == nil || $0.key.namespace == namespace) }.map { ($0.key, $0.value) }
        }
    }

    /// The bodies that rebuild `key` as committed, each checked; nil when the key is not kept. With the
    /// log, waits (bounded) for SQLite to have the key's last write.
    public func recipe(for key: JournalKey) throws(JournalError) -> JournalRecipe? {
        if log != nil { try awaitDatabase(for: key) }
        return try reader.withLock { (box: inout StorageBox) throws(JournalError) -> JournalRecipe? in
            try box.storage.recipe(for: key)
        }
    }

    public var statistics: Statistics {
        let logBytes = log?.byteCount ?? 0
        return state.withLock { state in
            Statistics(
                url: url.description, durability: durability, bytes: state.bytes + logBytes, commits: state.commits, records: state.records,
                errors: state.errors, isWritable: state.isWritable, lastError: state.lastError, keys: state.keptCount
            )
        }
    }

    /// Commits what is queued, makes it durable, and stops the journal thread; appends after this fail.
    public func close() {
        // The log first: once the journal thread sees `isStopping`, nothing more can come to it.
        log?.stopAppending()
        let first = state.withLock { state -> Bool in
            defer { state.isClosing = true }
            return !state.isClosing
        }
        guard first else { return }
        if syncsLog {
            // The log's last sync, before the journal thread may close the log.
            state.withLock { $0.isSyncerStopping = true }
            syncWake.signal()
            syncFinished.wait()
        }
        state.withLock { $0.isStopping = true }
        wake.signal()
        finished.wait()
        finishedCheckpoints.wait()
        reader.withLock { $0.storage.checkpoint() }
    }

    // MARK: The journal thread

    private func runWriter(_ storage: any JournalStorage) {
        var unsynced = false
        var lastSync = DispatchTime.now()
        while true {
            // While writing fails, a probe every `probeMillis`, however long `syncMillis` is.
            let idleMillis = unsynced ? syncMillis : 1000
            let idleWait: DispatchTimeInterval = .milliseconds(isWritable ? idleMillis : min(idleMillis, Self.probeMillis))
            _ = wake.wait(timeout: .now() + idleWait)
            let (batch, stopping, writable) = state.withLock { state -> ([Pending], Bool, Bool) in
                defer { state.pending.removeAll(keepingCapacity: true) }
                return (state.pending, state.isStopping, state.isWritable)
            }
            if !writable && batch.isEmpty { probe(storage) }
            if !batch.isEmpty {
                commit(batch, to: storage)
                unsynced = unsynced || durability == .async
            }
            let elapsedMillis = (DispatchTime.now().uptimeNanoseconds - lastSync.uptimeNanoseconds) / 1_000_000
            if unsynced && (elapsedMillis >= UInt64(syncMillis) || stopping) {
                do {
                    try storage.makeDurable()
                } catch {
                    noteFailure(error, keys: [])
                }
                unsynced = false
                lastSync = .now()
            }
            if stopping && state.withLock({ $0.pending.isEmpty }) { break }
        }
        finished.signal()
    }

    /// SQLite's WAL copied into the database file now and then, on a thread of its own, so that no
    /// group commit waits for it (the reading connection does it, between restores).
    private func runCheckpoints() {
        while !state.withLock({ $0.isStopping }) {
            Thread.sleep(forTimeInterval: 0.25)
            reader.withLock { $0.storage.checkpoint() }
        }
        finishedCheckpoints.signal()
    }

    private func commit(_ batch: [Pending], to storage: any JournalStorage) {
        let started = DispatchTime.now().uptimeNanoseconds
        let writes = batch.map(\.record.write)
        do {
            try storage.write(Self.withoutSuperseded(writes) { $0 }, atMillis: Int64(Date().timeIntervalSince1970 * 1000))
        } catch {
            noteFailure(error, keys: writes.map(\.key))
            for pending in batch { pending.completion?(.failure(error)) }
            return
        }
        let micros = (DispatchTime.now().uptimeNanoseconds - started) / 1000
        let bytes = storage.byteCount()
        let recovered = state.withLock { state -> Bool in
            state.commits += 1
            state.records += batch.count
            state.bytes = bytes
            defer { state.isWritable = true; state.lastError = nil }
            return !state.isWritable
        }
        if recovered { onHealthChange(true, nil) }
        onCommit(JournalCommit(records: batch.count, bytes: writes.reduce(0) { $0 + $1.bodyBytes }, micros: micros))
        for pending in batch { pending.completion?(.success(())) }
    }

    private func probe(_ storage: any JournalStorage) {
        guard isProbeDue else { return }
        do {
            try storage.probe()
        } catch {
            return
        }
        let recovered = state.withLock { state -> Bool in
            defer { state.isWritable = true; state.lastError = nil }
            return !state.isWritable
        }
        if recovered { onHealthChange(true, nil) }
    }

    /// How long after a failure, and between probes, writing is tried again: a probe that works while
    /// real writes fail (a disk with room for the probe's bytes only) then flips readiness at most
    /// this often, not once a request.
    static let probeMillis = 250

    /// Whether `probeMillis` have passed since writing last failed.
    var isProbeDue: Bool {
        Self.millis(since: state.withLock { $0.failedAt }) >= Self.probeMillis
    }

    func noteFailure(_ error: JournalError, keys: [JournalKey]) {
        let wasWritable = state.withLock { state -> Bool in
            state.errors += 1
            state.failedAt = .now()
            for key in keys { state.index[key]?.isBroken = true }
            defer { state.isWritable = false; state.lastError = error.message }
            return state.isWritable
        }
        if wasWritable {
            onHealthChange(false, error.message)
            // The journal thread may be asleep for a whole `syncMillis`: it probes from now on.
            wake.signal()
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

extension Journal {
    static var nowMillis: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}

/// A storage handed to the thread that alone uses it (the writer), or kept behind a lock (the reader).
private struct StorageBox: @unchecked Sendable {
    // @unchecked Sendable: the writer's box is used by the journal thread only, after `init` hands it
    // over; the reader's lives in a Mutex.
    let storage: any JournalStorage

    init(_ storage: any JournalStorage) {
        self.storage = storage
    }
}
