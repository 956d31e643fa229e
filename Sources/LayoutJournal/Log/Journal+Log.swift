import Dispatch
import Foundation

/// The journal with its append-only log in front of SQLite (`AppendOnlyLog`): appending on the
/// caller's thread, and the journal thread copying the log into SQLite behind the replies.
extension Journal {
    /// How long the journal thread lets logged writes gather before it commits them to SQLite: a
    /// larger transaction writes fewer pages per change (a key's index page once, not once a change).
    /// Nothing waits for these commits but a restore of a key changed meanwhile, which asks for one at
    /// once; `journal.syncMillis` (from 20 ms to 1 s), after which they are synced anyway.
    var databaseBatchMillis: Int { min(1000, max(20, syncMillis)) }
    /// A backlog this large is committed without waiting for the batch.
    static let databaseBatchBytes = 16 << 20
    /// How long a restore waits for SQLite to have its key's last write before it gives up.
    static let readerPatienceSeconds = 10

    // MARK: Opening

    /// Copies what the log at `path` holds past SQLite's position into SQLite, makes it durable, deletes
    /// the log's segments, and starts a new one: the log, the lsn SQLite has, and notes for the operator.
    static func replayLog(
        at path: String, role: JournalRole, durability: JournalDurability, into storage: any LoggedJournalStorage, syncFile: @escaping AppendOnlyLog.FileSync
    ) throws(JournalError) -> (AppendOnlyLog, UInt64, [String]) {
        let (lastNumber, last, notes) = try replay(at: path, role: role, into: storage)
        let log = try AppendOnlyLog(path: path, role: role, after: lastNumber, nextLSN: last + 1, syncsZerosAhead: durability == .sync, syncFile: syncFile)
        return (log, last, notes)
    }

    /// Copies what the log at `path` holds past the storage's position into it, makes it durable and
    /// deletes the log's segments (a journal that keeps no log now replays the one a crash left): the
    /// number of the last segment, the lsn the storage has, and notes for the operator.
    static func replay(at path: String, role: JournalRole, into storage: any LoggedJournalStorage) throws(JournalError) -> (Int, UInt64, [String]) {
        let position = try storage.logPosition()
        var replayed = 0
        // A transaction a segment, so that memory holds one segment at a time; a failure part-way
        // leaves the storage's position after the last segment written, where the next start goes on.
        let recovered = try AppendOnlyLog.recover(path: path, role: role) { records throws(JournalError) in
            let missing = records.filter { $0.lsn > position }
            guard !missing.isEmpty else { return }
            try storage.write(logged: withoutSuperseded(missing) { $0.write })
            replayed += missing.count
        }
        var notes = recovered.notes
        if replayed > 0 { notes.append("\(path): \(replayed) changes replayed from the journal's log into its database") }
        // SQLite on the disk before the log goes, also when it had every record already: its last
        // commits may not have been synced when the process ended.
        if recovered.records > 0 { try storage.makeDurable() }
        AppendOnlyLog.remove(recovered.segments, of: path)
        return (recovered.lastNumber, max(position, recovered.lastLSN), notes)
    }

    // MARK: Appending

    /// Writes `write` to the log on this thread. With `async` durability `completion` runs here once it
    /// is written; with `sync`, on the log's syncing thread once the log is on the disk.
    func append(_ write: JournalWrite, source: (any JournalBodySource)?, to log: AppendOnlyLog, completion: @escaping Completion) {
        if durability == .async {
            completion(appendAnsweringAtOnce(write, source: source, to: log, completion: nil))
        } else {
            _ = appendAnsweringAtOnce(write, source: source, to: log, completion: completion)
        }
    }

    /// Writes `write` to the log; the outcome so far (with `completion`, the log's syncing thread
    /// answers it once the log is on the disk).
    func appendAnsweringAtOnce(_ write: JournalWrite, source: (any JournalBodySource)?, to log: AppendOnlyLog, completion: Completion?) -> Result<Void, JournalError> {
        let now = Self.nowMillis
        let (first, firstWaiting): (Bool, Bool)
        do {
            (first, firstWaiting) = try log.append(write, source: source, atMillis: now) { logged in
                state.withLock { state in
                    state.pending.append(Pending(record: logged, completion: nil))
                    // Counted as journaled here, where it became durable against a crash.
                    state.records += 1
                    state.keptCount += Self.apply(write, to: &state.index, lsn: logged.lsn, bodyBytes: logged.bodyBytes)
                    var firstWaiting = false
                    if let completion {
                        state.syncWaiting.append(completion)
                        firstWaiting = state.syncWaiting.count == 1
                    }
                    guard state.pending.count == 1 else { return (false, firstWaiting) }
                    state.pendingSince = .now()
                    return (!state.isGathering, firstWaiting)
                }
            }
        } catch {
            // Not in the log: the key's chain is broken, its next change is written as a snapshot
            // (a journal closing is no failure of it).
            if !log.isClosed { noteFailure(error, keys: [write.key]) }
            completion?(.failure(error))
            return .failure(error)
        }
        if firstWaiting { syncWake.signal() }
        if first { wake.signal() }
        return .success(())
    }

    // MARK: Reading

    /// Waits until SQLite has the last write of `key` (at once when it has; the journal thread is asked
    /// to commit now otherwise). Throws `writeFailed` when SQLite does not get it within the patience.
    func awaitDatabase(for key: JournalKey) throws(JournalError) {
        let ready = DispatchSemaphore(value: 0)
        let waiting = state.withLock { state -> Bool in
            guard let lsn = state.index[key]?.lsn, lsn > state.committedLSN else { return false }
            state.readers.append((lsn, ready))
            return true
        }
        guard waiting else { return }
        wake.signal()
        guard ready.wait(timeout: .now() + .seconds(Self.readerPatienceSeconds)) == .timedOut else { return }
        state.withLock { $0.readers.removeAll { $0.ready === ready } }
        throw JournalError(.writeFailed, "\(key): its last changes are in the journal's log but not yet in its database (\(unwritableReason ?? "the database is slow")); try again")
    }

    // MARK: The journal thread

    func runLoggedWriter(_ storage: any LoggedJournalStorage, log: AppendOnlyLog) {
        // Written, and with `sync` answered, but not yet in SQLite.
        var backlog: [LoggedWrite] = []
        var backlogBytes = 0
        var gatheringSince = DispatchTime.now()
        var lastAttempt = DispatchTime(uptimeNanoseconds: 0)
        var unsynced = false
        var lastSync = DispatchTime.now()
        // Once a sync of SQLite fails, it is not believed again (after a failed fsync the kernel may
        // have dropped the pages, and the next one succeeds without them): the log is kept from then
        // on, for the next start to replay.
        var databaseSyncFailed = false
        // The lsn the storage has on its disk (its last sync that worked).
        var durableLSN = state.withLock { $0.committedLSN }
        // A commit that failed may have been made all the same (its answer lost with the connection):
        // before the next try, the storage's position says which writes it has.
        var positionUnknown = false
        var waitMillis = 1000
        log.prepareSpare()
        while true {
            _ = wake.wait(timeout: .now() + .milliseconds(waitMillis))
            let (batch, stopping, writable, reading, gathering) = state.withLock { state -> ([Pending], Bool, Bool, Bool, Bool) in
                let reading = !state.readers.isEmpty
                // The writes wait in `pending` for the batch, and appends meanwhile do not wake this
                // thread (`isGathering`): two wake-ups a batch, not one a change.
                if !state.pending.isEmpty && !reading && !state.isStopping
                    && Self.millis(since: state.pendingSince) < databaseBatchMillis {
                    state.isGathering = true
                    return ([], false, state.isWritable, false, true)
                }
                state.isGathering = false
                defer { state.pending.removeAll(keepingCapacity: true) }
                return (state.pending, state.isStopping, state.isWritable, reading, false)
            }
            if gathering {
                waitMillis = max(1, databaseBatchMillis - Self.millis(since: state.withLock { $0.pendingSince }))
                continue
            }
            if !batch.isEmpty {
                if backlog.isEmpty { gatheringSince = .now() }
                backlog += batch.map(\.record)
                backlogBytes += batch.reduce(0) { $0 + $1.record.bodyBytes }
            }
            if !writable && backlog.isEmpty { probe(storage, log) }
            let due = reading || stopping || !batch.isEmpty || backlogBytes >= Self.databaseBatchBytes || Self.millis(since: gatheringSince) >= databaseBatchMillis
            // While SQLite fails, a retry every 250 ms: each probes whether it works again.
            let retrying = writable || Self.millis(since: lastAttempt) >= 250 || stopping
            if !backlog.isEmpty && due && retrying {
                lastAttempt = .now()
                if positionUnknown, let position = try? storage.logPosition() {
                    positionUnknown = false
                    backlog.removeAll { $0.lsn <= position }
                    backlogBytes = backlog.reduce(0) { $0 + $1.bodyBytes }
                    unsynced = true
                    if backlog.isEmpty { markCommitted(through: position) }
                }
                if positionUnknown || backlog.isEmpty {
                    // Not known yet, or nothing left to write.
                } else if commit(backlog, to: storage, log: log) {
                    backlog.removeAll(keepingCapacity: true)
                    backlogBytes = 0
                    unsynced = true
                } else {
                    positionUnknown = true
                }
            }
            if unsynced && (Self.millis(since: lastSync) >= syncMillis || stopping) {
                let covered = state.withLock { $0.committedLSN }
                do {
                    try storage.makeDurable()
                    if !databaseSyncFailed { durableLSN = max(durableLSN, covered) }
                } catch {
                    databaseSyncFailed = true
                    noteFailure(error, keys: [])
                }
                do {
                    // The log's records past SQLite's are synced as their segment is left.
                    try log.rotate()
                } catch {
                    noteFailure(error, keys: [])
                }
                if !databaseSyncFailed { log.retire(through: covered) }
                log.prepareSpare()
                unsynced = false
                lastSync = .now()
            }
            // A failed sync of the log holds until the storage has on its disk what it may have lost.
            if !databaseSyncFailed { log.clearSyncFailure(ifDurableThrough: durableLSN) }
            if stopping && state.withLock({ $0.pending.isEmpty }) {
                // What SQLite could not take stays in the log, for the next start to replay.
                log.close(removing: backlog.isEmpty && !unsynced && !databaseSyncFailed)
                break
            }
            if !backlog.isEmpty {
                waitMillis = writable ? max(1, databaseBatchMillis - Self.millis(since: gatheringSince)) : 250
            } else {
                // While writing fails, a probe every `probeMillis`, however long `syncMillis` is.
                let idleMillis = unsynced ? syncMillis : 1000
                waitMillis = state.withLock({ $0.isWritable }) ? idleMillis : min(idleMillis, Self.probeMillis)
            }
        }
        finished.signal()
    }

    /// With `sync` durability: answers the writes in the log once an `fdatasync` has them on the disk,
    /// every write waiting at once with one sync (a group commit).
    func runLogSyncer() {
        guard let log else { return }
        while true {
            _ = syncWake.wait(timeout: .now() + .seconds(1))
            let (waiting, stopping) = state.withLock { state -> ([Completion], Bool) in
                defer { state.syncWaiting.removeAll(keepingCapacity: true) }
                return (state.syncWaiting, state.isSyncerStopping)
            }
            if !waiting.isEmpty {
                do {
                    let started = DispatchTime.now().uptimeNanoseconds
                    try log.sync()
                    onSync((DispatchTime.now().uptimeNanoseconds - started) / 1000)
                    for completion in waiting { completion(.success(())) }
                } catch {
                    // The writes may be on the disk or not: not acknowledged, though SQLite will have
                    // them (as a change that failed is in memory): the client reads the version
                    // before trying again.
                    noteFailure(error, keys: [])
                    for completion in waiting { completion(.failure(error)) }
                }
            }
            // Appends stopped before `isSyncerStopping` was set: nothing more can come.
            if stopping && state.withLock({ $0.syncWaiting.isEmpty }) { break }
        }
        syncFinished.signal()
    }

    /// Writes found in the storage after a commit whose answer was lost: committed, as `commit` counts them.
    private func markCommitted(through lsn: UInt64) {
        let ready = state.withLock { state -> [DispatchSemaphore] in
            state.committedLSN = max(state.committedLSN, lsn)
            let ready = state.readers.filter { $0.lsn <= state.committedLSN }.map(\.ready)
            state.readers.removeAll { $0.lsn <= state.committedLSN }
            return ready
        }
        for semaphore in ready { semaphore.signal() }
    }

    /// Commits `backlog` to SQLite in one transaction; true when it is in.
    private func commit(_ backlog: [LoggedWrite], to storage: any LoggedJournalStorage, log: AppendOnlyLog) -> Bool {
        let started = DispatchTime.now().uptimeNanoseconds
        do {
            // Bodies still in their requests' memory are joined here, off the threads that answer.
            try storage.write(logged: Self.withoutSuperseded(backlog) { $0.write }.map(\.materialized))
        } catch {
            // The writes stay in the log and the backlog: nothing acknowledged is lost, and the key
            // chains are whole. Changes are refused meanwhile (`isWritable`), so the backlog stops growing.
            noteFailure(error, keys: [])
            return false
        }
        let micros = (DispatchTime.now().uptimeNanoseconds - started) / 1000
        let wasWritable = state.withLock { $0.isWritable }
        // Writing works again only when the log takes writes too (a full disk refuses both).
        let logWorks = wasWritable || ((try? log.probe()) != nil && log.syncFailure == nil)
        let bytes = storage.byteCount()
        let lsn = backlog.last?.lsn ?? 0
        let ready = state.withLock { state -> [DispatchSemaphore] in
            state.commits += 1
            state.bytes = bytes
            state.committedLSN = max(state.committedLSN, lsn)
            if logWorks {
                state.isWritable = true
                state.lastError = nil
            }
            let ready = state.readers.filter { $0.lsn <= state.committedLSN }.map(\.ready)
            state.readers.removeAll { $0.lsn <= state.committedLSN }
            return ready
        }
        if !wasWritable && logWorks { onHealthChange(true, nil) }
        onCommit(JournalCommit(records: backlog.count, bytes: backlog.reduce(0) { $0 + $1.bodyBytes }, micros: micros))
        for semaphore in ready { semaphore.signal() }
        return true
    }

    private func probe(_ storage: any LoggedJournalStorage, _ log: AppendOnlyLog) {
        guard isProbeDue else { return }
        do {
            try storage.probe()
            try log.probe()
        } catch {
            return
        }
        // A failed sync of the log holds until SQLite has what it may have lost (`clearSyncFailure`).
        guard log.syncFailure == nil else { return }
        let recovered = state.withLock { state -> Bool in
            defer { state.isWritable = true; state.lastError = nil }
            return !state.isWritable
        }
        if recovered { onHealthChange(true, nil) }
    }

    static func millis(since time: DispatchTime) -> Int {
        let now = DispatchTime.now().uptimeNanoseconds
        return now > time.uptimeNanoseconds ? Int((now - time.uptimeNanoseconds) / 1_000_000) : 0
    }
}
