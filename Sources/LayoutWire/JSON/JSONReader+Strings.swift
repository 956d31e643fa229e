extension JSONReader {
    /// Reads a string value.
    mutating func readString() throws(WireError) -> String {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else { throw unexpected("a string") }
        return try string(of: readStringToken())
    }

    /// The text of a string token (a key or a value) read earlier.
    func string(of token: JSONKey) throws(WireError) -> String {
        let text = UnsafeRawBufferPointer(rebasing: bytes[token.range])
        guard token.hasEscapes else { return String(decoding: text, as: UTF8.self) }
        return try unescape(token.range)
    }

    /// Scans the string at `offset` (which holds its opening quote), checking it strictly, and returns
    /// where its content lies. Nothing is copied: a key is compared in place, and only a string with
    /// escapes is ever unescaped.
    @inline(__always)
    mutating func readStringToken() throws(WireError) -> JSONKey {
        let start = offset + 1
        var i = start
        var isASCII = true
        var hasEscapes = false
        var segmentStart = start
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                if !isASCII { try Self.validateUTF8(UnsafeRawBufferPointer(rebasing: bytes[segmentStart..<i]), at: segmentStart) }
                offset = i + 1
                return JSONKey(range: start..<i, hasEscapes: hasEscapes)
            }
            if c == UInt8(ascii: "\\") {
                // Escapes produce whole scalars, so raw segments between them can be checked apart.
                if !isASCII { try Self.validateUTF8(UnsafeRawBufferPointer(rebasing: bytes[segmentStart..<i]), at: segmentStart) }
                isASCII = true
                hasEscapes = true
                i += try escape(at: i).length
                segmentStart = i
                continue
            }
            if c < 0x20 { throw .invalidJSON("unescaped control character in a string", at: i) }
            if c >= 0x80 { isASCII = false }
            i += 1
        }
        throw .invalidJSON("unterminated string", at: offset)
    }

    /// Skips a string, checking it as strictly as reading would.
    @inline(__always)
    mutating func skipString() throws(WireError) {
        _ = try readStringToken()
    }

    /// The unescaped text of string content that `readStringToken` has already checked.
    private func unescape(_ range: Range<Int>) throws(WireError) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(range.count)
        var i = range.lowerBound
        while i < range.upperBound {
            let c = bytes[i]
            if c == UInt8(ascii: "\\") {
                let (scalar, length) = try escape(at: i)
                Self.appendUTF8(scalar, to: &text)
                i += length
            } else {
                text.append(c)
                i += 1
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Decodes the escape starting with the backslash at `index`: the scalar and the bytes it spans.
    /// `\uXXXX` high surrogates must be followed by a `\uXXXX` low surrogate, and low ones never stand alone.
    private func escape(at index: Int) throws(WireError) -> (scalar: UInt32, length: Int) {
        switch byte(at: index + 1) {
        case UInt8(ascii: "\""): return (0x22, 2)
        case UInt8(ascii: "\\"): return (0x5C, 2)
        case UInt8(ascii: "/"): return (0x2F, 2)
        case UInt8(ascii: "b"): return (0x08, 2)
        case UInt8(ascii: "f"): return (0x0C, 2)
        case UInt8(ascii: "n"): return (0x0A, 2)
        case UInt8(ascii: "r"): return (0x0D, 2)
        case UInt8(ascii: "t"): return (0x09, 2)
        case UInt8(ascii: "u"):
            let unit = try hexUnit(at: index + 2)
            switch unit {
            case 0xD800...0xDBFF:
                guard byte(at: index + 6) == UInt8(ascii: "\\"), byte(at: index + 7) == UInt8(ascii: "u") else {
                    throw .invalidJSON("unpaired high surrogate \\u\(String(unit, radix: 16, uppercase: true))", at: index)
                }
                let low = try hexUnit(at: index + 8)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw .invalidJSON("unpaired high surrogate \\u\(String(unit, radix: 16, uppercase: true))", at: index)
                }
                return (0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), 12)
            case 0xDC00...0xDFFF:
                throw .invalidJSON("unpaired low surrogate \\u\(String(unit, radix: 16, uppercase: true))", at: index)
            default:
                return (unit, 6)
            }
        default:
            throw .invalidJSON("invalid escape sequence", at: index)
        }
    }

    /// Four hex digits at `index`.
    private func hexUnit(at index: Int) throws(WireError) -> UInt32 {
        var unit: UInt32 = 0
        for i in index..<(index + 4) {
            let c = byte(at: i)
            let digit: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
            default: throw .invalidJSON("\\u needs four hex digits", at: index - 2)
            }
            unit = unit << 4 | UInt32(digit)
        }
        return unit
    }

    private static func appendUTF8(_ scalar: UInt32, to text: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            text.append(UInt8(scalar))
        case 0x80..<0x800:
            text.append(UInt8(0xC0 | scalar >> 6))
            text.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            text.append(UInt8(0xE0 | scalar >> 12))
            text.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            text.append(UInt8(0x80 | scalar & 0x3F))
        default:
            text.append(UInt8(0xF0 | scalar >> 18))
            text.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            text.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            text.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Rejects anything but well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
    /// `base` is the body offset of `text`, for the message.
    static func validateUTF8<Bytes: RandomAccessCollection>(_ text: Bytes, at base: Int) throws(WireError)
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var i = text.startIndex
        let end = text.endIndex
        func continuation(_ index: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            index < end && range.contains(text[index])
        }
        while i < end {
            let lead = text[i]
            let length: Int
            switch lead {
            case 0x00...0x7F:
                length = 1
            case 0xC2...0xDF where continuation(i + 1):
                length = 2
            case 0xE0 where continuation(i + 1, 0xA0...0xBF) && continuation(i + 2),
                 0xE1...0xEC where continuation(i + 1) && continuation(i + 2),
                 0xED where continuation(i + 1, 0x80...0x9F) && continuation(i + 2),
                 0xEE...0xEF where continuation(i + 1) && continuation(i + 2):
                length = 3
            case 0xF0 where continuation(i + 1, 0x90...0xBF) && continuation(i + 2) && continuation(i + 3),
                 0xF1...0xF3 where continuation(i + 1) && continuation(i + 2) && continuation(i + 3),
                 0xF4 where continuation(i + 1, 0x80...0x8F) && continuation(i + 2) && continuation(i + 3):
                length = 4
            default:
                throw .invalidJSON("invalid UTF-8 in a string", at: base + i - text.startIndex)
            }
            i += length
        }
    }
}
