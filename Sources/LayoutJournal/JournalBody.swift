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
    public static func joining(_ body: UnsafeRawBufferPointer, frames: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 + 8 * (frames.count + 1) + frames.reduce(body.count) { $0 + $1.count })
        bytes += magic
        withUnsafeBytes(of: UInt32(frames.count + 1).littleEndian) { bytes += $0 }
        withUnsafeBytes(of: UInt64(body.count).littleEndian) { bytes += $0 }
        bytes += body
        for frame in frames {
            withUnsafeBytes(of: UInt64(frame.count).littleEndian) { bytes += $0 }
            bytes += frame
        }
        return bytes
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
