import LayoutEngine

// The bulk loop of item objects (`"items":[{"height":20},{"height":20.5,"width":90},…]`, 10^6 objects):
// the compact shape real feeds send, read in one loop with the reader's place in a register.
//
// Written by hand beside the general member loop because that loop spent about 300 instructions an
// item on calls, whitespace checks, bounds checks per byte of a member name and the reader's state
// kept in memory: decoding objects stayed near 690 MB/s against 800 wanted (issue 26). Here a member
// name is one 8-byte comparison (two for aspectRatio) and its number is read by `JSONReader.simpleNumber`,
// as size columns are.
//
// The loop takes only items it can read whole: `{`, then one or more of `"height":`, `"aspectRatio":`,
// `"width":`, each followed by a simple number its rule accepts, separated by bare commas, then `}`.
// Anything else (whitespace, another member, an id, null, an exponent, a long number, a value the rule
// refuses, a missing `}`) stops it before the item, having consumed nothing of it: the general path
// then reads that item, or reports it, exactly as it would have without this loop.

extension ItemObjectsDecoder {
    /// Member names as they appear in a compact body, loaded as little-endian 8-byte words.
    private enum Word {
        /// `"height"` (its `:` is checked on its own).
        static let height: UInt64 = 0x2274_6867_6965_6822
        /// `"width":`
        static let width: UInt64 = 0x3A22_6874_6469_7722
        /// `"aspectR`, then `tRatio":` six bytes further on (the two overlap by two bytes).
        static let aspectRatioHead: UInt64 = 0x5274_6365_7073_6122
        static let aspectRatioTail: UInt64 = 0x3A22_6F69_7461_5274
    }

    /// Whether the words above are the names as the body spells them (for the tests).
    static func memberWordsMatchTheirNames() -> Bool {
        func word(_ text: StaticString, from start: Int = 0) -> UInt64 {
            UInt64(littleEndian: UnsafeRawPointer(text.utf8Start).loadUnaligned(fromByteOffset: start, as: UInt64.self))
        }
        return word("\"height\"") == Word.height && word("\"width\":") == Word.width
            && word("\"aspectRatio\":") == Word.aspectRatioHead && word("\"aspectRatio\":", from: 6) == Word.aspectRatioTail
    }

    /// Appends the compact item objects (see above) that start at the reader's offset, separated by bare
    /// commas. The caller makes sure the general path would accept an item without an id here (no
    /// earlier item has one) and that an item object does not nest too deep.
    ///
    /// Returns true when it stopped right after an item it read (the next byte is not a comma: `]`,
    /// whitespace or garbage), false when it stopped at the start of an item it did not read (offset
    /// there), which may be the first.
    @inline(__always)
    static func appendSimpleItems(_ reader: inout JSONReader, to builder: inout ItemColumnsBuilder) -> Bool {
        guard let base = reader.bytes.baseAddress else { return false }
        // A member reads at most 14 bytes of name, then `simpleNumber` at most 32 bytes from the number's
        // start, which also covers the byte after the number and the one after `}`: with 48 bytes left
        // at each member's start, no read needs a bounds check. Near the end the general path takes over.
        let last = reader.bytes.count &- 48
        var i = reader.offset
        items: while i <= last, base.load(fromByteOffset: i, as: UInt8.self) == UInt8(ascii: "{") {
            // Wrapping arithmetic below: every index stays within the 48 bytes checked for its member.
            var p = i &+ 1
            var height = Double.nan
            var aspectRatio = Double.nan
            var width = Double.nan
            // Members; a repeated one keeps its last value, as in the general path.
            repeat {
                guard p <= last else { break items }
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: p, as: UInt64.self))
                if word == Word.height, base.load(fromByteOffset: p &+ 8, as: UInt8.self) == UInt8(ascii: ":") {
                    // -0 passes `>= 0`, as it passes the general path's rule.
                    guard let number = JSONReader.simpleNumber(at: p &+ 9, in: base), number.value >= 0 else { break items }
                    height = number.value
                    p = number.end
                } else if word == Word.width {
                    guard let number = JSONReader.simpleNumber(at: p &+ 8, in: base), number.value >= 0 else { break items }
                    width = number.value
                    p = number.end
                } else if word == Word.aspectRatioHead,
                          UInt64(littleEndian: base.loadUnaligned(fromByteOffset: p &+ 6, as: UInt64.self)) == Word.aspectRatioTail {
                    // A simple number is never below 1e-15, so `> 0` is `>= leastNonzeroMagnitude` here too.
                    guard let number = JSONReader.simpleNumber(at: p &+ 14, in: base), number.value > 0 else { break items }
                    aspectRatio = number.value
                    p = number.end
                } else {
                    break items
                }
                let next = base.load(fromByteOffset: p, as: UInt8.self)
                p &+= 1
                if next == UInt8(ascii: "}") { break }
                guard next == UInt8(ascii: ",") else { break items }
            } while true
            builder.append(height: height, aspectRatio: aspectRatio, width: width, isSpan: false)
            // `p` is just after the `}`.
            guard base.load(fromByteOffset: p, as: UInt8.self) == UInt8(ascii: ",") else {
                reader.offset = p
                return true
            }
            i = p &+ 1
        }
        // Stopped at the start of item `i` (still the reader's offset when none was read).
        reader.offset = i
        return false
    }
}
