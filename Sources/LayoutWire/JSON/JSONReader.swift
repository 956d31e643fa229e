/// A strict JSON (RFC 8259) reader over raw bytes, pulled token by token by the decoders.
///
/// Written by hand rather than using Foundation's `JSONDecoder`/`JSONSerialization`: those read
/// 15-18 MB/s here, about 30x too slow for 10^6-item jobs, and build an object per item. Pulling
/// tokens lets the request decoder write bulk arrays straight into flat `ItemSizes` columns.
///
/// Strictness: no trailing garbage, no leading zeros, no NaN/Infinity literals, only the six JSON
/// escapes plus `\uXXXX` with surrogates paired, no raw control characters in strings, valid UTF-8,
/// and a nesting limit. Syntax errors are `invalid_json` with the byte offset; a nesting limit hit is
/// `too_large`; a valid number beyond Double's range is `invalid_request` for the caller to locate.
struct JSONReader {
    let bytes: UnsafeRawBufferPointer
    /// The next byte to read.
    var offset: Int
    /// Objects and arrays entered and not yet left.
    private(set) var depth = 0
    let maxDepth: Int

    /// Requests nest about six levels deep; 64 leaves room for forward-compatible fields while
    /// keeping the recursive skipper's stack use trivial.
    static let defaultMaxDepth = 64

    /// A reader at `offset`, inside `depth` containers.
    init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0, depth: Int = 0, maxDepth: Int = JSONReader.defaultMaxDepth) {
        self.bytes = bytes
        self.offset = offset
        self.depth = depth
        self.maxDepth = maxDepth
    }

    /// Goes back to a place read earlier (to skip a value whose decoding failed half-way).
    mutating func rewind(to offset: Int, depth: Int) {
        self.offset = offset
        self.depth = depth
    }

    // MARK: Bytes

    var isAtEnd: Bool { offset >= bytes.count }

    /// The byte at `index`, or 0 past the end (0 is never valid where a caller looks for a token).
    @inline(__always)
    func byte(at index: Int) -> UInt8 {
        index < bytes.count ? bytes[index] : 0
    }

    /// The next byte, or 0 at the end.
    @inline(__always)
    func peek() -> UInt8 { byte(at: offset) }

    @inline(__always)
    mutating func skipWhitespace() {
        // Compact JSON has no whitespace between tokens: one test for the usual case.
        if offset < bytes.count, bytes[offset] > 0x20 { return }
        skipWhitespaceLoop()
    }

    private mutating func skipWhitespaceLoop() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    /// Skips whitespace and returns the next byte (0 at the end) without consuming it.
    @inline(__always)
    mutating func peekToken() -> UInt8 {
        skipWhitespace()
        return peek()
    }

    /// The error for whatever sits at `offset` when something else was expected.
    func unexpected(_ expected: String) -> WireError {
        if isAtEnd { return .invalidJSON("unexpected end of input; expected \(expected)", at: offset) }
        let found = peek()
        let shown = (0x21...0x7E).contains(found) ? "'\(Character(Unicode.Scalar(found)))'" : "byte 0x\(String(found, radix: 16))"
        return .invalidJSON("unexpected \(shown); expected \(expected)", at: offset)
    }

    /// Consumes `byte` after optional whitespace.
    @inline(__always)
    mutating func expect(_ byte: UInt8, _ description: @autoclosure () -> String) throws(WireError) {
        skipWhitespace()
        guard peek() == byte else { throw unexpected(description()) }
        offset += 1
    }

    /// Whether only whitespace is left; the decoders call this last to reject trailing garbage.
    mutating func expectEnd() throws(WireError) {
        skipWhitespace()
        guard isAtEnd else { throw .invalidJSON("unexpected data after the JSON value", at: offset) }
    }

    // MARK: Containers

    @inline(__always)
    private mutating func enter() throws(WireError) {
        depth += 1
        guard depth <= maxDepth else {
            throw WireError(.tooLarge, "JSON nested deeper than \(maxDepth) levels (byte \(offset))")
        }
    }

    /// Consumes `{` and tells whether the object has a first member (false: `}` consumed too).
    @inline(__always)
    mutating func beginObject() throws(WireError) -> Bool {
        try expect(UInt8(ascii: "{"), "'{'")
        try enter()
        if peekToken() == UInt8(ascii: "}") {
            offset += 1
            depth -= 1
            return false
        }
        return true
    }

    /// After a member's value: consumes `,` (true: another member follows) or `}` (false).
    @inline(__always)
    mutating func nextMember() throws(WireError) -> Bool {
        switch peekToken() {
        case UInt8(ascii: ","):
            offset += 1
            return true
        case UInt8(ascii: "}"):
            offset += 1
            depth -= 1
            return false
        default:
            throw unexpected("',' or '}'")
        }
    }

    /// Consumes `[` and tells whether the array has a first element (false: `]` consumed too).
    @inline(__always)
    mutating func beginArray() throws(WireError) -> Bool {
        try expect(UInt8(ascii: "["), "'['")
        try enter()
        if peekToken() == UInt8(ascii: "]") {
            offset += 1
            depth -= 1
            return false
        }
        return true
    }

    /// After an element: consumes `,` (true: another element follows) or `]` (false).
    @inline(__always)
    mutating func nextElement() throws(WireError) -> Bool {
        switch peekToken() {
        case UInt8(ascii: ","):
            offset += 1
            return true
        case UInt8(ascii: "]"):
            offset += 1
            depth -= 1
            return false
        default:
            throw unexpected("',' or ']'")
        }
    }

    /// Reads a member name and its `:`.
    @inline(__always)
    mutating func readKey() throws(WireError) -> JSONKey {
        let key = try readMemberName()
        try expect(UInt8(ascii: ":"), "':'")
        return key
    }

    /// Reads a member name, not its `:`.
    @inline(__always)
    mutating func readMemberName() throws(WireError) -> JSONKey {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else { throw unexpected("a member name in double quotes") }
        return try readStringToken()
    }

    /// Whether `key` is exactly `name` (an ASCII literal).
    @inline(__always)
    func key(_ key: JSONKey, is name: StaticString) -> Bool {
        let range = key.range
        guard !key.hasEscapes else { return (try? string(of: key)) == name.description }
        guard range.count == name.utf8CodeUnitCount else { return false }
        let literal = name.utf8Start
        for i in 0..<range.count where bytes[range.lowerBound + i] != literal[i] { return false }
        return true
    }

    // MARK: Kinds

    /// The kind of the value that starts at the next token; nil when no value can start there.
    mutating func peekKind() -> JSONKind? {
        switch peekToken() {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: return nil
        }
    }

    // MARK: Literals

    /// Reads `true` or `false`.
    mutating func readBool() throws(WireError) -> Bool {
        skipWhitespace()
        if matchLiteral("true") { return true }
        if matchLiteral("false") { return false }
        throw unexpected("true or false")
    }

    /// Reads `null`.
    mutating func readNull() throws(WireError) {
        skipWhitespace()
        guard matchLiteral("null") else { throw unexpected("null") }
    }

    /// Consumes `literal` if it is next.
    @inline(__always)
    mutating func matchLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard offset + count <= bytes.count else { return false }
        let start = literal.utf8Start
        for i in 0..<count where bytes[offset + i] != start[i] { return false }
        offset += count
        return true
    }
}

/// The six kinds of JSON value.
enum JSONKind: String, Sendable {
    case object, array, string, number, bool, null

    /// How an error message names it.
    var article: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }
}

/// A string token as read (usually a member name): where its content lies in the body, between the
/// quotes. Plain bytes, so passing one around costs no reference counting.
struct JSONKey {
    var range: Range<Int>
    /// Whether the content holds escapes (then it must be unescaped to be compared or kept).
    var hasEscapes: Bool
}
