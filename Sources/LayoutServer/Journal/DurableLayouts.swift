import Foundation
import LayoutEngine
import LayoutJournal
import LayoutWire
import Logging
import Synchronization

/// A daemon's layouts kept in its journal, with the store in memory as their cache: every acknowledged
/// change is written before its reply leaves; a layout not in memory (evicted, or not yet restored after
/// a start) is rebuilt from the journal when it is asked for; after a start the journal's keys are read
/// in the background while the daemon serves (`DurableLayouts+Start.swift`), then every kept layout comes
/// back in the background, most recently changed first.
public final class DurableLayouts: Sendable {
    public let journal: Journal
    let store: LayoutStore
    /// Holds each change's events until the journal has it; nil where the store publishes directly.
    let events: EventGate?
    let limits: InputLimits
    let stats: ServerStats
    let logger: Logger
    let progress = Mutex(RestoreProgress())
    let stopping = Atomic<Bool>(false)
    /// Whether the store has every journaled key (`startInBackground`), and what waits for it.
    let keyLoading = Mutex(KeyLoading())
    /// Set once `keyLoading` is done: read on every op, without the lock.
    let keysLoaded = Atomic<Bool>(false)

    /// Restores at start, as stats report them.
    public struct RestoreProgress: Sendable, Hashable {
        /// Kept layouts not yet rebuilt by the background restore.
        public var waiting = 0
        /// Layouts rebuilt from the journal (in the background or when asked for).
        public var restored = 0
        /// Layouts that could not be rebuilt (a corrupt record), published as `lost`.
        public var lost = 0
        /// Items of the layouts rebuilt, and the time spent rebuilding them, in µs.
        public var items = 0
        public var micros: UInt64 = 0
        /// Whether the journal's keys are still being read after the start (`list` waits for them).
        public var isLoadingKeys = false
    }

    init(journal: Journal, store: LayoutStore, events: EventGate?, limits: InputLimits, stats: ServerStats, logger: Logger) {
        self.journal = journal
        self.store = store
        self.events = events
        self.limits = limits
        self.stats = stats
        self.logger = logger
        // Nothing per key here: the keys are read once the daemon serves (`startInBackground`), and
        // an op on a key not read yet looks it up first (`resolve`).
    }

    public var restoreProgress: RestoreProgress {
        var current = progress.withLock { $0 }
        current.isLoadingKeys = !keysLoaded.load(ordering: .acquiring)
        return current
    }

    // MARK: Writing

    /// `unavailable` while the journal cannot write: a change that could not be made durable would not
    /// be acknowledged anyway, and refusing it first leaves memory and journal alike. Queries go on.
    func checkWritable() throws(WireError) {
        guard let reason = journal.unwritableReason else { return }
        throw WireError(.unavailable, "the journal cannot write (\(reason)); changes are refused until it can, queries are still served")
    }

    /// `reply`, made to wait until `change` is in the journal; if the write fails, the reply becomes
    /// `unavailable` (the change is in memory but not durable, so it is not acknowledged).
    func journaling(_ change: KeptChange, body: JournaledBody?, reply: JobReply, id: RequestID?) -> JobReply {
        let write: JournalWrite
        let source: JournaledBody?
        switch makeWrite(for: change, body: body) {
        case .success(let made): (write, source) = made
        case .failure(let error):
            events?.release(change.key, publishing: false)
            return Self.failed(reply, id: id, because: error.message)
        }
        if let outcome = journal.appendAtOnce(write, body: source) {
            // In the log already (on this thread): no suspension, the reply leaves now.
            switch outcome {
            case .success:
                events?.release(change.key, publishing: true)
                return reply
            case .failure(let error):
                events?.release(change.key, publishing: false)
                return Self.failed(reply, id: id, because: error.message)
            }
        }
        var deferred = reply
        let journal = self.journal
        let events = self.events
        let key = change.key
        deferred.deferral = JobReply.Deferral { resume in
            journal.append(write, body: source) { result in
                switch result {
                case .success:
                    events?.release(key, publishing: true)
                    resume(reply)
                case .failure(let error):
                    events?.release(key, publishing: false)
                    resume(Self.failed(reply, id: id, because: error.message))
                }
            }
        }
        return deferred
    }

    /// Limits that refuse nothing: a journaled layout was accepted when it was made, and lowering
    /// `limits.*` since must not make it lost.
    private static let replayLimits = InputLimits(maxItems: .max, maxSections: .max)

    private static func failed(_ reply: JobReply, id: RequestID?, because reason: String) -> JobReply {
        let error = WireError(.unavailable, "the change was made in memory but the journal could not keep it (\(reason)), so it is not acknowledged; read the layout's version before trying again")
        return JobReply(body: ReplyBody(ReplyEncoder.failure(id: id, error: error)), op: reply.op, errorCode: error.code.rawValue)
    }

    /// The client's own body (with its frames, `JournalBody`) where it rebuilds the change (a `prepare`,
    /// or a change that follows the key's last write), left in its message (the write's body empty);
    /// a snapshot of the layout where it would not (a change after a failed write; changes grown past
    /// their `prepare`).
    private func makeWrite(for change: KeptChange, body: JournaledBody?) -> Result<(JournalWrite, JournaledBody?), WireError> {
        switch change {
        case .dropped(let key, let version):
            return .success((.drop(JournalKey(key), version: version), nil))
        case .prepared(let key, let version, let layout):
            if let body {
                return .success((.rebuild(JournalKey(key), version: version, items: layout.itemCount, body: []), body))
            }
            return snapshot(key, version: version, layout: layout)
        case .changed(let key, let version, let layout):
            if let body, !journal.needsSnapshot(of: JournalKey(key), changeVersion: version, bytes: body.totalCount) {
                return .success((.change(JournalKey(key), version: version, items: layout.itemCount, body: []), body))
            }
            return snapshot(key, version: version, layout: layout)
        }
    }

    private func snapshot(_ key: LayoutKey, version: Int, layout: PreparedLayout) -> Result<(JournalWrite, JournaledBody?), WireError> {
        switch SnapshotBody.encode(layout: key.name, input: layout.input, limits: limits) {
        case .success(let writer):
            return .success((.rebuild(JournalKey(key), version: version, items: layout.itemCount, body: writer.withUnsafeBytes { Array($0) }), nil))
        case .failure(let error):
            return .failure(error)
        }
    }

    // MARK: Reading

    /// Rebuilds `key` from the journal when it keeps it and memory does not; the entry now in memory.
    /// Runs as an op on the key (one at a time per key), so nothing changes the key meanwhile.
    /// `unavailable` when the journal cannot give the key's last change yet (it is in the journal's log
    /// and SQLite cannot take it): the key is kept, not unknown.
    func reload(_ key: LayoutKey) throws(WireError) -> LayoutStore.Entry? {
        guard let indexed = journal.entry(for: JournalKey(key)), indexed.isKept else { return nil }
        var notYet: String?
        guard restore(key, version: indexed.version, notYet: &notYet) else {
            if let notYet {
                throw WireError(.unavailable, "the layout \"\(key.name)\" is kept by the journal but cannot be read from it now (\(notYet)); try again", path: "layout")
            }
            return nil
        }
        return store.entry(forKey: key)
    }

    /// What `list` shows of a key the journal keeps and memory does not hold: its version and items,
    /// with `bytes` 0 (the memory it takes now); nil when the journal does not keep it.
    func journaledSummary(of key: LayoutKey) -> LayoutStore.Summary? {
        guard let entry = journal.entry(for: JournalKey(key)), entry.isKept else { return nil }
        return LayoutStore.Summary(key: key, version: entry.version, items: entry.items, bytes: 0)
    }

    /// Rebuilds `key` at `version` from its journaled bodies and keeps it, unless a layout is in memory
    /// or the key moved past `version` meanwhile. A key whose bodies are corrupt or do not rebuild is
    /// published `lost` and dropped from the journal. True when the key's layout is now in memory.
    /// - Parameter notYet: set to why, when the journal cannot give the key's bodies now (its last
    ///   change still on its way to SQLite); the key is then neither rebuilt nor lost.
    @discardableResult
    func restore(_ key: LayoutKey, version: Int, notYet: inout String?) -> Bool {
        if store.isResident(key) { return true }
        let started = ContinuousClock.now
        let failure: String
        do {
            guard let recipe = try journal.recipe(for: JournalKey(key)) else { return false }
            let replay = RecipeReplay(key: key, base: recipe.base, limits: Self.replayLimits, stats: stats)
            switch replay.rebuild(from: replay.bodies(recipe.bodies), version: version) {
            case .success(let layout):
                let kept = store.restoreIfAbsent(layout, forKey: key, version: version)
                let micros = (ContinuousClock.now - started).wholeMicroseconds
                progress.withLock {
                    $0.restored += kept ? 1 : 0
                    $0.items += kept ? layout.itemCount : 0
                    $0.micros += micros
                }
                return kept || store.isResident(key)
            case .failure(let error):
                failure = error.message
            }
        } catch where error.code != .corrupt {
            // Not read (its last changes still on their way from the journal's log to its database, or
            // the database out of reach): the key is not lost, only not to be had yet. Only bodies
            // known damaged make it lost.
            logger.warning("a journaled layout cannot be read yet", metadata: ["layout": "\(key)", "reason": "\(error.message)"])
            notYet = error.message
            return false
        } catch {
            failure = error.message
        }
        lose(key, version: version, because: failure)
        return false
    }

    /// A key the journal cannot rebuild: published `lost` (once, at the version it was at), and dropped
    /// from the journal so the next start does not try again; its version count goes on.
    private func lose(_ key: LayoutKey, version: Int, because reason: String) {
        guard store.version(forKey: key) == version, !store.isResident(key) else { return }
        let lostVersion = store.markLost(key)
        progress.withLock { $0.lost += 1 }
        logger.error("a journaled layout cannot be rebuilt; published as lost", metadata: ["layout": "\(key)", "version": "\(version)", "reason": "\(reason)"])
        journal.append(.drop(JournalKey(key), version: lostVersion)) { _ in }
    }

    /// Stops the background restore and closes the journal once what is queued is written.
    public func close() {
        stopping.store(true, ordering: .relaxed)
        journal.close()
    }
}

extension JournalKey {
    init(_ key: LayoutKey) {
        self.init(namespace: key.namespace, name: key.name)
    }
}

extension LayoutKey {
    init(_ key: JournalKey) {
        self.init(namespace: key.namespace, name: key.name)
    }
}

extension Duration {
    /// Whole microseconds, for stats.
    var wholeMicroseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) * 1_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000_000)
    }
}

/// A request's body and frames are journaled from its message: the log is written from them and SQLite
/// gets them joined behind the reply.
extension RequestBody: JournalBodySource {
    public func withJournalParts<Result>(_ body: ([UnsafeRawBufferPointer]) -> Result) -> Result {
        withEveryPart(body)
    }
}
