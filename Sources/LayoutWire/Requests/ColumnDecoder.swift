import LayoutEngine

/// The columnar forms of a section (`heights`, `aspectRatios`, `widths`, `spans`, `ids`): each array
/// read straight into a flat Swift array.
enum ColumnDecoder {
    /// A size column; `null` leaves that item's field unset (NaN).
    static func sizes(_ reader: inout JSONReader, rule: SizeRule, at path: JSONPath) throws(WireError) -> [Double] {
        try SectionsDecoder.expect(.array, in: &reader, at: path)
        var values = ColumnBuffer<Double>()
        guard try reader.beginArray() else { return values.array() }
        // The path of an element is built only if it turns out to be bad.
        do throws(WireError) {
            repeat {
                // Compact runs of simple numbers in one loop; it stops before any element it leaves to
                // the general reading below, which also skips whitespace and reports errors.
                if !reader.appendSimpleNumbers(to: &values, rule: rule) {
                    // `fastSize` written out: the compiler does not inline it here, and the call cost
                    // a tenth of the loop's instructions.
                    reader.skipWhitespace()
                    if let value = reader.readSimpleNumber() {
                        guard rule.accepts(value) else { throw WireError(.invalidRequest, rule.message(for: value)) }
                        values.append(value)
                    } else {
                        values.append(try size(&reader, rule: rule))
                    }
                }
                // The usual separator, without the general call.
                if reader.peek() == UInt8(ascii: ",") {
                    reader.offset += 1
                    continue
                }
                guard try reader.nextElement() else { break }
            } while true
        } catch {
            throw error.located(at: path / values.count)
        }
        return values.array()
    }

    /// `size`, with plain numbers read inline.
    @inline(__always)
    static func fastSize(_ reader: inout JSONReader, rule: SizeRule) throws(WireError) -> Double {
        reader.skipWhitespace()
        if let value = reader.readSimpleNumber() {
            guard rule.accepts(value) else { throw WireError(.invalidRequest, rule.message(for: value)) }
            return value
        }
        return try size(&reader, rule: rule)
    }

    /// One size of a column or an item object: a number obeying `rule`, or null (NaN). Errors carry no
    /// path; the caller, which knows where it is, adds it.
    @inline(__always)
    static func size(_ reader: inout JSONReader, rule: SizeRule) throws(WireError) -> Double {
        let c = reader.peekToken()
        if c == UInt8(ascii: "-") || c &- UInt8(ascii: "0") < 10 {
            let value = try reader.readNumberHere()
            guard rule.accepts(value) else { throw WireError(.invalidRequest, rule.message(for: value)) }
            return value
        }
        if c == UInt8(ascii: "n") {
            try reader.readNull()
            return .nan
        }
        guard let kind = reader.peekKind() else { throw reader.unexpected("a number") }
        throw WireError(.invalidRequest, "must be a number, not \(kind.article)")
    }

    /// A column of booleans (`spans`).
    static func flags(_ reader: inout JSONReader, at path: JSONPath) throws(WireError) -> [Bool] {
        try SectionsDecoder.expect(.array, in: &reader, at: path)
        var values: [Bool] = []
        guard try reader.beginArray() else { return values }
        repeat {
            // null is "not set", as in every column (PROTOCOL.md §4.5): not a span.
            if reader.peekKind() == .null {
                try reader.readNull()
                values.append(false)
                continue
            }
            try SectionsDecoder.expect(.bool, in: &reader, at: path / values.count)
            values.append(try reader.readBool())
        } while try reader.nextElement()
        return values
    }

    /// A column of item ids.
    static func ids(_ reader: inout JSONReader, at path: JSONPath) throws(WireError) -> [ItemID] {
        try SectionsDecoder.expect(.array, in: &reader, at: path)
        var values: [ItemID] = []
        guard try reader.beginArray() else { return values }
        do throws(WireError) {
            repeat {
                values.append(try id(&reader))
            } while try reader.nextElement()
        } catch {
            throw error.located(at: path / values.count)
        }
        return values
    }

    /// An item id: a string, or a number whose value is an integer that fits 64 bits (read exactly).
    /// Errors carry no path; the caller adds it.
    static func id(_ reader: inout JSONReader) throws(WireError) -> ItemID {
        switch reader.peekKind() {
        case .string:
            return .string(try reader.readString())
        case .number:
            let token = try reader.scanNumber()
            guard let value = reader.integerValue(of: token) else {
                throw WireError(.invalidRequest, "an id must be a string or an integer that fits 64 bits")
            }
            return .integer(value)
        case let kind?:
            throw WireError(.invalidRequest, "an id must be a string or an integer, not \(kind.article)")
        case nil:
            throw reader.unexpected("a JSON value")
        }
    }
}
