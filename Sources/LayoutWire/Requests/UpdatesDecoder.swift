import LayoutEngine

/// `updates`: `[{"delete":[s,i]}, {"insert":[s,i],"item":{…}}, {"move":[[s,i],[s,i]]}, …]`, read from
/// the bytes; whole sections (`insertSection`, `reloadSection`) go through the bulk section decoder.
enum UpdatesDecoder {
    static func decode(_ reader: inout JSONReader, at path: JSONPath) throws(WireError) -> [UpdatePayload] {
        try SectionsDecoder.expect(.array, in: &reader, at: path)
        var updates: [UpdatePayload] = []
        guard try reader.beginArray() else { return updates }
        repeat {
            updates.append(try decodeOne(&reader, at: path / updates.count))
        } while try reader.nextElement()
        return updates
    }

    private static let operationKeys = ["delete", "insert", "move", "reload", "deleteSection", "insertSection", "moveSection", "reloadSection"]

    private static func decodeOne(_ reader: inout JSONReader, at path: JSONPath) throws(WireError) -> UpdatePayload {
        try SectionsDecoder.expect(.object, in: &reader, at: path)
        var operation: (name: String, value: JSONValue)?
        var item: JSONValue?
        var section: DecodedSection?
        if try reader.beginObject() {
            repeat {
                let key = try reader.string(of: try reader.readKey())
                switch key {
                case "section":
                    section = try SectionsDecoder.decodeSection(&reader, at: path / "section")
                case "item":
                    item = try reader.readValue()
                case _ where operationKeys.contains(key):
                    if let first = operation {
                        throw .invalidRequest("one operation per update; found both \(first.name) and \(key)", at: path)
                    }
                    operation = (key, try reader.readValue())
                default:
                    try reader.skipValue()
                }
            } while try reader.nextMember()
        }
        guard let (name, value) = operation else {
            throw .invalidRequest("an update needs one of \(operationKeys.joined(separator: ", "))", at: path)
        }
        let at = path / name
        switch name {
        case "delete":
            return .delete(try indexPath(value, at: at))
        case "insert":
            let (sizing, id) = try itemSizing(item, at: path / "item")
            return .insert(try indexPath(value, at: at), sizing, id: id)
        case "reload":
            let (sizing, id) = try itemSizing(item, at: path / "item")
            return .reload(try indexPath(value, at: at), sizing, id: id)
        case "move":
            let pair = try value.array(at: at)
            guard pair.count == 2 else { throw .invalidRequest("must be [[section, item], [section, item]]", at: at) }
            return .move(from: try indexPath(pair[0], at: at / 0), to: try indexPath(pair[1], at: at / 1))
        case "deleteSection":
            return .deleteSection(try value.index(at: at))
        case "moveSection":
            let pair = try value.array(at: at)
            guard pair.count == 2 else { throw .invalidRequest("must be [from, to]", at: at) }
            return .moveSection(from: try pair[0].index(at: at / 0), to: try pair[1].index(at: at / 1))
        case "insertSection", "reloadSection":
            guard let section else { throw .invalidRequest("\(name) needs a \"section\" object", at: path / "section") }
            let payload = SectionPayload(decoded: section, path: path / "section")
            let index = try value.index(at: at)
            return name == "insertSection" ? .insertSection(index, payload) : .reloadSection(index, payload)
        default:
            throw .invalidRequest("unknown update \(name)", at: path)
        }
    }

    private static func indexPath(_ value: JSONValue, at path: JSONPath) throws(WireError) -> ItemIndexPath {
        let pair = try value.array(at: path)
        guard pair.count == 2 else { throw .invalidRequest("must be [section, item]", at: path) }
        return ItemIndexPath(section: try pair[0].index(at: path / 0), item: try pair[1].index(at: path / 1))
    }

    /// An item object `{id, height, aspectRatio, width, span}`; absent means default sizing.
    private static func itemSizing(_ value: JSONValue?, at path: JSONPath) throws(WireError) -> (ItemSizing, ItemID?) {
        guard let value else { return (ItemSizing(), nil) }
        let object = try value.object(at: path)
        var sizing = ItemSizing()
        var id: ItemID?
        for member in object.members {
            let field = path / member.key
            switch member.key {
            case "height": sizing.height = try size(member.value, at: field, positive: false)
            case "aspectRatio": sizing.aspectRatio = try size(member.value, at: field, positive: true)
            case "width": sizing.width = try size(member.value, at: field, positive: false)
            case "span": sizing.isSpan = try member.value.bool(at: field)
            case "id":
                switch member.value {
                case .string(let text): id = .string(text)
                case .number(let number):
                    guard let integer = Int64(exactly: number.value), number.value.isFinite else {
                        throw .invalidRequest("an id must be a string or an integer", at: field)
                    }
                    id = .integer(integer)
                default: throw .invalidRequest("an id must be a string or an integer", at: field)
                }
            default: continue
            }
        }
        return (sizing, id)
    }

    private static func size(_ value: JSONValue, at path: JSONPath, positive: Bool) throws(WireError) -> Double {
        let number = try value.number(at: path)
        guard number.isFinite, positive ? number > 0 : number >= 0 else {
            throw .invalidRequest("must be a finite number \(positive ? "> 0" : ">= 0"), not \(number)", at: path)
        }
        return number
    }
}
