/// A layout's key in the journal: the caller's namespace ("" without CURVE) and the client's name.
public struct JournalKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var namespace: String
    public var name: String

    public init(namespace: String, name: String) {
        self.namespace = namespace
        self.name = name
    }

    public static func < (lhs: JournalKey, rhs: JournalKey) -> Bool {
        (lhs.namespace, lhs.name) < (rhs.namespace, rhs.name)
    }

    public var description: String { namespace.isEmpty ? name : "\(namespace)/\(name)" }
}

/// One thing to write, in the order the daemon acknowledged them.
public enum JournalWrite: Sendable {
    /// The body that rebuilds the key from nothing (its `prepare`, or a snapshot of it), which gave
    /// `version`; what the key had before is forgotten. `epoch`: the broker epoch it was written under
    /// (0 on a single daemon).
    case rebuild(JournalKey, version: Int, epoch: UInt64 = 0, items: Int, body: [UInt8])
    /// A change that gave `version`, replayed after the key's earlier bodies.
    case change(JournalKey, version: Int, items: Int, body: [UInt8])
    /// The key is no longer kept; its version count goes on from `version`.
    case drop(JournalKey, version: Int)
    /// A cluster's key was assigned again, or changed, under `epoch` (a fencing token): its journaled
    /// epoch becomes the greater of the two, so that a restarted broker ranks copies of it against the
    /// epoch it reached, not the one of its last rebuild. Nothing for a key the journal does not hold.
    case epoch(JournalKey, epoch: UInt64)

    public var key: JournalKey {
        switch self {
        case .rebuild(let key, _, _, _, _), .change(let key, _, _, _), .drop(let key, _), .epoch(let key, _): return key
        }
    }

    /// The bytes of its body (0 for a drop or an epoch).
    public var bodyBytes: Int {
        switch self {
        case .rebuild(_, _, _, _, let body), .change(_, _, _, let body): return body.count
        case .drop, .epoch: return 0
        }
    }
}

/// What the journal holds about one key, read at start.
public struct JournalKeyState: Sendable, Hashable {
    public var key: JournalKey
    /// The version of its last write.
    public var version: Int
    /// The fencing epoch it was last rebuilt under (0 for a single daemon).
    public var epoch: UInt64
    /// Items of the layout at `version`.
    public var items: Int
    /// When it last changed, in ms since 1970: restores go most recent first.
    public var changedAtMillis: Int64
    /// False for a dropped key, kept so that its version count goes on.
    public var isKept: Bool
    /// The version its first body (the rebuild) gave, and the bytes of its bodies: rebuild, then changes.
    public var base: Int
    public var rebuildBytes: Int
    public var changeBytes: Int
    public var changes: Int

    public init(key: JournalKey, version: Int, epoch: UInt64, items: Int, changedAtMillis: Int64, isKept: Bool, base: Int, rebuildBytes: Int, changeBytes: Int, changes: Int) {
        self.key = key
        self.version = version
        self.epoch = epoch
        self.items = items
        self.changedAtMillis = changedAtMillis
        self.isKept = isKept
        self.base = base
        self.rebuildBytes = rebuildBytes
        self.changeBytes = changeBytes
        self.changes = changes
    }
}

/// The bodies that rebuild one key, each checked against the checksum written with it.
public struct JournalRecipe: Sendable {
    /// The version the first body gave; body `i` gave `base + i`.
    public var base: Int
    public var bodies: [[UInt8]]

    public init(base: Int, bodies: [[UInt8]]) {
        self.base = base
        self.bodies = bodies
    }

    /// The version the last body gave.
    public var version: Int { base + bodies.count - 1 }
}

/// One group commit, reported to whoever watches the journal (stats, metrics).
public struct JournalCommit: Sendable {
    public var records: Int
    public var bytes: Int
    public var micros: UInt64
}
