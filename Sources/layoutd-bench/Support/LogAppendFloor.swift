#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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
                try Self.withPieces(of: parts) { pieces in
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

    /// `pwritev` of `pieces` at the end, as `AppendOnlyLog.write`: at most 1024 vectors a call, again
    /// from where a short write stopped. The bytes written.
    private func write(_ pieces: [UnsafeRawBufferPointer]) throws -> Int {
        let total = pieces.reduce(0) { $0 + $1.count }
        var written = 0
        while written < total {
            var vectors: [iovec] = []
            var skip = written
            for piece in pieces where vectors.count < 1024 {
                if skip >= piece.count {
                    skip -= piece.count
                    continue
                }
                vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: piece.baseAddress.map { $0 + skip }), iov_len: piece.count - skip))
                skip = 0
            }
            let result = pwritev(descriptor, vectors, Int32(vectors.count), off_t(size + written))
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { throw BenchFailure("\(path): write failed: \(result < 0 ? String(cString: strerror(errno)) : "nothing written")") }
            written += result
        }
        return written
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

    /// The record's pieces from its parts, as `JournalBody.withPieces`: the body alone without frames;
    /// otherwise the magic, the count and the first length, then each part and the next one's length.
    private static func withPieces<Result>(of parts: [UnsafeRawBufferPointer], _ body: ([UnsafeRawBufferPointer]) throws -> Result) rethrows -> Result {
        guard parts.count > 1 else { return try body(parts) }
        var framing: [UInt8] = [0x00, 0x4C, 0x4A, 0x46]
        withUnsafeBytes(of: UInt32(parts.count).littleEndian) { framing += $0 }
        for part in parts {
            withUnsafeBytes(of: UInt64(part.count).littleEndian) { framing += $0 }
        }
        return try framing.withUnsafeBytes { framing in
            var pieces = [UnsafeRawBufferPointer(rebasing: framing[0..<16])]
            for (index, part) in parts.enumerated() {
                pieces.append(part)
                if index + 1 < parts.count {
                    let at = 16 + 8 * index
                    pieces.append(UnsafeRawBufferPointer(rebasing: framing[at..<at + 8]))
                }
            }
            return try body(pieces)
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
