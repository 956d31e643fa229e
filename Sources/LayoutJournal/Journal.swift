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
/// follow the key's last write or needs a snapshot. It is read at open, or after it in the background
/// (`loadsKeysInBackground`, `Journal+KeyLoading.swift`). Writing: `Journal+Writer.swift`; the index:
/// `Journal+Index.swift`.
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
        /// False while the index is still being read in the background (`loadKeysInBackground`):
        /// `keys` counts the kept keys read so far.
        public var isIndexComplete = true
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
        /// False from an `open` that leaves reading the index to `loadKeysInBackground` until it is
        /// read: meanwhile a key missing from it is looked up in the database (`resolvedEntry(for:)`).
        var isIndexComplete = true
    }

    public let url: JournalURL
    public let durability: JournalDurability
    /// With `async` durability, how long a commit may wait to reach the disk, in ms.
    public let syncMillis: Int
    public let compaction: Compaction
    let state: Mutex<State>
    let reader: Mutex<StorageBox>
    let wake = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    /// With the log and `sync` durability: wakes the thread that syncs the log, and says it has ended.
    let syncWake = DispatchSemaphore(value: 0)
    let syncFinished = DispatchSemaphore(value: 0)
    let finishedCheckpoints = DispatchSemaphore(value: 0)
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
    /// With `loadsKeysInBackground`: the connection that reads the index, until its thread takes it.
    let keyLoader: Mutex<StorageBox?>

    /// Lets go of `keysAtOpen` (about 100 bytes a key) once its readers have taken what they need.
    public func releaseKeysAtOpen() {
        openedKeys.withLock { $0 = [] }
    }
    /// What opening found worth a line in the operator's log (a torn write left out of the log, records
    /// replayed from it).
    public let notesAtOpen: [String]

    /// Opens the journal at `url` for `role`, reads its index (unless `loadsKeysInBackground`), and starts its thread; nil for `none`.
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
    /// - Parameter loadsKeysInBackground: leaves the index to `loadKeysInBackground` (`keysAtOpen` is
    ///   then empty), so that opening takes the same time whatever the key count; until the index is
    ///   read, `resolvedEntry(for:)` looks a key up in the database by itself.
    public static func open(
        _ url: JournalURL, role: JournalRole, durability: JournalDurability, syncMillis: Int, compaction: Compaction = Compaction(),
        fencingEpoch: UInt64? = nil, appendOnlyLog: Bool = false, postgresLogPath: String? = nil, loadsKeysInBackground: Bool = false,
        onCommit: @escaping @Sendable (JournalCommit) -> Void = { _ in },
        onSync: @escaping @Sendable (UInt64) -> Void = { _ in },
        onHealthChange: @escaping @Sendable (Bool, String?) -> Void = { _, _ in }
    ) throws(JournalError) -> Journal? {
        try open(
            url, role: role, durability: durability, syncMillis: syncMillis, compaction: compaction, fencingEpoch: fencingEpoch,
            appendOnlyLog: appendOnlyLog, postgresLogPath: postgresLogPath, loadsKeysInBackground: loadsKeysInBackground, logSync: AppendOnlyLog.fdatasyncFile,
            onCommit: onCommit, onSync: onSync, onHealthChange: onHealthChange
        )
    }

    /// `open`, with the log's segments synced by `logSync` (a test's stand-in for `fdatasync`), and the
    /// database behind the log seen through `wrapLogged` (a test's stand-in that fails as a disk would).
    static func open(
        _ url: JournalURL, role: JournalRole, durability: JournalDurability, syncMillis: Int, compaction: Compaction,
        fencingEpoch: UInt64?, appendOnlyLog: Bool, postgresLogPath: String?, loadsKeysInBackground: Bool = false, logSync: @escaping AppendOnlyLog.FileSync,
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
        let loader = loadsKeysInBackground ? try readingStorage(url, role: role, durability: durability) : nil
        let keys = loader == nil ? Self.mostRecentFirst(try writer.loadKeys()) : []
        return Journal(
            url: url, durability: durability, syncMillis: syncMillis, compaction: compaction, writer: writer, reader: reader, loader: loader, log: log,
            committedLSN: committed, keys: keys, notes: notes, onCommit: onCommit, onSync: onSync, onHealthChange: onHealthChange
        )
    }

    private init(
        url: JournalURL, durability: JournalDurability, syncMillis: Int, compaction: Compaction, writer: any JournalStorage, reader: any JournalStorage,
        loader: (any JournalStorage)?, log: AppendOnlyLog?, committedLSN: UInt64, keys: [JournalKeyState], notes: [String],
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
        keyLoader = Mutex(loader.map(StorageBox.init))
        var initial = State()
        initial.isIndexComplete = loader == nil
        initial.index.reserveCapacity(keys.count)
        for key in keys { initial.index[key.key] = Entry(key) }
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
                errors: state.errors, isWritable: state.isWritable, lastError: state.lastError, keys: state.keptCount,
                isIndexComplete: state.isIndexComplete
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

}

extension Journal {
    static var nowMillis: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}

/// A storage handed to the thread that alone uses it (the writer), or kept behind a lock (the reader).
struct StorageBox: @unchecked Sendable {
    // @unchecked Sendable: the writer's box is used by the journal thread only, after `init` hands it
    // over; the reader's lives in a Mutex.
    let storage: any JournalStorage

    init(_ storage: any JournalStorage) {
        self.storage = storage
    }
}
