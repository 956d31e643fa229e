extension JSONReader {
    /// Skips the value that starts at the next token by matching brackets and string quotes only, without
    /// checking what lies between: for readers that route a body and leave its validation to the decoder
    /// that runs later (the cluster broker). Several times faster than `skipValue` over a large numeric
    /// array. A body it misjudges is malformed, and the decoder rejects it whole wherever it is sent.
    mutating func skipValueLeniently() throws(WireError) {
        skipWhitespace()
        let opening = peek()
        guard opening == UInt8(ascii: "[") || opening == UInt8(ascii: "{") else {
            // Scalars are short: the strict skip costs nothing here.
            return try skipValue()
        }
        var depth = 0
        var index = offset
        let count = bytes.count
        guard let base = bytes.baseAddress else { throw unexpected("a JSON value") }
        while index < count {
            // The bulk of a large body (numbers, commas, names) holds no byte this loop acts on: step
            // over it eight bytes at a time. Byte by byte, the broker's scan of a 10^6-item prepare was
            // most of its CPU per request (cluster-bench `scaling`).
            index = Self.skipWords(in: base, from: index, count: count, while: { !SWAR.hasStructural($0) })
            guard index < count else { break }
            switch base.load(fromByteOffset: index, as: UInt8.self) {
            case UInt8(ascii: "\""):
                // To the closing quote, stepping over escaped characters.
                index += 1
                while index < count {
                    index = Self.skipWords(in: base, from: index, count: count, while: { !SWAR.hasQuoteOrBackslash($0) })
                    guard index < count else { break }
                    let byte = base.load(fromByteOffset: index, as: UInt8.self)
                    if byte == UInt8(ascii: "\\") {
                        index += 2
                    } else if byte == UInt8(ascii: "\"") {
                        break
                    } else {
                        index += 1
                    }
                }
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 {
                    offset = index + 1
                    return
                }
            default:
                break
            }
            index += 1
        }
        offset = count
        throw unexpected("the end of an array or object")
    }

    /// The first offset from `index` whose eight-byte word fails `passes` (or the last full word's end):
    /// every byte before it is in a word that passed.
    @inline(__always)
    private static func skipWords(in base: UnsafeRawPointer, from index: Int, count: Int, while passes: (UInt64) -> Bool) -> Int {
        var index = index
        while index &+ 8 <= count, passes(base.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
            index &+= 8
        }
        return index
    }
}

/// Byte tests over eight bytes at once ("SIMD within a register"); each answers whether any byte of the
/// word matches, exactly (the classic zero-byte test: a borrow can only mark a byte above a real match).
enum SWAR {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    @inline(__always)
    static func hasZeroByte(_ word: UInt64) -> Bool {
        (word &- ones) & ~word & highs != 0
    }

    @inline(__always)
    static func hasByte(_ word: UInt64, _ byte: UInt8) -> Bool {
        hasZeroByte(word ^ (ones &* UInt64(byte)))
    }

    /// `"`, `[`, `]`, `{` or `}`: setting bit 5 folds `[` onto `{` and `]` onto `}`, and no other byte.
    @inline(__always)
    static func hasStructural(_ word: UInt64) -> Bool {
        let folded = word | (ones &* 0x20)
        return hasByte(word, UInt8(ascii: "\"")) || hasByte(folded, UInt8(ascii: "{")) || hasByte(folded, UInt8(ascii: "}"))
    }

    @inline(__always)
    static func hasQuoteOrBackslash(_ word: UInt64) -> Bool {
        hasByte(word, UInt8(ascii: "\"")) || hasByte(word, UInt8(ascii: "\\"))
    }
}
