/// Finds one member of a JSON object's top level without parsing the rest: the `id` of a request or a
/// reply, which may carry megabytes of items or attributes the client has no need to read.
///
/// Lenient by design: it only follows the structure (strings, nesting) far enough to find the member,
/// and answers `nil` for anything it cannot follow. Keys are compared as written, so a key spelled with
/// escapes (`"\u0069d"`) is not found.
struct JSONMemberScanner {
    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The JSON text of the first top-level member `name` of the object in `bytes`.
    static func member(_ name: String, in bytes: [UInt8]) -> ArraySlice<UInt8>? {
        var scanner = JSONMemberScanner(bytes)
        return scanner.member(Array(name.utf8))
    }

    private mutating func member(_ name: [UInt8]) -> ArraySlice<UInt8>? {
        skipWhitespace()
        guard consume(UInt8(ascii: "{")) else { return nil }
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return nil }
        while true {
            skipWhitespace()
            let keyStart = index + 1
            guard peek == UInt8(ascii: "\""), skipString() else { return nil }
            let key = bytes[keyStart..<(index - 1)]
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { return nil }
            skipWhitespace()
            let valueStart = index
            guard skipValue() else { return nil }
            if key.elementsEqual(name) { return bytes[valueStart..<index] }
            skipWhitespace()
            guard consume(UInt8(ascii: ",")) else { return nil }
        }
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    /// Skips a string from its opening quote past its closing one.
    private mutating func skipString() -> Bool {
        index += 1
        while let byte = peek {
            index += byte == UInt8(ascii: "\\") ? 2 : 1
            if byte == UInt8(ascii: "\"") { return true }
        }
        return false
    }

    /// Skips one value: a string, an object or array with everything nested in it, or a scalar.
    private mutating func skipValue() -> Bool {
        guard let first = peek else { return false }
        if first == UInt8(ascii: "\"") { return skipString() }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return skipContainer() }
        let start = index
        while let byte = peek, !Self.endsScalar(byte) { index += 1 }
        return index > start
    }

    private mutating func skipContainer() -> Bool {
        var depth = 0
        while let byte = peek {
            switch byte {
            case UInt8(ascii: "\""):
                guard skipString() else { return false }
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            default:
                break
            }
            index += 1
            if depth == 0 { return true }
        }
        return false
    }

    private static func endsScalar(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
            || byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
