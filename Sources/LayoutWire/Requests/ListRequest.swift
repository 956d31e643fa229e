/// `list`'s optional members (PROTOCOL.md §5.8): a page of the kept layouts, in key order.
public struct ListRequest: Hashable, Sendable {
    /// The most entries one reply holds, asked for or not: a reply of every key of a large store would
    /// be tens of megabytes, built while a worker thread is held.
    public static let maxLimit = 10_000

    /// Only keys sorted after this one (the `next` of the page before). For an admin of a daemon with
    /// CURVE, whose list covers every namespace, a `ListCursor`'s text.
    public var after: String?
    /// At most this many entries (1…`maxLimit`); nil for `maxLimit`.
    public var limit: Int?
    /// Only keys starting with this text.
    public var prefix: String?

    public init(after: String? = nil, limit: Int? = nil, prefix: String? = nil) {
        self.after = after
        self.limit = limit
        self.prefix = prefix
    }

    /// How many entries the page holds at most.
    public var pageSize: Int { limit ?? Self.maxLimit }
}

/// Where an admin's page of every namespace stops: the namespace and the key, written
/// `"<namespace>|<key>"`. A `|` is in neither a client's name nor a Z85 public key (the two kinds of
/// namespace), so the text splits at its first `|` whatever the key holds; a `/` would not do, since Z85
/// keys contain it.
public struct ListCursor: Hashable, Sendable, Comparable {
    public static let separator: Character = "|"

    public var namespace: String
    public var name: String

    public init(namespace: String, name: String) {
        self.namespace = namespace
        self.name = name
    }

    /// The cursor `text` writes; one without a `|` is the key `text` in the namespace "" (which sorts
    /// first), so that a page of an admin's list never skips what it should not.
    public init(text: String) {
        if let bar = text.firstIndex(of: Self.separator) {
            namespace = String(text[..<bar])
            name = String(text[text.index(after: bar)...])
        } else {
            namespace = ""
            name = text
        }
    }

    public var text: String { namespace + String(Self.separator) + name }

    public static func < (lhs: ListCursor, rhs: ListCursor) -> Bool {
        (lhs.namespace, lhs.name) < (rhs.namespace, rhs.name)
    }
}
