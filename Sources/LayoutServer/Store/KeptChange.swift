import LayoutEngine

/// What an op changed in the store, and the version it gave: what a journal records of it.
public enum KeptChange: Sendable {
    /// A `prepare` kept this layout.
    case prepared(LayoutKey, version: Int, layout: PreparedLayout)
    /// A change (bounds, update, diff) gave this layout.
    case changed(LayoutKey, version: Int, layout: PreparedLayout)
    /// A `drop` removed the key; its version count goes on from `version`.
    case dropped(LayoutKey, version: Int)
}

extension KeptChange {
    /// The key it changed.
    public var key: LayoutKey {
        switch self {
        case .prepared(let key, _, _), .changed(let key, _, _), .dropped(let key, _): return key
        }
    }
}
