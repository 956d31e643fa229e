import LayoutEngine

/// `update` and `diff` → `{"layout":…,"version":…,"deletes":[…],"inserts":[…],"moves":[{"from":[s,i],"to":[s,i]}],
/// "reloads":[…],"sections":{"deletes":[…],"inserts":[…],"moves":[{"from":a,"to":b}],"reloads":[…]},"contentSize":…}`:
/// the normalized batch, the same members the `batch` event carries.
public struct BatchResult: WireResult, Sendable {
    public var layout: String
    public var version: Int
    public var batch: NormalizedBatch
    public var contentSize: Size

    public init(layout: String, version: Int, batch: NormalizedBatch, contentSize: Size) {
        self.layout = layout
        self.version = version
        self.batch = batch
        self.contentSize = contentSize
    }

    public func encode(into writer: inout JSONWriter) {
        writer.write(raw: "{\"layout\":")
        writer.write(layout)
        writer.write(raw: ",\"version\":")
        writer.write(version)
        BatchEncoding.write(batch, into: &writer)
        writer.write(raw: ",\"contentSize\":")
        writer.write(contentSize)
        writer.write(byte: UInt8(ascii: "}"))
    }

    public var estimatedByteCount: Int { 256 + layout.utf8.count + 24 * batch.changeCount }
}

/// The members of a normalized batch, encoded once for both the reply and the `batch` event.
public enum BatchEncoding {
    /// `deletes`, `inserts`, `moves`, `reloads`, `sections`, each a complete JSON value (what a `batch`
    /// event carries).
    public static func members(of batch: NormalizedBatch) -> [EncodedMember] {
        func member(_ name: String, _ write: (inout JSONWriter) -> Void) -> EncodedMember {
            var writer = JSONWriter(capacity: 2 + 24 * batch.changeCount)
            write(&writer)
            return EncodedMember(name: name, json: writer.finish())
        }
        return [
            member("deletes") { paths(batch.deletes, into: &$0) },
            member("inserts") { paths(batch.inserts, into: &$0) },
            member("moves") { moves(batch.moves, into: &$0) },
            member("reloads") { paths(batch.reloads, into: &$0) },
            member("sections") { sections(batch.sections, into: &$0) },
        ]
    }

    /// The same members written straight into `writer`, each after a comma, as `JSONWriter.write(members:)`
    /// writes `members(of:)`: the bytes are the same, without the five arrays a reply would make and drop.
    public static func write(_ batch: NormalizedBatch, into writer: inout JSONWriter) {
        writer.write(raw: ",\"deletes\":")
        paths(batch.deletes, into: &writer)
        writer.write(raw: ",\"inserts\":")
        paths(batch.inserts, into: &writer)
        writer.write(raw: ",\"moves\":")
        moves(batch.moves, into: &writer)
        writer.write(raw: ",\"reloads\":")
        paths(batch.reloads, into: &writer)
        writer.write(raw: ",\"sections\":")
        sections(batch.sections, into: &writer)
    }

    private static func paths(_ paths: [ItemPath], into writer: inout JSONWriter) {
        writer.write(byte: UInt8(ascii: "["))
        for (index, path) in paths.enumerated() {
            if index > 0 { writer.write(byte: UInt8(ascii: ",")) }
            writer.write(byte: UInt8(ascii: "["))
            writer.write(path.section)
            writer.write(byte: UInt8(ascii: ","))
            writer.write(path.item)
            writer.write(byte: UInt8(ascii: "]"))
        }
        writer.write(byte: UInt8(ascii: "]"))
    }

    private static func moves(_ moves: [NormalizedBatch.Move], into writer: inout JSONWriter) {
        writer.write(byte: UInt8(ascii: "["))
        for (index, move) in moves.enumerated() {
            if index > 0 { writer.write(byte: UInt8(ascii: ",")) }
            writer.write(raw: "{\"from\":[")
            writer.write(move.from.section)
            writer.write(byte: UInt8(ascii: ","))
            writer.write(move.from.item)
            writer.write(raw: "],\"to\":[")
            writer.write(move.to.section)
            writer.write(byte: UInt8(ascii: ","))
            writer.write(move.to.item)
            writer.write(raw: "]}")
        }
        writer.write(byte: UInt8(ascii: "]"))
    }

    private static func sections(_ changes: NormalizedBatch.SectionChanges, into writer: inout JSONWriter) {
        writer.write(raw: "{\"deletes\":")
        integers(changes.deletes, into: &writer)
        writer.write(raw: ",\"inserts\":")
        integers(changes.inserts, into: &writer)
        writer.write(raw: ",\"moves\":[")
        for (index, move) in changes.moves.enumerated() {
            if index > 0 { writer.write(byte: UInt8(ascii: ",")) }
            writer.write(raw: "{\"from\":")
            writer.write(move.from)
            writer.write(raw: ",\"to\":")
            writer.write(move.to)
            writer.write(byte: UInt8(ascii: "}"))
        }
        writer.write(raw: "],\"reloads\":")
        integers(changes.reloads, into: &writer)
        writer.write(byte: UInt8(ascii: "}"))
    }

    private static func integers(_ values: [Int], into writer: inout JSONWriter) {
        writer.write(byte: UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { writer.write(byte: UInt8(ascii: ",")) }
            writer.write(value)
        }
        writer.write(byte: UInt8(ascii: "]"))
    }
}

extension NormalizedBatch {
    /// Item changes in all, to size buffers.
    var changeCount: Int { deletes.count + inserts.count + moves.count + reloads.count }
}
