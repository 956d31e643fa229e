/// One write as the append-only log holds it: the write, its place in the log, when it was appended,
/// and its body's checksum as it was logged.
struct LoggedWrite: Sendable {
    /// The log sequence number: writes are numbered in append order, across segments and restarts.
    var lsn: UInt64
    var write: JournalWrite
    var atMillis: Int64
    /// The checksum the body had when it was appended. A body read back from a damaged log keeps the
    /// checksum it was logged with, so that the database finds it corrupt and its key is reported lost
    /// when it is rebuilt, instead of replaying other bytes.
    var checksum: UInt64
    /// The body, when it is still in the memory it arrived in (`write`'s own body is then empty).
    var source: (any JournalBodySource)?
    /// The body's bytes (its record's, for a `source`).
    var bodyBytes: Int

    init(lsn: UInt64, write: JournalWrite, atMillis: Int64, checksum: UInt64, source: (any JournalBodySource)? = nil, bodyBytes: Int? = nil) {
        self.lsn = lsn
        self.write = write
        self.atMillis = atMillis
        self.checksum = checksum
        self.source = source
        self.bodyBytes = bodyBytes ?? write.bodyBytes
    }

    /// The write with its body in an array, for SQLite: a `source` joined here (on the journal thread).
    var materialized: LoggedWrite {
        guard let source else { return self }
        return LoggedWrite(lsn: lsn, write: write.withBody(source.joined()), atMillis: atMillis, checksum: checksum)
    }
}

/// The bytes of a log record, and reading them back.
///
/// Layout, little-endian: the header's checksum (UInt64, over the header from the next field on), the
/// header's size (UInt32, counted from itself), the kind (UInt8: 1 rebuild, 2 change, 3 drop, 4 epoch),
/// the lsn, version, epoch, items, time in ms, body length and body checksum (UInt64 each), the
/// namespace and the name (a UInt32 length and UTF-8 bytes each); then the body. A header whose
/// checksum does not match ends the segment (a write torn by a crash); a body whose checksum does not
/// match is kept with its logged checksum (see `LoggedWrite.checksum`).
enum LogRecord {
    /// Bytes before the header's variable part: its checksum, its size, the kind and the seven numbers.
    private static let fixedBytes = 8 + 4 + 1 + 7 * 8

    /// The header of `write`, to be written before its body: one allocation, written in place.
    static func header(of logged: LoggedWrite) -> [UInt8] {
        var key = logged.write.key
        var kind: UInt8
        var version = 0
        var epoch: UInt64 = 0
        var items = 0
        switch logged.write {
        case .rebuild(_, let rebuilt, let rebuiltEpoch, let count, _): (kind, version, epoch, items) = (1, rebuilt, rebuiltEpoch, count)
        case .change(_, let changed, let count, _): (kind, version, items) = (2, changed, count)
        case .drop(_, let dropped): (kind, version) = (3, dropped)
        case .epoch(_, let raised): (kind, epoch) = (4, raised)
        }
        let namespaceCount = key.namespace.utf8.count
        let nameCount = key.name.utf8.count
        let size = fixedBytes + 8 + namespaceCount + nameCount
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            var offset = 8
            func put<Number: FixedWidthInteger>(_ number: Number) {
                raw.storeBytes(of: number.littleEndian, toByteOffset: offset, as: Number.self)
                offset += MemoryLayout<Number>.size
            }
            func put(_ text: inout String) {
                put(UInt32(text.utf8.count))
                text.withUTF8 { utf8 in
                    UnsafeMutableRawBufferPointer(rebasing: raw[offset..<offset + utf8.count]).copyMemory(from: UnsafeRawBufferPointer(utf8))
                    offset += utf8.count
                }
            }
            put(UInt32(size - 8))
            put(kind)
            put(logged.lsn)
            put(UInt64(bitPattern: Int64(version)))
            put(epoch)
            put(UInt64(bitPattern: Int64(items)))
            put(UInt64(bitPattern: logged.atMillis))
            put(UInt64(logged.bodyBytes))
            put(logged.checksum)
            put(&key.namespace)
            put(&key.name)
            let checksum = Checksum.of(UnsafeRawBufferPointer(rebasing: raw[8..<size]))
            raw.storeBytes(of: checksum.littleEndian, toByteOffset: 0, as: UInt64.self)
            initialized = size
        }
    }

    /// The whole records at the start of `bytes`, and where the last one ends (`bytes.count` when the
    /// segment is whole; less when its tail was torn).
    static func records(in bytes: UnsafeRawBufferPointer) -> (records: [LoggedWrite], end: Int) {
        var records: [LoggedWrite] = []
        var offset = 0
        while let (record, next) = record(in: bytes, at: offset) {
            records.append(record)
            offset = next
        }
        return (records, offset)
    }

    private static func record(in bytes: UnsafeRawBufferPointer, at start: Int) -> (LoggedWrite, Int)? {
        guard bytes.count - start >= fixedBytes + 8 else { return nil }
        let checksum: UInt64 = load(bytes, start)
        let size = Int(load(bytes, start + 8) as UInt32)
        guard size >= fixedBytes - 8 + 8, size <= bytes.count - start - 8 else { return nil }
        guard Checksum.of(UnsafeRawBufferPointer(rebasing: bytes[start + 8..<start + 8 + size])) == checksum else { return nil }
        let kind = bytes[start + 12]
        var numbers: [UInt64] = []
        for index in 0..<7 { numbers.append(load(bytes, start + 13 + 8 * index)) }
        let (lsn, version, epoch, items, millis, bodyLength, bodyChecksum) = (
            numbers[0], Int(Int64(bitPattern: numbers[1])), numbers[2], Int(Int64(bitPattern: numbers[3])), Int64(bitPattern: numbers[4]), numbers[5], numbers[6]
        )
        var offset = start + fixedBytes
        guard let namespace = text(bytes, &offset, end: start + 8 + size), let name = text(bytes, &offset, end: start + 8 + size),
              offset == start + 8 + size, bodyLength <= UInt64(bytes.count - offset) else { return nil }
        let body = Array(bytes[offset..<offset + Int(bodyLength)])
        let key = JournalKey(namespace: namespace, name: name)
        let write: JournalWrite
        switch kind {
        case 1: write = .rebuild(key, version: version, epoch: epoch, items: items, body: body)
        case 2: write = .change(key, version: version, items: items, body: body)
        case 3: write = .drop(key, version: version)
        case 4: write = .epoch(key, epoch: epoch)
        default: return nil
        }
        return (LoggedWrite(lsn: lsn, write: write, atMillis: millis, checksum: bodyChecksum), offset + Int(bodyLength))
    }

    private static func text(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int, end: Int) -> String? {
        guard end - offset >= 4 else { return nil }
        let length = Int(load(bytes, offset) as UInt32)
        offset += 4
        guard length <= end - offset else { return nil }
        defer { offset += length }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self)
    }

    private static func load<Number: FixedWidthInteger>(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Number {
        Number(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Number.self))
    }

}

extension JournalWrite {
    /// The same write with `body` (a drop or an epoch, which have none, as they are).
    func withBody(_ body: [UInt8]) -> JournalWrite {
        switch self {
        case .rebuild(let key, let version, let epoch, let items, _): return .rebuild(key, version: version, epoch: epoch, items: items, body: body)
        case .change(let key, let version, let items, _): return .change(key, version: version, items: items, body: body)
        case .drop, .epoch: return self
        }
    }

    /// The body's bytes (empty for a drop or an epoch).
    var body: [UInt8] {
        switch self {
        case .rebuild(_, _, _, _, let body), .change(_, _, _, let body): return body
        case .drop, .epoch: return []
        }
    }
}
