/// A generic JSON value, for small control fields (spec, bounds, params) and for op bodies not yet
/// decoded by a dedicated decoder. Bulk arrays never go through it.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// How an error message names the kind of this value.
    var kind: JSONKind {
        switch self {
        case .null: return .null
        case .bool: return .bool
        case .number: return .number
        case .string: return .string
        case .array: return .array
        case .object: return .object
        }
    }
}

/// A JSON number: its exact text (echoed ids keep it) and the nearest Double, which is infinite when
/// the text is beyond Double's range (the interpreter rejects that with the field's path).
public struct JSONNumber: Hashable, Sendable {
    public var text: String
    public var value: Double

    public init(text: String, value: Double) {
        self.text = text
        self.value = value
    }
}

/// A JSON object with its members in body order. Lookups take the last member of a name, as
/// JavaScript's `JSON.parse` does with duplicates.
public struct JSONObject: Hashable, Sendable {
    public struct Member: Hashable, Sendable {
        public var key: String
        public var value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    public var members: [Member]

    public init(members: [Member] = []) {
        self.members = members
    }

    public subscript(key: String) -> JSONValue? {
        members.last { $0.key == key }?.value
    }

    /// Each distinct member name with its effective (last) value, in order of first appearance.
    var effectiveMembers: [Member] {
        var seen: Set<String> = []
        var result: [Member] = []
        for member in members.reversed() where seen.insert(member.key).inserted {
            result.append(member)
        }
        return result.reversed()
    }
}

extension JSONReader {
    /// Reads any value into a `JSONValue` tree.
    mutating func readValue() throws(WireError) -> JSONValue {
        guard let kind = peekKind() else { throw unexpected("a JSON value") }
        switch kind {
        case .object:
            var members: [JSONObject.Member] = []
            if try beginObject() {
                // Control objects have a few members (a rect four, insets four): one allocation.
                members.reserveCapacity(4)
                repeat {
                    let key = try string(of: readKey())
                    members.append(JSONObject.Member(key: key, value: try readValue()))
                } while try nextMember()
            }
            return .object(JSONObject(members: members))
        case .array:
            var elements: [JSONValue] = []
            if try beginArray() {
                repeat {
                    elements.append(try readValue())
                } while try nextElement()
            }
            return .array(elements)
        case .string:
            return .string(try readString())
        case .number:
            let token = try scanNumber()
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[token.range]), as: UTF8.self)
            let value = (try? self.value(of: token)) ?? (token.isNegative ? -Double.infinity : .infinity)
            return .number(JSONNumber(text: text, value: value))
        case .bool:
            return .bool(try readBool())
        case .null:
            try readNull()
            return .null
        }
    }

    /// Skips any value, checking it as strictly as reading would.
    mutating func skipValue() throws(WireError) {
        guard let kind = peekKind() else { throw unexpected("a JSON value") }
        switch kind {
        case .object:
            if try beginObject() {
                repeat {
                    _ = try readKey()
                    try skipValue()
                } while try nextMember()
            }
        case .array:
            if try beginArray() {
                repeat {
                    try skipValue()
                } while try nextElement()
            }
        case .string:
            try skipString()
        case .number:
            _ = try scanNumber()
        case .bool:
            _ = try readBool()
        case .null:
            try readNull()
        }
    }

    /// The first syntax error of a whole document, or nil when it is one strict JSON value.
    static func syntaxError(in bytes: UnsafeRawBufferPointer, maxDepth: Int = defaultMaxDepth) -> WireError? {
        var reader = JSONReader(bytes, maxDepth: maxDepth)
        do throws(WireError) {
            try reader.skipValue()
            try reader.expectEnd()
            return nil
        } catch {
            return error
        }
    }

    /// Parses a whole document into a `JSONValue`.
    static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = defaultMaxDepth) throws(WireError) -> JSONValue {
        var reader = JSONReader(bytes, maxDepth: maxDepth)
        let value = try reader.readValue()
        try reader.expectEnd()
        return value
    }
}
