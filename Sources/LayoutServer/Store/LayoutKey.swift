/// What a kept layout is filed under: the client's own key for it, within the caller's namespace.
///
/// Without CURVE every client shares the namespace "", so keys work exactly as the wire names them.
/// With CURVE each listed client has a namespace of its own (docs/OPERATIONS.md, Security): two clients
/// may both keep a "feed" and never see each other's, and the wire only ever shows a client `name`.
public struct LayoutKey: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The owner's namespace ("" without CURVE).
    public var namespace: String
    /// The key as the client wrote it in `layout`.
    public var name: String

    public init(namespace: String = "", name: String) {
        self.namespace = namespace
        self.name = name
    }

    /// A key in the shared namespace "" (tests, and daemons without CURVE).
    public init(stringLiteral name: String) {
        self.init(name: name)
    }

    /// What orders ops on one layout in the worker pool: the name alone in the shared namespace (no
    /// string is built on the hot path), else the namespace and the name apart by a NUL, which no
    /// namespace contains. (A cluster worker orders its rebuilds with a key's requests by it.)
    public var schedulingKey: String {
        namespace.isEmpty ? name : namespace + "\u{0}" + name
    }

    public var description: String {
        namespace.isEmpty ? name : "\(namespace)/\(name)"
    }

    public static func < (lhs: LayoutKey, rhs: LayoutKey) -> Bool {
        (lhs.namespace, lhs.name) < (rhs.namespace, rhs.name)
    }
}
