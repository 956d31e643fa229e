#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LayoutJournal
import LayoutTestKit

/// The floor under a journaled `prepare` (`JournalJobBench`): its request's bytes appended to a file in
/// the journal's folder as the journal's append-only log appends them (`AppendOnlyLog.append`), with
/// nothing else around them: no daemon, no checksum, no SQLite behind.
///
/// What it mirrors, read from `AppendOnlyLog` and `JournalBody` (internal to LayoutJournal, so written
/// again here; keep them in step):
/// - the record: a header of the log's size for the key, then the body as the log gets it from the
///   request's memory (`JournalBody.withPieces`): the body alone; or, with binary frames, 16 bytes of
///   framing (magic, count, first length), the body, and before each frame its 8-byte length. None of
///   the request's bytes is copied;
/// - one `pwritev` of those pieces at the segment's end (again for what a short write left), no sync:
///   with `async` nothing syncs a record before its reply;
/// - the space: the segment starts as a new file, a small record goes at its end; after a record of
///   1 MiB or more the file is grown by `ftruncate` (a hole) to leave room for two more as large, and
///   the hole is read into the page cache, so that the next large record is written over pages the
///   file has. The log reads on a utility queue, long done before the next job; here the reading comes
///   after the timing, on this thread, so that none of it runs into the daemons' runs.
///
/// Not mirrored: the zeros a spare segment gets ahead when the journal thread rotates the log (once a
/// second, when the next record may land in them instead: a cheaper write than into a hole read), and
/// the record's checksum, computed for a large body on another thread while its layout is computed.
final class LogAppendFloor {
    private static let segmentHeaderBytes = 16
    private static let largeRecordBytes = 1 << 20
    private static let maximumPrefill = 128 << 20
    /// The log record's header before its key: checksum, size, kind, seven numbers; then the key's two
    /// lengths (`LogRecord.header`).
    private static let fixedHeaderBytes = 8 + 4 + 1 + 7 * 8 + 8

    let path: String
    private let descriptor: Int32
    private let headerBytes: Int
    /// Where the next record goes, and the file's length (past `size`, a hole read ahead).
    private var size = segmentHeaderBytes
    private var length = segmentHeaderBytes

    /// A new segment at `path`, for records of `key` in `namespace`.
    init(path: String, namespace: String, key: String) throws {
        self.path = path
        headerBytes = Self.fixedHeaderBytes + namespace.utf8.count + key.utf8.count
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchFailure("\(path): cannot create: \(String(cString: strerror(errno)))") }
        // The segment's own header (`"LDJLOG1\0"`, the role, zeros), as `AppendOnlyLog.create` writes it.
        let header = Array("LDJLOG1\0".utf8) + [UInt8](repeating: 0, count: Self.segmentHeaderBytes - 8)
        guard header.withUnsafeBytes({ pwrite(descriptor, $0.baseAddress, $0.count, 0) }) == header.count else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw BenchFailure("\(path): cannot write: \(reason)")
        }
    }

    /// The bytes a record of `body` and `attachments` takes in the log, its header included.
    func recordBytes(body: [UInt8], attachments: [[UInt8]]) -> Int {
        let parts = 1 + attachments.count
        let framing = parts > 1 ? 8 + 8 * parts : 0
        return headerBytes + framing + body.count + attachments.reduce(0) { $0 + $1.count }
    }

    /// Appends the record of `body` and `attachments`: the seconds the log's thread would spend on it
    /// before the reply (the header made, the write, the hole grown); then, untimed, the hole read.
    func append(body: [UInt8], attachments: [[UInt8]]) throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        // One allocation, as `LogRecord.header` makes it (its bytes do not matter to the write).
        let header = [UInt8](unsafeUninitializedCapacity: headerBytes) { buffer, initialized in
            buffer.initialize(repeating: 0x4C)
            initialized = buffer.count
        }
        let written = try header.withUnsafeBytes { header in
            try Self.withParts(body, attachments[...], collecting: []) { parts in
                try JournalBody.withPieces(of: parts) { pieces in
                    try write([header] + pieces)
                }
            }
        }
        size += written
        length = max(length, size)
        var ahead: (from: Int, to: Int)?
        if written - headerBytes >= Self.largeRecordBytes {
            let wanted = size + min(Self.maximumPrefill, 2 * written)
            if length < wanted && ftruncate(descriptor, off_t(wanted)) == 0 {
                ahead = (length, wanted)
                length = wanted
            }
        }
        let seconds = start.duration(to: clock.now).seconds
        if let ahead { readAhead(from: ahead.from, to: ahead.to) }
        return seconds
    }

    /// Closes and deletes the file: its pages go now, between forms, not during a later run.
    func remove() {
        close(descriptor)
        unlink(path)
    }

    /// The log's own write (`VectoredWrite`) of `pieces` at the end. The bytes written.
    private func write(_ pieces: [UnsafeRawBufferPointer]) throws -> Int {
        try VectoredWrite.write(pieces, to: descriptor, at: size, path: path)
        return pieces.reduce(0) { $0 + $1.count }
    }

    /// Reads the hole `from..<to` into the page cache in 1 MiB reads, as `AppendOnlyLog.cachePagesAhead`.
    private func readAhead(from: Int, to: Int) {
        let reader = open(path, O_RDONLY | O_CLOEXEC)
        guard reader >= 0 else { return }
        defer { close(reader) }
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 4096)
        defer { buffer.deallocate() }
        var offset = from
        while offset < to {
            let read = pread(reader, buffer.baseAddress, min(chunk, to - offset), off_t(offset))
            guard read > 0 else { return }
            offset += read
        }
    }

    /// Views of `body` and each attachment, none copied (as a request's message and frames are viewed).
    private static func withParts<Result>(
        _ body: [UInt8], _ attachments: ArraySlice<[UInt8]>, collecting views: [UnsafeRawBufferPointer], _ call: ([UnsafeRawBufferPointer]) throws -> Result
    ) rethrows -> Result {
        guard let first = attachments.first else {
            return try body.withUnsafeBytes { try call([$0] + views) }
        }
        return try first.withUnsafeBytes { try withParts(body, attachments.dropFirst(), collecting: views + [$0], call) }
    }
}
