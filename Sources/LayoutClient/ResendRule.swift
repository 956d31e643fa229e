import LayoutWire

/// Which request bodies may be sent again, to another endpoint, after their answer was lost (a timeout)
/// or refused by a standby: the rule of PROTOCOL.md §5, "Changes at most once".
///
/// Read from the body itself, so that raw `request(_:)` bodies follow the same rule as the operations.
enum ResendRule {
    /// Ops that change nothing: a second copy is harmless (`route` is a broker's, answered by itself).
    static let readOnlyOps: Set<String> = ["ping", "layout", "query", "list", "route"]

    /// Whether `body` may be sent again: a read-only op always, a change only with an `ifVersion` (a
    /// second copy then finds the version moved on and is refused instead of applied twice), anything
    /// else (an unknown op, a body without one) never, since nothing says it is safe.
    static func allowsResending(_ body: [UInt8]) -> Bool {
        guard let op = op(of: body) else { return false }
        if readOnlyOps.contains(op) { return true }
        guard OperationName(rawValue: op)?.changesLayout == true, let ifVersion = JSONMemberScanner.member("ifVersion", in: body) else { return false }
        return !ifVersion.elementsEqual("null".utf8)
    }

    /// The body's `op`, if it has a string one.
    static func op(of body: [UInt8]) -> String? {
        guard let text = JSONMemberScanner.member("op", in: body) else { return nil }
        return JSONCoding.value(from: Array(text)) as? String
    }
}
