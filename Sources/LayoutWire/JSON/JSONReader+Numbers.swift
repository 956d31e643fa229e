/// A number token as scanned: its place in the body and its decimal parts.
struct NumberToken {
    var range: Range<Int>
    var isNegative: Bool
    /// The significant digits as an integer; meaningful only when `significantDigits <= 19`.
    var mantissa: UInt64
    /// Digits from the first non-zero one on (more than 19 overflow `mantissa`).
    var significantDigits: Int
    /// The value is `mantissa * 10^exponent` (the written exponent minus the fraction's digits).
    var exponent: Int
    /// Written without fraction or exponent.
    var isIntegerLiteral: Bool
}

extension JSONReader {
    /// 10^exponent for 0...22, the powers of ten that are exact doubles. A switch of literals compiles
    /// to a constant table, without the lazy-initialisation check a global array costs on every read.
    @inline(__always)
    static func exactPowerOfTen(_ exponent: Int) -> Double {
        switch exponent {
        case 0: return 1e0
        case 1: return 1e1
        case 2: return 1e2
        case 3: return 1e3
        case 4: return 1e4
        case 5: return 1e5
        case 6: return 1e6
        case 7: return 1e7
        case 8: return 1e8
        case 9: return 1e9
        case 10: return 1e10
        case 11: return 1e11
        case 12: return 1e12
        case 13: return 1e13
        case 14: return 1e14
        case 15: return 1e15
        case 16: return 1e16
        case 17: return 1e17
        case 18: return 1e18
        case 19: return 1e19
        case 20: return 1e20
        case 21: return 1e21
        default: return 1e22
        }
    }

    /// Reads a number as the Double nearest to its decimal value. A number that is valid JSON but not a
    /// finite Double (`1e309`) throws `invalid_request` with no path: the caller knows the field.
    @inline(__always)
    mutating func readNumber() throws(WireError) -> Double {
        skipWhitespace()
        return try readNumberHere()
    }

    /// `readNumber` when the number starts exactly at `offset`.
    @inline(__always)
    mutating func readNumberHere() throws(WireError) -> Double {
        try value(of: scanNumber())
    }

    /// The Double nearest to `token`'s decimal value.
    @inline(__always)
    func value(of token: NumberToken) throws(WireError) -> Double {
        // Exact fast path (Clinger): a mantissa below 2^53 and 10^|e| with |e| <= 22 are both exact
        // doubles, so one IEEE multiplication or division rounds the exact quotient correctly.
        if token.significantDigits <= 19, token.mantissa <= 1 << 53, token.exponent >= -22, token.exponent <= 22 {
            // Below 2^53 the signed conversion is exact and one instruction (the unsigned one is not).
            var value = Double(Int64(bitPattern: token.mantissa))
            if token.exponent < 0 {
                value /= Self.exactPowerOfTen(-token.exponent)
            } else if token.exponent > 0 {
                value *= Self.exactPowerOfTen(token.exponent)
            }
            return token.isNegative ? -value : value
        }
        if token.mantissa == 0, token.significantDigits == 0 { return token.isNegative ? -0.0 : 0 }
        return try slowValue(of: token)
    }

    /// Long mantissas and large exponents: the standard library's correctly rounded parser
    /// (locale-independent), fed only text that already passed the JSON grammar.
    private func slowValue(of token: NumberToken) throws(WireError) -> Double {
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[token.range]), as: UTF8.self)
        guard let value = Double(text) else {
            throw WireError(.invalidRequest, "\(text) is not a number")
        }
        guard value.isFinite else {
            throw WireError(.invalidRequest, "\(text) is out of the range of a double")
        }
        return value
    }

    /// The token's value when it is an integer that fits `Int64` (written `12`, `1.0` or `1e3` alike),
    /// else nil. Integer literals are read exactly, never through a Double.
    func integerValue(of token: NumberToken) -> Int64? {
        if token.isIntegerLiteral {
            guard token.significantDigits <= 19 else { return nil }
            if token.isNegative {
                guard token.mantissa <= UInt64(Int64.max) + 1 else { return nil }
                return token.mantissa == UInt64(Int64.max) + 1 ? Int64.min : -Int64(token.mantissa)
            }
            guard token.mantissa <= UInt64(Int64.max) else { return nil }
            return Int64(token.mantissa)
        }
        guard let value = try? self.value(of: token) else { return nil }
        // Int64(exactly:) refuses fractions; 2^63 itself converts to nothing.
        return Int64(exactly: value)
    }

    /// Reads an integer (any JSON number whose value is a whole number that fits `Int`); throws
    /// `invalid_request` without a path otherwise.
    mutating func readInteger() throws(WireError) -> Int {
        skipWhitespace()
        let token = try scanNumber()
        guard let value = integerValue(of: token), let integer = Int(exactly: value) else {
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[token.range]), as: UTF8.self)
            throw WireError(.invalidRequest, "must be an integer, not \(text)")
        }
        return integer
    }

    /// Scans a number at `offset` by the JSON grammar:
    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    @inline(__always)
    mutating func scanNumber() throws(WireError) -> NumberToken {
        let start = offset
        var i = offset
        var c = byte(at: i)
        var isNegative = false
        if c == UInt8(ascii: "-") {
            isNegative = true
            i += 1
            c = byte(at: i)
        }
        var mantissa: UInt64 = 0
        var significant = 0
        var exponent = 0
        var isIntegerLiteral = true
        if c == UInt8(ascii: "0") {
            i += 1
            c = byte(at: i)
            if c &- UInt8(ascii: "0") < 10 { throw .invalidJSON("leading zero in a number", at: start) }
        } else if c &- UInt8(ascii: "1") < 9 {
            repeat {
                mantissa = mantissa &* 10 &+ UInt64(c &- UInt8(ascii: "0"))
                significant += 1
                i += 1
                c = byte(at: i)
            } while c &- UInt8(ascii: "0") < 10
        } else {
            offset = i
            throw unexpected("a digit")
        }
        if c == UInt8(ascii: ".") {
            isIntegerLiteral = false
            i += 1
            c = byte(at: i)
            guard c &- UInt8(ascii: "0") < 10 else {
                offset = i
                throw unexpected("a digit after '.'")
            }
            repeat {
                mantissa = mantissa &* 10 &+ UInt64(c &- UInt8(ascii: "0"))
                // Leading zeros of a fraction ("0.001") are not significant and cannot overflow.
                if mantissa != 0 { significant += 1 }
                exponent -= 1
                i += 1
                c = byte(at: i)
            } while c &- UInt8(ascii: "0") < 10
        }
        if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            isIntegerLiteral = false
            i += 1
            c = byte(at: i)
            var exponentIsNegative = false
            if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                exponentIsNegative = c == UInt8(ascii: "-")
                i += 1
                c = byte(at: i)
            }
            guard c &- UInt8(ascii: "0") < 10 else {
                offset = i
                throw unexpected("a digit in the exponent")
            }
            var written = 0
            repeat {
                // Capped: anything this large is out of range either way, and the slow path reads the text.
                if written < 1_000_000 { written = written * 10 + Int(c &- UInt8(ascii: "0")) }
                i += 1
                c = byte(at: i)
            } while c &- UInt8(ascii: "0") < 10
            exponent += exponentIsNegative ? -written : written
        }
        offset = i
        return NumberToken(
            range: start..<i, isNegative: isNegative, mantissa: mantissa, significantDigits: significant,
            exponent: exponent, isIntegerLiteral: isIntegerLiteral
        )
    }
}
