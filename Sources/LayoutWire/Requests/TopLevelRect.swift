import LayoutEngine

/// A query's top-level `rect`, read straight from the bytes.
///
/// A query is the most frequent small request, and building a `JSONValue` object for four numbers
/// cost more than the rest of its decoding. The outcome is kept rather than thrown, so it is reported
/// in its turn (after `v`, `id`, `op`, `layout` and the choice of target), and a fault gets the same
/// error, in the same words, as `RequestFields.rect` gives the generic value: fields checked in the
/// order x, y, width, height, the last of a repeated name counting.
enum TopLevelRect {
    /// nil for `null`, which, as for every control field, counts as absent.
    static func read(_ reader: inout JSONReader) throws(WireError) -> Result<Rect, WireError>? {
        // Built only for an error: a path allocates.
        func path() -> JSONPath { .root / "rect" }
        guard let kind = reader.peekKind() else { throw reader.unexpected("a JSON value") }
        switch kind {
        case .null:
            try reader.readNull()
            return nil
        case .object:
            break
        default:
            try reader.skipValue()
            return .failure(.wrongType(expected: .object, found: kind, at: path()))
        }
        // Per field, the last value given. Plain values, not `Result`s: a `WireError` holds strings,
        // and is made only for the field that is reported.
        var fields = InlineArray<4, Field>(repeating: .absent)
        if try reader.beginObject() {
            repeat {
                let key = try reader.readKey()
                let index: Int
                if reader.key(key, is: "x") {
                    index = 0
                } else if reader.key(key, is: "y") {
                    index = 1
                } else if reader.key(key, is: "width") {
                    index = 2
                } else if reader.key(key, is: "height") {
                    index = 3
                } else {
                    try reader.skipValue()
                    continue
                }
                fields[index] = try field(&reader)
            } while try reader.nextMember()
        }
        var values = InlineArray<4, Double>(repeating: 0)
        for index in 0..<4 {
            switch fields[index] {
            case .absent:
                return .failure(.invalidRequest("missing required field \"\(names[index])\"", at: path() / names[index]))
            case .value(let value):
                values[index] = value
            case .wrongType(let kind):
                return .failure(.wrongType(expected: .number, found: kind, at: path() / names[index]))
            case .unrepresentable(let token):
                // Valid JSON beyond Double's range: the reader says so in its own words.
                do throws(WireError) {
                    values[index] = try reader.value(of: token)
                } catch {
                    return .failure(error.located(at: path() / names[index]))
                }
            }
        }
        let rect = Rect(x: values[0], y: values[1], width: values[2], height: values[3])
        guard rect.width >= 0 else { return .failure(.invalidRequest("must be a number >= 0, not \(rect.width)", at: path() / "width")) }
        guard rect.height >= 0 else { return .failure(.invalidRequest("must be a number >= 0, not \(rect.height)", at: path() / "height")) }
        return .success(rect)
    }

    private static let names: [String] = ["x", "y", "width", "height"]

    /// What one field held.
    private enum Field {
        case absent
        case value(Double)
        case wrongType(JSONKind)
        case unrepresentable(NumberToken)
    }

    /// The field's value, or what is wrong with it; syntax errors are thrown.
    private static func field(_ reader: inout JSONReader) throws(WireError) -> Field {
        guard let kind = reader.peekKind() else { throw reader.unexpected("a JSON value") }
        guard kind == .number else {
            try reader.skipValue()
            return .wrongType(kind)
        }
        let token = try reader.scanNumber()
        guard let value = try? reader.value(of: token) else { return .unrepresentable(token) }
        return .value(value)
    }
}
