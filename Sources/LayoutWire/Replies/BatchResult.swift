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
        writer.write(members: BatchEncoding.members(of: batch))
        writer.write(raw: ",\"contentSize\":")
        writer.write(contentSize)
        writer.write(byte: UInt8(ascii: "}"))
    }

    public var estimatedByteCount: Int { 256 + layout.utf8.count + 24 * batch.changeCount }
}

/// The members of a normalized batch, encoded once for both the reply and the `batch` event.
public enum BatchEncoding {
    /// `deletes`, `inserts`, `moves`, `reloads`, `sections`, each a complete JSON value.
    public static func members(of batch: NormalizedBatch) -> [EncodedMember] {
        [
            EncodedMember(name: "deletes", json: paths(batch.deletes)),
            EncodedMember(name: "inserts", json: paths(batch.inserts)),
            EncodedMember(name: "moves", json: moves(batch.moves)),
            EncodedMember(name: "reloads", json: paths(batch.reloads)),
            EncodedMember(name: "sections", json: sections(batch.sections)),
        ]
    }

    private static func paths(_ paths: [ItemPath]) -> [UInt8] {
        var writer = JSONWriter(capacity: 2 + 16 * paths.count)
        writer.write(paths.map { ItemIndexPath(section: $0.section, item: $0.item) })
        return writer.finish()
    }

    private static func moves(_ moves: [NormalizedBatch.Move]) -> [UInt8] {
        var writer = JSONWriter(capacity: 2 + 40 * moves.count)
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
        return writer.finish()
    }

    private static func sections(_ changes: NormalizedBatch.SectionChanges) -> [UInt8] {
        var writer = JSONWriter(capacity: 96)
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
        return writer.finish()
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
