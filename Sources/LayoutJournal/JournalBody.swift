/// A request body with the binary frames sent after it (PROTOCOL.md §2), kept as one journal record:
/// a `prepare` whose heights came as a frame is journaled as it came, instead of as a snapshot that must
/// be encoded, decoded again and checked (tens of ms for 10^6 items).
///
/// Layout: the magic `00 4C 4A 46` ("\0LJF", which no JSON body starts with), the number of parts
/// (UInt32, little-endian), then each part's length (UInt64, little-endian) and bytes; the first part is
/// the body.
public enum JournalBody {
    private static let magic: [UInt8] = [0x00, 0x4C, 0x4A, 0x46]

    /// `body` and `frames` as one record.
    public static func joining(_ body: UnsafeRawBufferPointer, frames: [UnsafeRawBufferPointer]) -> [UInt8] {
        withPieces(of: [body] + frames, concatenated)
    }

    static func concatenated(_ pieces: [UnsafeRawBufferPointer]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pieces.reduce(0) { $0 + $1.count })
        for piece in pieces { bytes += piece }
        return bytes
    }

    /// `body` and `frames` as one record.
    public static func joining(_ body: UnsafeRawBufferPointer, frames: [[UInt8]]) -> [UInt8] {
        withViews(of: frames[...], collecting: []) { joining(body, frames: $0) }
    }

    /// Calls `body` with the pieces whose bytes, one after the other, are the record of `parts` (a
    /// request body, then its frames): the body alone when it has no frames; the magic, the count and
    /// each part's length around them otherwise. Nothing of the parts is copied. Public for
    /// layoutd-bench's floor, which appends exactly the log's bytes.
    public static func withPieces<Result, Failure: Error>(
        of parts: [UnsafeRawBufferPointer], _ body: ([UnsafeRawBufferPointer]) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        guard parts.count > 1 else { return try body(parts) }
        var framing: [UInt8] = magic
        withUnsafeBytes(of: UInt32(parts.count).littleEndian) { framing += $0 }
        for part in parts {
            withUnsafeBytes(of: UInt64(part.count).littleEndian) { framing += $0 }
        }
        // `withUnsafeBytes` rethrows untyped: the body's typed error is carried out in a `Result`.
        let outcome = framing.withUnsafeBytes { framing -> Swift.Result<Result, Failure> in
            // The magic, the count and the first length; then each part, and the next one's length.
            var pieces = [UnsafeRawBufferPointer(rebasing: framing[0..<16])]
            for (index, part) in parts.enumerated() {
                pieces.append(part)
                if index + 1 < parts.count {
                    let at = 16 + 8 * index
                    pieces.append(UnsafeRawBufferPointer(rebasing: framing[at..<at + 8]))
                }
            }
            do throws(Failure) {
                return .success(try body(pieces))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    private static func withViews<Result>(of arrays: ArraySlice<[UInt8]>, collecting views: [UnsafeRawBufferPointer], _ body: ([UnsafeRawBufferPointer]) -> Result) -> Result {
        guard let first = arrays.first else { return body(views) }
        return first.withUnsafeBytes { withViews(of: arrays.dropFirst(), collecting: views + [$0], body) }
    }

    /// The body and its frames when `record` was made by `joining`; nil for a plain body.
    public static func parts(of record: [UInt8]) -> [[UInt8]]? {
        guard record.count >= 8, Array(record[0..<4]) == magic else { return nil }
        return record.withUnsafeBytes { raw -> [[UInt8]]? in
            let count = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
            var offset = 8
            var parts: [[UInt8]] = []
            for _ in 0..<count {
                guard offset + 8 <= raw.count else { return nil }
                let length = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                offset += 8
                guard length <= UInt64(raw.count - offset) else { return nil }
                parts.append(Array(raw[offset..<offset + Int(length)]))
                offset += Int(length)
            }
            return offset == raw.count ? parts : nil
        }
    }
}

/// A record body still in the memory it arrived in (a request's message and its frames), journaled
/// without a copy on the thread that answers: the log is written from its parts, and SQLite gets them
/// joined on the journal thread (`Journal.append(_:body:completion:)`).
public protocol JournalBodySource: Sendable {
    /// Calls `body` with the parts (the request body, then its frames), valid only inside it.
    func withJournalParts<Result>(_ body: ([UnsafeRawBufferPointer]) -> Result) -> Result

    /// The record's checksum when it was computed ahead (`JournalChecksumAhead`), once it is done; nil
    /// (the default) for the log to compute it as it writes the record.
    var checksumAhead: UInt64? { get }
}

extension JournalBodySource {
    public var checksumAhead: UInt64? { nil }

    /// The record's bytes, as `JournalBody.joining` makes them.
    func joined() -> [UInt8] {
        withJournalParts { JournalBody.withPieces(of: $0, JournalBody.concatenated) }
    }

    /// The checksum of the record's bytes, as the log stores it beside them.
    var recordChecksum: UInt64 {
        withJournalParts { JournalBody.withPieces(of: $0) { Checksum.of(pieces: $0) } }
    }
}
