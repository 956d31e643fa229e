import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The journal's append-only log in front of its SQLite file, as Redis writes its AOF: a change is
/// written to the log (`pwrite`, into the kernel's page cache) by the thread that made it, before its
/// reply; the journal thread copies the log into SQLite in large group commits behind it, and deletes
/// the log's segments once SQLite has their records on the disk.
///
/// Why: a reply that waits for an SQLite transaction waits for a hand-off to the journal thread, a
/// commit and a hand-off back (PROTOCOL.md, `journal.durability`); a `write(2)` costs a few µs on the
/// thread that answers, survives the process's crash as SQLite would, and leaves SQLite fewer, larger
/// transactions (fewer pages written per change). `sync` durability waits for the log's `fdatasync`.
///
/// Files: `PATH-log.N`, each a segment: a 16-byte header (`"LDJLOG1\0"`, the role, zeros), then records
/// (`LogRecord`). Appends go to the last segment; `rotate` starts the next one.
final class AppendOnlyLog: Sendable {
    static let magic = Array("LDJLOG1\0".utf8)
    static let headerBytes = 16

    struct Segment {
        var number: Int
        var descriptor: Int32
        var size: Int
        /// The file's length: past `size`, zeros ahead (written by `prefill`, or a hole left by `append`).
        var length: Int
        /// The lsn of its last record; 0 while it has none.
        var lastLSN: UInt64
    }

    struct State {
        var current: Segment
        var nextLSN: UInt64
        /// Earlier segments not yet deleted: their number and last lsn.
        var retiring: [(number: Int, lastLSN: UInt64, size: Int)] = []
        /// The next segment, made and filled with zeros ahead by the journal thread (`prepareSpare`).
        var spare: Segment?
        /// A segment `retire` kept, under its own name, for `prepareSpare` to make the next one.
        var recyclable: Int?
        /// The bytes the last segment left took: the spare is filled for twice as much.
        var lastUsed = 0
        var isClosed = false
        /// The segments' descriptors are closed (`close(removing:)`): nothing may sync them.
        var isSegmentClosed = false
        /// A sync that failed, and the lsn appended up to then: every later `sync` fails with it (after
        /// a failed `fdatasync` the kernel may have dropped the pages, and the next one succeeds without
        /// them) until SQLite has every record up to that lsn on the disk (`clearSyncFailure`).
        var syncFailure: (message: String, throughLSN: UInt64)?
    }

    /// What reading the log's files found when the journal opened (their records go to `recover`'s
    /// `take`, a segment at a time).
    struct Recovered {
        /// The segments read, to delete once their records are durable in SQLite.
        var segments: [String] = []
        /// One line per segment whose tail was torn (its last record cut by a crash).
        var notes: [String] = []
        var lastNumber = 0
        /// The lsn of the last record read (0 when there was none).
        var lastLSN: UInt64 = 0
        var records = 0
    }

    /// How a segment is synced: `fdatasync`, or a test's stand-in that fails as a disk error would.
    typealias FileSync = @Sendable (Int32) -> Int32
    static let fdatasyncFile: FileSync = { fdatasync($0) }

    let path: String
    private let role: JournalRole
    private let syncFile: FileSync
    private let state: Mutex<State>
    /// Held by `sync` and `rotate` (which may run on different threads): a sync never meets a segment
    /// being left, and what was appended to the segment left is synced before the next sync returns.
    private let syncing = Mutex(())

    /// Whether the zeros written ahead of the appends are synced before a segment is used (`prepareSpare`).
    private let syncsZerosAhead: Bool
    /// Where the pages ahead of a large record are read into the page cache (`async` only: `cachePagesAhead`).
    private let pagesAhead = DispatchQueue(label: "layoutd.journal.log.pages-ahead", qos: .utility)

    /// Starts a new segment numbered after `number`, its first record numbered `nextLSN`.
    /// - Parameter syncsZerosAhead: sync the zeros written ahead before a segment is used (for `sync`
    ///   durability: `prepareSpare`); the first segment gets zeros ahead only then.
    init(path: String, role: JournalRole, after number: Int, nextLSN: UInt64, syncsZerosAhead: Bool, syncFile: @escaping FileSync = AppendOnlyLog.fdatasyncFile) throws(JournalError) {
        self.path = path
        self.role = role
        self.syncFile = syncFile
        self.syncsZerosAhead = syncsZerosAhead
        let segment = try Self.create(number: number + 1, path: path, role: role, prefill: syncsZerosAhead ? Self.minimumPrefill : 0, syncs: true)
        state = Mutex(State(current: segment, nextLSN: nextLSN))
    }

    // MARK: Appending (any thread)

    /// Writes `write` at the end of the log, numbered after the last, with its body from `source` when
    /// there is one (`write`'s own body is then empty); `then` runs with the logged write while the log
    /// is still held, so whatever it queues is queued in log order.
    func append<Result>(_ write: JournalWrite, source: (any JournalBodySource)?, atMillis: Int64, then: (LoggedWrite) -> Result) throws(JournalError) -> Result {
        // Results rather than throws: the closures these take do not rethrow.
        let outcome: Swift.Result<Result, JournalError>
        if let source {
            outcome = source.withJournalParts { parts in
                JournalBody.withPieces(of: parts) { pieces in
                    Swift.Result { () throws(JournalError) in try append(write, pieces: pieces, source: source, atMillis: atMillis, then: then) }
                }
            }
        } else {
            outcome = write.body.withUnsafeBytes { body in
                Swift.Result { () throws(JournalError) in try append(write, pieces: [body], source: nil, atMillis: atMillis, then: then) }
            }
        }
        return try outcome.get()
    }

    private func append<Result>(
        _ write: JournalWrite, pieces: [UnsafeRawBufferPointer], source: (any JournalBodySource)?, atMillis: Int64, then: (LoggedWrite) -> Result
    ) throws(JournalError) -> Result {
        let checksum = source?.checksumAhead ?? Checksum.of(pieces: pieces)
        let bodyBytes = pieces.reduce(0) { $0 + $1.count }
        var pagesToCache: (number: Int, from: Int, to: Int)?
        defer { if let pagesToCache { cachePagesAhead(pagesToCache) } }
        return try state.withLock { (state: inout State) throws(JournalError) -> Result in
            guard !state.isClosed else { throw JournalError(.writeFailed, "the journal is closing") }
            let logged = LoggedWrite(lsn: state.nextLSN, write: write, atMillis: atMillis, checksum: checksum, source: source, bodyBytes: bodyBytes)
            let header = LogRecord.header(of: logged)
            let written = header.withUnsafeBytes { header in
                Swift.Result { () throws(JournalError) in try Self.write([header] + pieces, to: state.current, path: path(state.current.number)) }
            }
            if case .failure(let error) = written {
                // What was written past the zeros ahead goes: the next record starts where this one did.
                _ = ftruncate(state.current.descriptor, off_t(max(state.current.length, state.current.size)))
                throw error
            }
            state.nextLSN += 1
            state.current.size += header.count + bodyBytes
            state.current.length = max(state.current.length, state.current.size)
            state.current.lastLSN = logged.lsn
            if !syncsZerosAhead && bodyBytes >= Self.largeRecordBytes {
                // Room for two more records as large, as a hole (zeros, as the zeros ahead read): a
                // system call here, the reading on another thread.
                let wanted = state.current.size + min(Self.maximumPrefill, 2 * (header.count + bodyBytes))
                if state.current.length < wanted && ftruncate(state.current.descriptor, off_t(wanted)) == 0 {
                    pagesToCache = (state.current.number, state.current.length, wanted)
                    state.current.length = wanted
                }
            }
            return then(logged)
        }
    }

    /// Writes a record's pieces with `pwritev` at the segment's end. A write that fails part way
    /// leaves bytes past the segment's size, which `append` cuts (and which would read back as a torn
    /// tail, never as a record, since they end before their checksummed length).
    private static func write(_ pieces: [UnsafeRawBufferPointer], to segment: Segment, path: String) throws(JournalError) {
        try VectoredWrite.write(pieces, to: segment.descriptor, at: segment.size, path: path)
    }

    // MARK: The journal thread

    /// `fdatasync` of the segment appends go to: every record appended before the call is on the disk
    /// when it returns (earlier segments were synced when `rotate` left them).
    func sync() throws(JournalError) {
        try syncing.withLock { _ throws(JournalError) in
            let (descriptor, number, failure, isClosed) = state.withLock { ($0.current.descriptor, $0.current.number, $0.syncFailure, $0.isSegmentClosed) }
            if let failure { throw JournalError(.writeFailed, failure.message) }
            guard !isClosed else { throw JournalError(.writeFailed, "the journal is closing") }
            // Outside the appends' lock: appends go on while the disk syncs.
            guard syncFile(descriptor) == 0 else {
                throw noteSyncFailure("\(path(number)): fdatasync failed: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Records a failed sync (see `State.syncFailure`); the error to throw.
    private func noteSyncFailure(_ message: String) -> JournalError {
        state.withLock { state in
            if state.syncFailure == nil { state.syncFailure = (message, state.nextLSN - 1) }
        }
        return JournalError(.writeFailed, message)
    }

    /// Why syncs fail, while they do.
    var syncFailure: String? {
        state.withLock { $0.syncFailure?.message }
    }

    /// Syncs work again once SQLite has on the disk every record a failed sync may have lost.
    func clearSyncFailure(ifDurableThrough lsn: UInt64) {
        state.withLock { state in
            if let failure = state.syncFailure, lsn >= failure.throughLSN { state.syncFailure = nil }
        }
    }

    /// Bytes the log's segments take.
    var byteCount: Int {
        state.withLock { state in
            state.current.size + state.retiring.reduce(0) { $0 + $1.size }
        }
    }

    /// Starts a new segment when the current one has records, syncs and closes the one it leaves (so
    /// that each segment but the last is whole on the disk); it is deleted by `retire`.
    func rotate() throws(JournalError) {
        try syncing.withLock { _ throws(JournalError) in
            let left = try state.withLock { (state: inout State) throws(JournalError) -> Segment? in
                guard !state.isClosed, state.current.lastLSN != 0 else { return nil }
                let next: Segment
                if let spare = state.spare {
                    next = spare
                } else {
                    // No spare (it could not be made): made here, the appends waiting meanwhile.
                    next = try Self.create(number: state.current.number + 1, path: path, role: role, prefill: 0, syncs: syncsZerosAhead)
                }
                defer {
                    state.current = next
                    state.spare = nil
                }
                state.retiring.append((state.current.number, state.current.lastLSN, state.current.size))
                state.lastUsed = state.current.size
                return state.current
            }
            guard let left else { return }
            // With `async` the zeros ahead were never synced (they only gave the appends pages the file
            // had): cut, so that the sync writes the records alone.
            if !syncsZerosAhead && left.length > left.size { _ = ftruncate(left.descriptor, off_t(left.size)) }
            let synced = syncFile(left.descriptor) == 0
            let failure = synced ? nil : "\(path(left.number)): fdatasync failed: \(String(cString: strerror(errno)))"
            close(left.descriptor)
            if let failure { throw noteSyncFailure(failure) }
        }
    }

    /// Makes the next segment on the calling thread (the journal's), so that `rotate` does not make
    /// the appends wait for a file to be made, with zeros written ahead for twice the bytes the last one
    /// took (from 1 to 128 MiB): the appends then write over pages the file already has in the page
    /// cache. On the development VM, whose balloon reports free pages to the host so that a page the
    /// guest takes again costs a host fault, 8 MB appended into fresh page cache took 11–16 ms, against
    /// 0.7 ms over cached pages (docs/BENCHMARKS.md, "Fresh pages on the development VM"). Small `async`
    /// updates: 0.91–0.92 of `none` with the zeros ahead, 0.88–0.90 without, in alternating runs.
    ///
    /// With `syncsZerosAhead` the zeros are synced before the segment is used: an `fdatasync` of appends
    /// over zeros already on the disk has no new file length to write (92 µs against 135 µs a sync;
    /// `sync`/`none` updates 0.65–0.66 against 0.57–0.63), and the segment `retire` kept is reused
    /// (zeroed where it is, over pages most likely still cached). Without, zeros that never reached the
    /// disk read back as zeros after a power cut, as a new file's do, but a reused file's old bytes
    /// could come back: it is never reused. Best effort: a full disk leaves it shorter, and appends
    /// still work.
    func prepareSpare() {
        let wanted = state.withLock { state -> (number: Int, bytes: Int, recycled: Int?)? in
            guard !state.isClosed, state.spare == nil else { return nil }
            let bytes = min(Self.maximumPrefill, max(Self.minimumPrefill, 2 * max(state.lastUsed, state.current.size)))
            defer { state.recyclable = nil }
            return (state.current.number + 1, bytes, state.recyclable)
        }
        guard let wanted else { return }
        var made: Segment?
        if let recycled = wanted.recycled {
            made = try? Self.recycle(path(recycled), as: wanted.number, path: path, role: role, prefill: wanted.bytes)
            if made == nil { unlink(path(recycled)) }
        }
        if made == nil { made = try? Self.create(number: wanted.number, path: path, role: role, prefill: wanted.bytes, syncs: syncsZerosAhead) }
        guard let spare = made else { return }
        let kept = state.withLock { state -> Bool in
            guard !state.isClosed, state.spare == nil, state.current.number + 1 == spare.number else { return false }
            state.spare = spare
            return true
        }
        if !kept {
            close(spare.descriptor)
            unlink(path(spare.number))
        }
    }

    static let minimumPrefill = 1 << 20
    static let maximumPrefill = 128 << 20
    /// A body this large gets pages ahead for the next ones (`cachePagesAhead`).
    static let largeRecordBytes = 1 << 20

    /// Reads the hole `append` left past a large record into the page cache, on another thread, so
    /// that the next large records are written over pages the file has: the zeros ahead of a spare
    /// are sized by the last segment, and a burst of large `prepare`s outgrows them. A hole read is
    /// cheap, and unlike zeros written it leaves no dirty pages for the disk to write: on the
    /// development VM, 192 MB of a hole read in 14 ms against 86 ms of zeros written, then 8 MB appends
    /// in 1.6–2.4 ms over the pages read, 0.7–1.4 over zeros written, and up to 58 ms into fresh page
    /// cache (docs/BENCHMARKS.md). Not for small records: they append at the end of the file in 0.6 µs,
    /// and over cached pages in 1.1–1.6.
    /// Best effort: a segment cut or deleted meanwhile reads short, or not at all.
    private func cachePagesAhead(_ pages: (number: Int, from: Int, to: Int)) {
        let file = path(pages.number)
        pagesAhead.async {
            let descriptor = open(file, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            defer { _ = Glibc.close(descriptor) }
            let chunk = 1 << 20
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 4096)
            defer { buffer.deallocate() }
            var offset = pages.from
            while offset < pages.to {
                let read = pread(descriptor, buffer.baseAddress, min(chunk, pages.to - offset), off_t(offset))
                guard read > 0 else { return }
                offset += read
            }
        }
    }

    /// Deletes the segments left by `rotate` whose records are all durable in SQLite (up to `lsn`);
    /// with `syncsZerosAhead`, but the newest of them when no spare is made yet, kept for
    /// `prepareSpare` to reuse. Until then its records, all durable, are skipped by a replay (their
    /// lsns are SQLite's already).
    func retire(through lsn: UInt64) {
        let deletable = state.withLock { state -> [Int] in
            let numbers = state.retiring.filter { $0.lastLSN <= lsn }.map(\.number)
            state.retiring.removeAll { $0.lastLSN <= lsn }
            guard syncsZerosAhead, let newest = numbers.max(), !state.isClosed, state.spare == nil else { return numbers }
            defer { state.recyclable = newest }
            return numbers.filter { $0 != newest } + (state.recyclable.map { [$0] } ?? [])
        }
        for number in deletable { unlink(path(number)) }
        if !deletable.isEmpty { Self.syncFolder(of: path) }
    }

    /// Writes and takes back 64 KiB at the end of the current segment: whether appending works again.
    func probe() throws(JournalError) {
        // Past the zeros ahead (which were written, so would take a write on a full disk), and under
        // the lock: an append meanwhile could write where the probe does.
        let failure = state.withLock { state -> String? in
            let end = max(state.current.length, state.current.size)
            let zeros = [UInt8](repeating: 0, count: 65536)
            let written = zeros.withUnsafeBytes { pwrite(state.current.descriptor, $0.baseAddress, $0.count, off_t(end)) }
            let failure = written == zeros.count ? nil : "\(path(state.current.number)): write failed: \(String(cString: strerror(errno)))"
            _ = ftruncate(state.current.descriptor, off_t(end))
            return failure
        }
        if let failure { throw JournalError(.writeFailed, failure) }
    }

    /// Whether appends fail (`stopAppending`).
    var isClosed: Bool {
        state.withLock { $0.isClosed }
    }

    /// Appends fail from now on (the journal is closing).
    func stopAppending() {
        state.withLock { $0.isClosed = true }
    }

    /// Closes the log, after `stopAppending`. With `removing`, every segment is deleted (SQLite has all
    /// its records on the disk); otherwise the last one is synced and left for the next start.
    func close(removing: Bool) {
        // Under `syncing`: a sync in progress ends before its descriptor is closed, and none starts after.
        let (current, retiring, spare) = syncing.withLock { _ in
            state.withLock { state -> (Segment, [Int], Segment?) in
                state.isClosed = true
                state.isSegmentClosed = true
                defer { (state.spare, state.recyclable) = (nil, nil) }
                return (state.current, state.retiring.map(\.number) + (state.recyclable.map { [$0] } ?? []), state.spare)
            }
        }
        if let spare {
            close(spare.descriptor)
            unlink(path(spare.number))
        }
        if !removing {
            // As `rotate` leaves a segment: the zeros ahead that `async` never syncs are not synced now.
            if !syncsZerosAhead && current.length > current.size { _ = ftruncate(current.descriptor, off_t(current.size)) }
            _ = fdatasync(current.descriptor)
        }
        close(current.descriptor)
        guard removing else { return }
        for number in retiring + [current.number] { unlink(path(number)) }
        Self.syncFolder(of: path)
    }

    private func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    private func path(_ number: Int) -> String {
        Self.segmentPath(path, number: number)
    }
}
