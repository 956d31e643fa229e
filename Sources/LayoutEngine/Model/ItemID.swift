/// An item's identity, as clients send it: a string or an integer.
public enum ItemID: Hashable, Sendable {
    case string(String)
    case integer(Int64)
}

extension ItemID: CustomStringConvertible {
    public var description: String {
        switch self {
        case .string(let value): return value
        case .integer(let value): return String(value)
        }
    }
}
