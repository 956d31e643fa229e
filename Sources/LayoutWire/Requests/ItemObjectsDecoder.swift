import LayoutEngine

/// The object form of a section's items (`[{"id":"a","height":120}, {"aspectRatio":1.5}, …]`), read
/// field by field into columns; member names are compared as bytes, never turned into strings.
enum ItemObjectsDecoder {
    /// The member of an item being read, to name it if it is bad.
    private enum Field: String {
        case none = "", height, aspectRatio, width, span, id
    }

    /// The items' sizes, and their ids when items carry them (all of them or none). `simpleItems: false`
    /// reads every item the general way, for the tests comparing the two.
    static func decode(_ reader: inout JSONReader, at path: JSONPath, simpleItems: Bool = true) throws(WireError) -> (sizes: ItemSizes, ids: [ItemID]?) {
        try SectionsDecoder.expect(.array, in: &reader, at: path)
        var builder = ItemColumnsBuilder()
        var ids: [ItemID] = []
        var firstWithoutID: Int?
        guard try reader.beginArray() else { return (builder.sizes(), nil) }
        var field = Field.none
        // The bulk loop leaves an item object's depth unchecked: it runs only where one may nest.
        let bulk = simpleItems && reader.depth < reader.maxDepth
        // Paths are built only on the error path, from the item index and the field being read.
        do throws(WireError) {
            repeat {
                field = .none
                // Compact items without ids in one loop (`appendSimpleItems`); it stops before any item it
                // leaves to the general reading below. Items without an id are valid here only while no
                // item has one (all or none).
                if bulk, ids.isEmpty {
                    let first = builder.count
                    let stoppedAfterItem = appendSimpleItems(&reader, to: &builder)
                    if firstWithoutID == nil, builder.count > first { firstWithoutID = first }
                    if stoppedAfterItem {
                        guard try reader.nextElement() else { break }
                        continue
                    }
                }
                guard reader.peekToken() == UInt8(ascii: "{") else {
                    guard let kind = reader.peekKind() else { throw reader.unexpected("an item object") }
                    throw WireError(.invalidRequest, "must be an object, not \(kind.article)")
                }
                var height = Double.nan
                var aspectRatio = Double.nan
                var width = Double.nan
                var isSpan = false
                var id: ItemID?
                if try reader.beginObject() {
                    repeat {
                        reader.skipWhitespace()
                        // The usual names, with their colon, are matched in place; any other name,
                        // or space before the colon, goes the general way.
                        if reader.matchQuotedKey("\"height\":") {
                            field = .height
                        } else if reader.matchQuotedKey("\"aspectRatio\":") {
                            field = .aspectRatio
                        } else if reader.matchQuotedKey("\"width\":") {
                            field = .width
                        } else {
                            field = try readOtherKey(&reader)
                            try reader.readColon()
                        }
                        switch field {
                        case .height: height = try ColumnDecoder.fastSize(&reader, rule: .nonNegative)
                        case .aspectRatio: aspectRatio = try ColumnDecoder.fastSize(&reader, rule: .positive)
                        case .width: width = try ColumnDecoder.fastSize(&reader, rule: .nonNegative)
                        case .span: isSpan = try readSpan(&reader)
                        case .id: id = try ColumnDecoder.id(&reader)
                        case .none: try reader.skipValue()
                        }
                        if reader.peek() == UInt8(ascii: ",") {
                            reader.offset += 1
                            continue
                        }
                        guard try reader.nextMember() else { break }
                    } while true
                }
                if let id {
                    // Ids are all or nothing: one per item, so `diff` can match every item.
                    if let firstWithoutID {
                        field = .id
                        throw WireError(.invalidRequest, "item \(builder.count) has an id but item \(firstWithoutID) has none; give every item an id or none")
                    }
                    ids.append(id)
                } else if firstWithoutID == nil {
                    if !ids.isEmpty {
                        field = .none
                        throw WireError(.invalidRequest, "missing id (earlier items have ids; give every item an id or none)")
                    }
                    firstWithoutID = builder.count
                }
                builder.append(height: height, aspectRatio: aspectRatio, width: width, isSpan: isSpan)
                if reader.peek() == UInt8(ascii: ",") {
                    reader.offset += 1
                    continue
                }
                guard try reader.nextElement() else { break }
            } while true
        } catch {
            let item = path / builder.count
            throw error.located(at: field == .none ? item : item / field.rawValue)
        }
        return (builder.sizes(), firstWithoutID == nil ? ids : nil)
    }

    /// A member name other than the three matched in place, read strictly (not its `:`).
    private static func readOtherKey(_ reader: inout JSONReader) throws(WireError) -> Field {
        let key = try reader.readMemberName()
        if reader.key(key, is: "height") { return .height }
        if reader.key(key, is: "aspectRatio") { return .aspectRatio }
        if reader.key(key, is: "width") { return .width }
        if reader.key(key, is: "span") { return .span }
        if reader.key(key, is: "id") { return .id }
        return .none
    }

    private static func readSpan(_ reader: inout JSONReader) throws(WireError) -> Bool {
        switch reader.peekKind() {
        case .bool: return try reader.readBool()
        case .null:
            try reader.readNull()
            return false
        case let kind?: throw WireError(.invalidRequest, "must be a boolean, not \(kind.article)")
        case nil: throw reader.unexpected("a JSON value")
        }
    }
}
