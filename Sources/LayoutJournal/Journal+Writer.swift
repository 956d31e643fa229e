import Dispatch
import Foundation

extension Journal {
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


    // MARK: The journal thread

    func runWriter(_ storage: any JournalStorage) {
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
    func runCheckpoints() {
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
}
