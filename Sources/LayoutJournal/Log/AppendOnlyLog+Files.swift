import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The log's segment files: creating, recovering and removing them.
extension AppendOnlyLog {
    static func segmentPath(_ path: String, number: Int) -> String {
        "\(path)-log.\(number)"
    }

    static func create(number: Int, path: String, role: JournalRole, prefill: Int, syncs: Bool) throws(JournalError) -> Segment {
        let file = segmentPath(path, number: number)
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw JournalError(.writeFailed, "\(file): cannot create: \(String(cString: strerror(errno)))")
        }
        guard writeHeader(to: descriptor, role: role) else {
            let reason = String(cString: strerror(errno))
            _ = Glibc.close(descriptor)
            unlink(file)
            throw JournalError(.writeFailed, "\(file): cannot write its header: \(reason)")
        }
        var length = headerBytes
        if prefill > 0 {
            length = writeZeros(to: descriptor, from: headerBytes, to: headerBytes + prefill)
            // The zeros on the disk now, not at the segment's first sync, which a reply waits for.
            if syncs { _ = fdatasync(descriptor) }
        }
        // The new name on the disk, so a `sync` of the segment keeps its records through a power cut.
        syncFolder(of: path)
        return Segment(number: number, descriptor: descriptor, size: headerBytes, length: length, lastLSN: 0)
    }

    /// Makes the retired segment `file` the segment `number` (for `syncsZerosAhead`): cut to `prefill`
    /// past its header, zeros over what it keeps, from its end back (a process that dies part-way leaves
    /// whole records, then zeros), then on to `prefill` as far as the disk allows; synced; then the new
    /// name. Its records are all in SQLite: a crash before the rename leaves them under the old name,
    /// where a replay skips them (their lsns are SQLite's already); after it, the file reads as an empty
    /// segment with zeros ahead, as `create`'s does, since the zeros were on the disk before the name.
    static func recycle(_ file: String, as number: Int, path: String, role: JournalRole, prefill: Int) throws(JournalError) -> Segment {
        let descriptor = open(file, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw JournalError(.writeFailed, "\(file): cannot reuse: \(String(cString: strerror(errno)))")
        }
        var info = stat()
        let end = headerBytes + prefill
        let kept = max(headerBytes, fstat(descriptor, &info) == 0 ? min(Int(info.st_size), end) : 0)
        let chunk = 1 << 20
        var zeroed = ftruncate(descriptor, off_t(kept)) == 0 ? kept : -1
        while zeroed > headerBytes {
            let from = max(headerBytes, zeroed - chunk)
            guard writeZeros(to: descriptor, from: from, to: zeroed) == zeroed else { break }
            zeroed = from
        }
        guard zeroed == headerBytes, writeHeader(to: descriptor, role: role) else {
            let reason = String(cString: strerror(errno))
            _ = Glibc.close(descriptor)
            throw JournalError(.writeFailed, "\(file): cannot reuse: \(reason)")
        }
        let length = writeZeros(to: descriptor, from: kept, to: end)
        guard fdatasync(descriptor) == 0, rename(file, segmentPath(path, number: number)) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = Glibc.close(descriptor)
            throw JournalError(.writeFailed, "\(file): cannot reuse: \(reason)")
        }
        syncFolder(of: path)
        return Segment(number: number, descriptor: descriptor, size: headerBytes, length: length, lastLSN: 0)
    }

    /// A segment's first bytes: the format, the role, zeros.
    static func writeHeader(to descriptor: Int32, role: JournalRole) -> Bool {
        var header = magic + [role == .daemon ? 1 : 2]
        header += [UInt8](repeating: 0, count: headerBytes - header.count)
        return header.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } == headerBytes
    }

    /// Writes zeros from `start` up to `end`; where they end (short of `end` when a write fails).
    static func writeZeros(to descriptor: Int32, from start: Int, to end: Int) -> Int {
        let zeros = [UInt8](repeating: 0, count: min(max(end - start, 0), 1 << 20))
        var offset = start
        while offset < end {
            let count = min(zeros.count, end - offset)
            let written = zeros.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, count, off_t(offset)) }
            guard written > 0 else { break }
            offset += written
        }
        return offset
    }

    /// Reads every segment of the log at `path`, in order, each up to its last whole record, and hands
    /// each segment's records to `take`, in lsn order. A segment or two is in memory at a time (the one
    /// read, and the last one written to, kept from the first pass): a log kept after a failed sync of
    /// SQLite (`runLoggedWriter`) grows a segment a `syncMillis` until the next start, and may hold more
    /// than memory does. Every segment's header is checked before anything is taken: a foreign or
    /// other-role file among them is refused before the database moves on.
    static func recover(path: String, role: JournalRole, take: ([LoggedWrite]) throws(JournalError) -> Void) throws(JournalError) -> Recovered {
        let folder = (path as NSString).deletingLastPathComponent
        let prefix = ((path as NSString).lastPathComponent) + "-log."
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        let numbers = names.compactMap { name -> Int? in name.hasPrefix(prefix) ? Int(name.dropFirst(prefix.count)) : nil }.sorted()
        for number in numbers { try checkHeader(of: segmentPath(path, number: number), role: role) }
        var recovered = Recovered(lastNumber: numbers.last ?? 0)
        // The last segment written to (a spare made ahead has no records), where a torn write can be;
        // found from the end, and kept, so that it is not read twice.
        var lastWritten: (number: Int, segment: ReadSegment)?
        for number in numbers.reversed() {
            let segment = try read(segmentPath(path, number: number), role: role)
            if !segment.records.isEmpty {
                lastWritten = (number, segment)
                break
            }
        }
        for number in numbers {
            let file = segmentPath(path, number: number)
            var segment: ReadSegment
            if let lastWritten, lastWritten.number == number {
                segment = lastWritten.segment
            } else {
                segment = try read(file, role: role)
            }
            recovered.segments.append(file)
            if segment.end == nil {
                recovered.notes.append("\(file): read up to its last whole record (\(segment.records.count) records); the \(segment.unreadBytes) bytes after it do not read as one (a write torn by a crash, or damage), and are left out")
            }
            // The last record of the last segment written to, when its body ends in whole pages of the
            // zeros written ahead: a write torn by a crash (the kernel writes whole pages), never
            // acknowledged. Left out, not reported as a damaged body; any other mismatch is damage,
            // found when its layout is rebuilt.
            if number == lastWritten?.number, let end = segment.end, let last = segment.records.last,
               Checksum.of(last.write.body) != last.checksum, Self.endsInUnwrittenPages(last, endingAt: end) {
                segment.records.removeLast()
                recovered.notes.append("\(file): read up to its last whole record (\(segment.records.count) records; a write torn by a crash left out)")
            }
            guard !segment.records.isEmpty else { continue }
            segment.records.sort { $0.lsn < $1.lsn }
            recovered.records += segment.records.count
            recovered.lastLSN = max(recovered.lastLSN, segment.records.last?.lsn ?? 0)
            try take(segment.records)
        }
        return recovered
    }

    /// A segment's records, and where they end when only zeros follow (nil when other bytes do).
    struct ReadSegment {
        var records: [LoggedWrite]
        var end: Int?
        var unreadBytes: Int
    }

    /// Whether `header` (a segment's first bytes) starts a segment of `role`'s log: false for one that
    /// holds nothing (cut before its header was whole, or whose header never reached the disk: a crash
    /// as it was made, which some file systems leave as zeros); throws for a foreign or other-role file.
    static func hasHeader(_ header: some Collection<UInt8>, file: String, role: JournalRole) throws(JournalError) -> Bool {
        guard header.count >= headerBytes, header.prefix(headerBytes).contains(where: { $0 != 0 }) else { return false }
        guard Array(header.prefix(magic.count)) == magic else {
            throw JournalError(.incompatible, "\(file) is not a log of this layoutd's journal (format LDJLOG1); move it away")
        }
        let expected: UInt8 = role == .daemon ? 1 : 2
        guard Array(header.prefix(magic.count + 1)).last == expected else {
            throw JournalError(.incompatible, "\(file) is the log of another role's journal, not of a \(role.rawValue)")
        }
        return true
    }

    static func checkHeader(of file: String, role: JournalRole) throws(JournalError) {
        guard let handle = FileHandle(forReadingAtPath: file) else {
            throw JournalError(.unreadable, "\(file): cannot read the journal's log")
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: headerBytes)) ?? nil
        _ = try hasHeader(header ?? Data(), file: file, role: role)
    }

    static func read(_ file: String, role: JournalRole) throws(JournalError) -> ReadSegment {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw JournalError(.unreadable, "\(file): cannot read the journal's log")
        }
        guard try hasHeader(data, file: file, role: role) else {
            return ReadSegment(records: [], end: headerBytes, unreadBytes: 0)
        }
        let (records, end) = data.withUnsafeBytes { raw in
            LogRecord.records(in: UnsafeRawBufferPointer(rebasing: raw[headerBytes...]))
        }
        // Zeros past the last record were written ahead (`prepareSpare`): the segment's end.
        let rest = data[(data.startIndex + headerBytes + end)...]
        let readable = !rest.contains(where: { $0 != 0 })
        return ReadSegment(records: records, end: readable ? headerBytes + end : nil, unreadBytes: rest.count)
    }

    /// Whether `record`'s body, ending at `end` in its segment, ends in zeros that start on a page.
    static func endsInUnwrittenPages(_ record: LoggedWrite, endingAt end: Int) -> Bool {
        let body = record.write.body
        guard let lastWritten = body.lastIndex(where: { $0 != 0 }).map({ $0 + 1 }) ?? (body.isEmpty ? nil : 0), lastWritten < body.count else { return false }
        let zerosStart = end - (body.count - lastWritten)
        // Rounded up to the page the zeros begin on: the bytes before it in that page may be zeros the
        // body really has.
        let page = 4096
        let pageStart = (zerosStart + page - 1) / page * page
        return pageStart < end
    }

    static func remove(_ segments: [String], of path: String) {
        for segment in segments { unlink(segment) }
        if !segments.isEmpty { syncFolder(of: path) }
    }

    static func syncFolder(of path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let descriptor = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = Glibc.close(descriptor)
    }
}
