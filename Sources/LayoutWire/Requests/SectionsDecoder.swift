import LayoutEngine

/// A section as the body gives it, before the spec is known: its `params` are merged over the spec's
/// parameters once the whole request has been read (the spec may come after the sections).
struct DecodedSection {
    var items: ItemSizes
    var ids: [ItemID]?
    var header: Double?
    var footer: Double?
    var params: JSONObject?
}

/// Decodes `sections` straight from the reader into `ItemSizes` columns: no generic value per item.
///
/// Only a section's small fields (`params`) go through `JSONValue`. Item sizes are checked as they
/// are read, so an error names the exact field in the form the client used
/// (`sections[2].items[17].height` or `sections[2].heights[17]`).
enum SectionsDecoder {
    static func decodeSections(_ reader: inout JSONReader, frames: AttachedFrames = .none, at path: JSONPath) throws(WireError) -> [DecodedSection] {
        try expect(.array, in: &reader, at: path)
        var sections: [DecodedSection] = []
        if try reader.beginArray() {
            repeat {
                sections.append(try decodeSection(&reader, frames: frames, at: path / sections.count))
            } while try reader.nextElement()
        }
        return sections
    }

    /// One section object.
    static func decodeSection(_ reader: inout JSONReader, frames: AttachedFrames = .none, at path: JSONPath) throws(WireError) -> DecodedSection {
        try expect(.object, in: &reader, at: path)
        var fields = SectionFields(frames: frames)
        if try reader.beginObject() {
            repeat {
                let key = try reader.readKey()
                try fields.read(key, from: &reader, at: path)
            } while try reader.nextMember()
        }
        return try fields.section(at: path)
    }

    /// Throws unless the next value is of `kind`.
    @inline(__always)
    static func expect(_ kind: JSONKind, in reader: inout JSONReader, at path: @autoclosure () -> JSONPath) throws(WireError) {
        guard let found = reader.peekKind() else { throw reader.unexpected("a JSON value") }
        guard found == kind else { throw .wrongType(expected: kind, found: found, at: path()) }
    }
}

/// The rule an item size obeys (LAYOUTS.md: sizes >= 0, `aspectRatio` > 0).
enum SizeRule {
    case nonNegative
    case positive

    @inline(__always)
    func accepts(_ value: Double) -> Bool {
        switch self {
        case .nonNegative: return value >= 0
        case .positive: return value > 0
        }
    }

    /// The least value `accepts` takes: for every number (not NaN), `accepts(v) == (v >= lowestAccepted)`.
    /// -0 passes `>= 0`, as it passes `nonNegative`.
    var lowestAccepted: Double {
        switch self {
        case .nonNegative: return 0
        case .positive: return .leastNonzeroMagnitude
        }
    }

    func message(for value: Double) -> String {
        switch self {
        case .nonNegative: return "must be a number >= 0, not \(value)"
        case .positive: return "must be a number > 0, not \(value)"
        }
    }
}

/// The fields of one section as they are read, in any order.
private struct SectionFields {
    /// The binary frames after the body, which a size column may name instead of listing its values.
    let frames: AttachedFrames
    var count: Int?
    var items: (sizes: ItemSizes, ids: [ItemID]?)?
    var heights: [Double]?
    var aspectRatios: [Double]?
    var widths: [Double]?
    var spans: [Bool]?
    var ids: [ItemID]?
    var header: Double?
    var footer: Double?
    var params: JSONObject?
    /// Columns in the order they were read, for messages about their lengths.
    var columnOrder: [(name: String, count: Int)] = []

    mutating func read(_ key: JSONKey, from reader: inout JSONReader, at path: JSONPath) throws(WireError) {
        if reader.key(key, is: "items") {
            items = try ItemObjectsDecoder.decode(&reader, at: path / "items")
        } else if reader.key(key, is: "heights") {
            heights = try sizes(&reader, rule: .nonNegative, at: path / "heights")
            note("heights", heights)
        } else if reader.key(key, is: "aspectRatios") {
            aspectRatios = try sizes(&reader, rule: .positive, at: path / "aspectRatios")
            note("aspectRatios", aspectRatios)
        } else if reader.key(key, is: "widths") {
            widths = try sizes(&reader, rule: .nonNegative, at: path / "widths")
            note("widths", widths)
        } else if reader.key(key, is: "spans") {
            spans = try ColumnDecoder.flags(&reader, at: path / "spans")
            note("spans", spans)
        } else if reader.key(key, is: "ids") {
            ids = try ColumnDecoder.ids(&reader, at: path / "ids")
        } else if reader.key(key, is: "count") {
            count = try readCount(&reader, at: path / "count")
        } else if reader.key(key, is: "header") {
            header = try readOptionalNumber(&reader, at: path / "header")
        } else if reader.key(key, is: "footer") {
            footer = try readOptionalNumber(&reader, at: path / "footer")
        } else if reader.key(key, is: "params") {
            try SectionsDecoder.expect(.object, in: &reader, at: path / "params")
            if case .object(let object) = try reader.readValue() { params = object }
        } else {
            // A misspelt column ("aspEctRatios") would otherwise lay every item out at the default size
            // without a word; unknown top-level fields stay ignored, as PROTOCOL.md promises.
            let name = try reader.string(of: key)
            throw .invalidRequest(
                "unknown section field \"\(name)\"; a section takes: \(Self.knownFields.joined(separator: ", "))", at: path / name
            )
        }
    }

    /// A size column: a JSON array, or `{"frame": k}` naming a binary frame after the body.
    private func sizes(_ reader: inout JSONReader, rule: SizeRule, at path: JSONPath) throws(WireError) -> [Double] {
        reader.skipWhitespace()
        if reader.peekKind() == .object {
            return try ColumnDecoder.sizes(&reader, frames: frames, rule: rule, at: path)
        }
        return try ColumnDecoder.sizes(&reader, rule: rule, at: path)
    }

    static let knownFields = ["items", "heights", "aspectRatios", "widths", "spans", "ids", "count", "header", "footer", "params"]

    private mutating func note<Column: Collection>(_ name: String, _ column: Column?) {
        columnOrder.removeAll { $0.name == name }
        columnOrder.append((name, column?.count ?? 0))
    }

    private func readCount(_ reader: inout JSONReader, at path: JSONPath) throws(WireError) -> Int {
        try SectionsDecoder.expect(.number, in: &reader, at: path)
        let value: Int
        do throws(WireError) { value = try reader.readInteger() } catch { throw error.located(at: path) }
        guard value >= 0 else { throw .invalidRequest("must be an integer >= 0, not \(value)", at: path) }
        return value
    }

    private func readOptionalNumber(_ reader: inout JSONReader, at path: JSONPath) throws(WireError) -> Double? {
        if reader.peekKind() == .null {
            try reader.readNull()
            return nil
        }
        try SectionsDecoder.expect(.number, in: &reader, at: path)
        do throws(WireError) { return try reader.readNumber() } catch { throw error.located(at: path) }
    }

    /// Checks how the fields combine and builds the section.
    func section(at path: JSONPath) throws(WireError) -> DecodedSection {
        var itemCount: Int
        var sizes: ItemSizes
        var sectionIDs = ids
        if let items {
            if let column = columnOrder.first {
                throw .invalidRequest("\"\(column.name)\" cannot be combined with \"items\"", at: path / column.name)
            }
            if let itemIDs = items.ids {
                if sectionIDs != nil {
                    throw .invalidRequest("\"ids\" cannot be combined with ids inside \"items\"", at: path / "ids")
                }
                sectionIDs = itemIDs
            }
            sizes = items.sizes
            itemCount = sizes.count
        } else if let first = columnOrder.first {
            for column in columnOrder.dropFirst() where column.count != first.count {
                throw .invalidRequest("has \(column.count) values, \"\(first.name)\" has \(first.count)", at: path / column.name)
            }
            itemCount = first.count
            let built = ItemSizes(
                count: itemCount, heights: Self.dropUnset(heights), aspectRatios: Self.dropUnset(aspectRatios),
                widths: Self.dropUnset(widths), spans: spans.map { $0.contains(true) ? $0 : [] } ?? []
            )
            guard let built else { throw WireError(.internal, "column lengths disagree", path: path.fieldPath) }
            sizes = built
        } else {
            // Only a count (or only ids, or nothing): items with default sizing.
            itemCount = count ?? sectionIDs?.count ?? 0
            sizes = ItemSizes(count: itemCount)
        }
        if let count, count != itemCount {
            throw .invalidRequest("count is \(count) but \(itemCount) items are given", at: path / "count")
        }
        if let sectionIDs, sectionIDs.count != itemCount {
            throw .invalidRequest("\(sectionIDs.count) ids for \(itemCount) items", at: path / "ids")
        }
        return DecodedSection(items: sizes, ids: sectionIDs, header: header, footer: footer, params: params)
    }

    /// A column where every value is null is no column at all (so it equals the form that omits it).
    private static func dropUnset(_ column: [Double]?) -> [Double] {
        guard let column, column.contains(where: { !$0.isNaN }) else { return [] }
        return column
    }
}
