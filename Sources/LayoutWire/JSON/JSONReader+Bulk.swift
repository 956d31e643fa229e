// Fast paths for the bulk arrays of a request (10^6 numbers or item objects). Each handles the common
// shape in a few dozen instructions and hands anything else to the general, strict path, which then
// reads it (or reports it) exactly as it would have without the fast path.

extension JSONReader {
    /// A plain number at `offset`: optional minus, at most 15 digits in all, optional fraction, no
    /// exponent. Returns nil, consuming nothing, for anything else (the general path decides).
    @inline(__always)
    mutating func readSimpleNumber() -> Double? {
        // A simple number with its terminator spans at most 21 bytes; with 32 left, no read needs a
        // bounds check. Near the end of the body the general path takes over.
        guard let base = bytes.baseAddress, bytes.count &- offset >= 32 else { return nil }
        guard let number = Self.simpleNumber(at: offset, in: base) else { return nil }
        offset = number.end
        return number.value
    }

    /// The simple number starting at `index` and the index just after it, or nil. The caller
    /// guarantees 32 readable bytes from `index`.
    ///
    /// Exact: 15 digits stay below 2^53, so the mantissa is an exact double, and so is 10^k for the at
    /// most 15 fraction digits; one IEEE division rounds the exact quotient correctly.
    @inline(__always)
    static func simpleNumber(at index: Int, in base: UnsafeRawPointer) -> (value: Double, end: Int)? {
        // Wrapping arithmetic: the loops stop by the 17th digit, so indices stay below `index + 21`.
        var i = index
        var c = base.load(fromByteOffset: i, as: UInt8.self)
        let isNegative = c == UInt8(ascii: "-")
        if isNegative {
            i &+= 1
            c = base.load(fromByteOffset: i, as: UInt8.self)
        }
        var mantissa: Int64 = 0
        let digitsStart = i
        if c == UInt8(ascii: "0") {
            i &+= 1
            c = base.load(fromByteOffset: i, as: UInt8.self)
            if c &- UInt8(ascii: "0") < 10 { return nil }
        } else if c &- UInt8(ascii: "1") < 9 {
            // Two digits a turn, so the length is checked half as often; it stops by the 17th digit.
            repeat {
                mantissa = mantissa &* 10 &+ Int64(c &- UInt8(ascii: "0"))
                i &+= 1
                c = base.load(fromByteOffset: i, as: UInt8.self)
                guard c &- UInt8(ascii: "0") < 10 else { break }
                mantissa = mantissa &* 10 &+ Int64(c &- UInt8(ascii: "0"))
                i &+= 1
                c = base.load(fromByteOffset: i, as: UInt8.self)
            } while c &- UInt8(ascii: "0") < 10 && i &- digitsStart < 16
        } else {
            return nil
        }
        var digits = i &- digitsStart
        var fractionDigits = 0
        if c == UInt8(ascii: ".") {
            i &+= 1
            let fractionStart = i
            c = base.load(fromByteOffset: i, as: UInt8.self)
            guard c &- UInt8(ascii: "0") < 10 else { return nil }
            // Bounded by the digits in all, so a long fraction after a long integer part stops in time.
            repeat {
                mantissa = mantissa &* 10 &+ Int64(c &- UInt8(ascii: "0"))
                i &+= 1
                c = base.load(fromByteOffset: i, as: UInt8.self)
            } while c &- UInt8(ascii: "0") < 10 && i &- fractionStart &+ digits < 16
            fractionDigits = i &- fractionStart
            digits &+= fractionDigits
        }
        // More than 15 digits (the loops stop at 16 or 17, so the byte after may still be a digit), or an
        // exponent: the general path.
        guard digits <= 15, c &- UInt8(ascii: "0") >= 10, c | 0x20 != UInt8(ascii: "e") else { return nil }
        var value = Double(mantissa)
        if fractionDigits > 0 { value /= exactPowerOfTen(fractionDigits) }
        return (isNegative ? -value : value, i)
    }

    /// Consumes the member name `quoted` (its quotes included, plain ASCII, no escapes) if it starts
    /// exactly at `offset`. Matching the closing quote too makes a match a complete, valid string.
    @inline(__always)
    mutating func matchQuotedKey(_ quoted: StaticString) -> Bool {
        let length = quoted.utf8CodeUnitCount
        guard offset + length <= bytes.count else { return false }
        let literal = quoted.utf8Start
        for i in 0..<length where bytes[offset + i] != literal[i] { return false }
        offset += length
        return true
    }

    /// Consumes `:` and the whitespace around it.
    @inline(__always)
    mutating func readColon() throws(WireError) {
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else { throw unexpected("':'") }
        offset += 1
        skipWhitespace()
    }
}
