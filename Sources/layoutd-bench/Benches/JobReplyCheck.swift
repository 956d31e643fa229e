import LayoutTestKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LayoutEngine
import LayoutWire
import ZeroMQ

/// Checks a `layout` reply: cheaply while the clock runs (length, head and tail against the reply
/// expected here), and thoroughly once after it (every byte, and a few frames read back out of the
/// JSON and compared with the engine's own frames).
struct JobReplyCheck {
    /// The reply's frames as encoded here: the JSON, then a binary reply's columns.
    let expected: [[UInt8]]
    let layout: PreparedLayout
    let format: AttributesFormat

    init(layout: PreparedLayout, format: AttributesFormat) {
        let result = LayoutResult(layout: layout, selection: .all, format: format)
        expected = [ReplyEncoder.success(id: .string(JobInputs.requestID), result: result)]
            + (result.binaryColumns?.columns.map(\.bytes.bytes) ?? [])
        self.layout = layout
        self.format = format
    }

    /// The bytes of every frame.
    var byteCount: Int { expected.reduce(0) { $0 + $1.count } }

    /// The reply has the expected frames, each of the expected length, and its JSON begins and ends as
    /// expected: what a client must read to know the reply arrived whole.
    func quickCheck(_ reply: [ReceivedFrame]) -> Bool {
        guard reply.count == expected.count, zip(reply, expected).allSatisfy({ $0.count == $1.count }), let head = expected.first else { return false }
        return reply[0].message.withUnsafeBytes { bytes in
            let edge = Swift.min(64, bytes.count)
            return bytes.prefix(edge).elementsEqual(head.prefix(edge)) && bytes.suffix(edge).elementsEqual(head.suffix(edge))
        }
    }

    /// nil when the reply is right; otherwise what is wrong.
    func fullCheck(_ reply: [ReceivedFrame]) -> String? {
        guard reply.count == expected.count else { return "reply has \(reply.count) frames, expected \(expected.count)" }
        for (index, (frame, mine)) in zip(reply, expected).enumerated() {
            guard frame.count == mine.count else { return "frame \(index) has \(frame.count) bytes, expected \(mine.count)" }
            let same = frame.message.withUnsafeBytes { bytes in
                mine.withUnsafeBytes { mine in
                    guard let a = mine.baseAddress, let b = bytes.baseAddress else { return mine.count == bytes.count }
                    return memcmp(a, b, bytes.count) == 0
                }
            }
            guard same else { return "frame \(index) differs from the locally encoded one" }
        }
        let count = layout.itemCount(inSection: 0)
        for item in Set([0, 1, 2, count / 3, count / 2, count - 1]).sorted() where item >= 0 && item < count {
            guard let element = layout.cell(item: item, section: 0) else { return "engine has no cell \(item)" }
            guard let frame = frame(of: item, in: reply) else { return "cell \(item) not found in the reply" }
            guard frame == element.frame else { return "cell \(item): reply has \(frame), engine \(element.frame)" }
        }
        return nil
    }

    /// Reads cell `item`'s frame out of the reply: its text, or a binary reply's columns (one section,
    /// no supplementary elements: the item'th value of each).
    private func frame(of item: Int, in reply: [ReceivedFrame]) -> Rect? {
        guard format == .binary else { return reply[0].message.withUnsafeBytes { frame(of: item, in: $0) } }
        // Frames 4–7 are x, y, width and height (PROTOCOL.md §6).
        guard reply.count >= 8 else { return nil }
        return rect { key in
            guard let index = ["x": 4, "y": 5, "width": 6, "height": 7][key] else { return nil }
            return reply[index].message.withUnsafeBytes { bytes in
                guard (item + 1) * 8 <= bytes.count else { return nil }
                return Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: item * 8, as: UInt64.self)))
            }
        }
    }

    /// Reads cell `item`'s frame out of the reply text.
    private func frame(of item: Int, in bytes: UnsafeRawBufferPointer) -> Rect? {
        switch format {
        case .binary:
            return nil
        case .objects:
            // Objects carry their own index: `…"item":17,"x":…,"y":…,"width":…,"height":…}`.
            guard let start = find(#""item":\#(item),"#, in: bytes, from: 0) else { return nil }
            return rect { key in number(after: #""\#(key)":"#, in: bytes, from: start) }
        case .columns:
            // Columns hold the item'th value of each array (one section, no supplementary elements).
            guard let attributes = find(#""attributes":"#, in: bytes, from: 0) else { return nil }
            return rect { key in
                guard let column = find(#""\#(key)":["#, in: bytes, from: attributes) else { return nil }
                return value(at: item, inArrayAt: column, in: bytes)
            }
        }
    }

    private func rect(_ read: (String) -> Double?) -> Rect? {
        guard let x = read("x"), let y = read("y"), let width = read("width"), let height = read("height") else { return nil }
        return Rect(x: x, y: y, width: width, height: height)
    }

    /// The offset just past the first `pattern` at or after `offset` (memchr to its first byte, then a
    /// comparison; Glibc's module does not export memmem).
    private func find(_ pattern: String, in bytes: UnsafeRawBufferPointer, from offset: Int) -> Int? {
        let needle = Array(pattern.utf8)
        guard let base = bytes.baseAddress, let first = needle.first else { return nil }
        var position = offset
        while position + needle.count <= bytes.count {
            guard let hit = memchr(base + position, Int32(first), bytes.count - position) else { return nil }
            let start = base.distance(to: UnsafeRawPointer(hit))
            guard start + needle.count <= bytes.count else { return nil }
            if bytes[start..<(start + needle.count)].elementsEqual(needle) { return start + needle.count }
            position = start + 1
        }
        return nil
    }

    private func number(after key: String, in bytes: UnsafeRawBufferPointer, from offset: Int) -> Double? {
        guard let start = find(key, in: bytes, from: offset) else { return nil }
        return parseNumber(at: start, in: bytes)
    }

    /// The `index`th number of the array whose first value starts at `offset`.
    private func value(at index: Int, inArrayAt offset: Int, in bytes: UnsafeRawBufferPointer) -> Double? {
        var position = offset
        for _ in 0..<index {
            guard let base = bytes.baseAddress, let comma = memchr(base + position, Int32(UInt8(ascii: ",")), bytes.count - position) else { return nil }
            position = base.distance(to: comma) + 1
        }
        return parseNumber(at: position, in: bytes)
    }

    /// strtod over the reply: every number in it is followed by `,`, `]` or `}`, so it stops in bounds.
    private func parseNumber(at offset: Int, in bytes: UnsafeRawBufferPointer) -> Double? {
        guard let base = bytes.baseAddress, offset < bytes.count else { return nil }
        var end: UnsafeMutablePointer<CChar>?
        let start = (base + offset).assumingMemoryBound(to: CChar.self)
        let value = strtod(start, &end)
        guard let end, end != UnsafeMutablePointer(mutating: start) else { return nil }
        return value
    }
}
