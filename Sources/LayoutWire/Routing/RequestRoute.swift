/// What a broker needs to know of a request to route it, read without decoding the request: its op,
/// its layout key and its id (PROTOCOL.md, "The broker ↔ worker protocol").
///
/// Like the decoder, the last of duplicate members wins, so the broker routes a request to the worker
/// that the decoded request will actually address. Other members are skipped by their brackets and
/// quotes only, unchecked: a body that is not valid JSON is rejected whole by the worker's decoder,
/// wherever it is sent. A body that is not a JSON object, or breaks off, keeps what was read before the
/// fault; the worker that gets it answers with the decoder's error.
public struct RequestRoute: Hashable, Sendable {
    /// The op, when `op` is a plain op name.
    public var operation: OperationName?
    /// The layout key, when `layout` is a string.
    public var layout: String?
    /// The id, as a reply would echo it.
    public var id: RequestID?

    public init(operation: OperationName? = nil, layout: String? = nil, id: RequestID? = nil) {
        self.operation = operation
        self.layout = layout
        self.id = id
    }

    /// Reads the top-level `op`, `layout` and `id` members of `body`, skipping every other member.
    public init(scanning body: UnsafeRawBufferPointer) {
        self.init()
        var reader = JSONReader(body)
        do throws(WireError) {
            guard reader.peekKind() == .object, try reader.beginObject() else { return }
            repeat {
                let key = try reader.readKey()
                switch key.range.count {
                case 2 where reader.key(key, is: "op"):
                    reader.skipWhitespace()
                    if reader.peek() == UInt8(ascii: "\"") {
                        let token = try reader.readStringToken()
                        operation = OperationName(token, in: reader) ?? OperationName(rawValue: (try? reader.string(of: token)) ?? "")
                    } else {
                        try reader.skipValue()
                        operation = nil
                    }
                case 2 where reader.key(key, is: "id"):
                    switch try reader.readValue() {
                    case .string(let text): id = .string(text)
                    case .number(let number) where number.value.isFinite: id = .number(number.text)
                    default: id = nil
                    }
                case 6 where reader.key(key, is: "layout"):
                    reader.skipWhitespace()
                    if reader.peek() == UInt8(ascii: "\"") {
                        layout = try reader.readString()
                    } else {
                        try reader.skipValue()
                        layout = nil
                    }
                default:
                    if key.hasEscapes {
                        // Rare: an escaped member name may still spell one of ours.
                        try readEscaped(key, &reader)
                    } else {
                        // Bulk members (`sections`, `updates`, `items`) are most of a large body: skipped
                        // without checking them (the worker's decoder does).
                        try reader.skipValueLeniently()
                    }
                }
            } while try reader.nextMember()
        } catch {
            return
        }
    }

    /// `init(scanning:)` for a body held in an array.
    public init(scanning body: [UInt8]) {
        self = body.withUnsafeBytes { RequestRoute(scanning: $0) }
    }

    private mutating func readEscaped(_ key: JSONKey, _ reader: inout JSONReader) throws(WireError) {
        let name = try reader.string(of: key)
        switch name {
        case "op":
            if case .string(let text) = try reader.readValue() { operation = OperationName(rawValue: text) } else { operation = nil }
        case "layout":
            if case .string(let text) = try reader.readValue() { layout = text } else { layout = nil }
        case "id":
            switch try reader.readValue() {
            case .string(let text): id = .string(text)
            case .number(let number) where number.value.isFinite: id = .number(number.text)
            default: id = nil
            }
        default:
            try reader.skipValue()
        }
    }
}

extension OperationName {
    /// Whether the op changes the layout it names (and so is recorded in a recipe when it succeeds):
    /// `prepare`, `bounds`, `update`, `diff` and `drop`.
    public var changesLayout: Bool {
        switch self {
        case .prepare, .bounds, .update, .diff, .drop: return true
        case .ping, .layout, .query, .list: return false
        }
    }

    /// Whether the op works on a kept layout named by `layout`.
    public var isKeyed: Bool {
        switch self {
        case .prepare, .query, .bounds, .update, .diff, .drop: return true
        case .ping, .layout, .list: return false
        }
    }
}
