/// A request's `id` (a string or a number on the wire), which the daemon echoes in its reply.
public enum CorrelationID: Sendable, Hashable, CustomStringConvertible {
    case number(Double)
    case string(String)

    /// The id a JSON value represents; `nil` for anything but a string or a number (null, an object, ...).
    init?(json value: Any?) {
        if let string = value as? String {
            self = .string(string)
        } else if let number = JSONCoding.double(value) {
            self = .number(number)
        } else {
            return nil
        }
    }

    /// The id whose JSON text is `text` (a member found by `JSONMemberScanner`); `nil` for a missing
    /// member and for anything but a string or a number.
    init?(jsonText text: ArraySlice<UInt8>?) {
        guard let text else { return nil }
        self.init(json: JSONCoding.value(from: Array(text)))
    }

    /// The value to put in a request object: integral numbers as `Int`, so they are written without a
    /// fraction.
    var jsonValue: Any {
        switch self {
        case .string(let string): string
        case .number(let number): JSONCoding.int(number) ?? number
        }
    }

    public var description: String {
        switch self {
        case .string(let string): string
        case .number(let number): JSONCoding.int(number).map(String.init) ?? String(number)
        }
    }
}

extension CorrelationID: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(stringLiteral value: String) { self = .string(value) }
}
