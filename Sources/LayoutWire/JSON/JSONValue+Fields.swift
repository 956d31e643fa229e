// Typed reads of control fields, each naming the field's path when the value has the wrong shape.
// Paths are autoclosures: building one allocates, and the happy path never needs it.

extension JSONValue {
    /// A finite number.
    func number(at path: @autoclosure () -> JSONPath) throws(WireError) -> Double {
        guard case .number(let number) = self else { throw .wrongType(expected: .number, found: kind, at: path()) }
        guard number.value.isFinite else {
            throw .invalidRequest("\(number.text) is out of the range of a double", at: path())
        }
        return number.value
    }

    /// A whole number that fits `Int` (`3`, `3.0` and `3e0` alike).
    func integer(at path: @autoclosure () -> JSONPath) throws(WireError) -> Int {
        let value = try number(at: path())
        guard let integer = Int(exactly: value) else {
            throw .invalidRequest("must be an integer, not \(value)", at: path())
        }
        return integer
    }

    /// A whole number >= 0 that fits `Int`.
    func index(at path: @autoclosure () -> JSONPath) throws(WireError) -> Int {
        let value = try integer(at: path())
        guard value >= 0 else { throw .invalidRequest("must be an integer >= 0, not \(value)", at: path()) }
        return value
    }

    func bool(at path: @autoclosure () -> JSONPath) throws(WireError) -> Bool {
        guard case .bool(let value) = self else { throw .wrongType(expected: .bool, found: kind, at: path()) }
        return value
    }

    func string(at path: @autoclosure () -> JSONPath) throws(WireError) -> String {
        guard case .string(let value) = self else { throw .wrongType(expected: .string, found: kind, at: path()) }
        return value
    }

    func object(at path: @autoclosure () -> JSONPath) throws(WireError) -> JSONObject {
        guard case .object(let value) = self else { throw .wrongType(expected: .object, found: kind, at: path()) }
        return value
    }

    func array(at path: @autoclosure () -> JSONPath) throws(WireError) -> [JSONValue] {
        guard case .array(let value) = self else { throw .wrongType(expected: .array, found: kind, at: path()) }
        return value
    }

    /// One of `Choice`'s raw values.
    func choice<Choice: RawRepresentable & CaseIterable>(_: Choice.Type, at path: @autoclosure () -> JSONPath) throws(WireError) -> Choice
    where Choice.RawValue == String {
        let text = try string(at: path())
        guard let choice = Choice(rawValue: text) else {
            let allowed = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw .invalidRequest("\"\(text)\" is not one of \(allowed)", at: path())
        }
        return choice
    }
}

extension JSONObject {
    /// The member `key`, which must be present.
    func required(_ key: String, in path: @autoclosure () -> JSONPath) throws(WireError) -> JSONValue {
        guard let value = self[key] else { throw .invalidRequest("missing required field \"\(key)\"", at: path() / key) }
        return value
    }

    /// The member `key` unless it is absent or null.
    func optional(_ key: String) -> JSONValue? {
        guard let value = self[key], value != .null else { return nil }
        return value
    }
}

extension WireError {
    static func wrongType(expected: JSONKind, found: JSONKind, at path: JSONPath) -> WireError {
        .invalidRequest("must be \(expected.article), not \(found.article)", at: path)
    }
}
