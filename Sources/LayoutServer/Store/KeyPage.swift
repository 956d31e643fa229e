/// Which keys a page of `list` covers: one namespace's (or every namespace's, for an admin), after a
/// cursor, starting with a prefix, at most `limit` of them.
public struct KeyPage: Sendable, Hashable {
    /// Nil: every namespace, in namespace order (an admin's list).
    public var namespace: String?
    /// Only keys sorted after this one.
    public var after: LayoutKey?
    /// Only keys whose name starts with this ("" for every key).
    public var prefix: String
    public var limit: Int

    public init(namespace: String?, after: LayoutKey? = nil, prefix: String = "", limit: Int) {
        self.namespace = namespace
        self.after = after
        self.prefix = prefix
        self.limit = limit
    }

    /// Whether `key` belongs to the page's range (its cursor aside).
    func covers(_ key: LayoutKey) -> Bool {
        (namespace == nil || key.namespace == namespace) && key.name.hasPrefix(prefix)
    }
}

extension SortedKeys {
    /// The keys of `page`, in order, and whether more keys of its range follow them. Costs a binary
    /// search per namespace visited and the keys returned: within a namespace, the keys starting with a
    /// prefix are one run of the order.
    func keys(of page: KeyPage) -> (keys: [LayoutKey], more: Bool) {
        var keys: [LayoutKey] = []
        keys.reserveCapacity(Swift.min(page.limit, count))
        // The first key of the range: after the cursor, and at or after the prefix in its namespace.
        var position = startPosition(of: page, namespace: page.after?.namespace ?? page.namespace ?? "")
        while let (key, next) = key(at: position) {
            if let namespace = page.namespace, key.namespace != namespace { break }
            if key.name.hasPrefix(page.prefix) {
                if keys.count == page.limit { return (keys, true) }
                keys.append(key)
                position = next
            } else if page.namespace != nil {
                break
            } else if key.name < page.prefix {
                // An admin's page, in a namespace before its prefix's run: on to the run.
                position = self.position(from: LayoutKey(namespace: key.namespace, name: page.prefix), inclusive: true)
            } else {
                // Past the run of this namespace: on to the next namespace.
                position = self.position(from: LayoutKey(namespace: key.namespace + "\u{0}", name: ""), inclusive: true)
            }
        }
        return (keys, false)
    }

    private func startPosition(of page: KeyPage, namespace: String) -> Position {
        let atPrefix = position(from: LayoutKey(namespace: namespace, name: page.prefix), inclusive: true)
        guard let after = page.after else { return atPrefix }
        return Swift.max(atPrefix, position(from: after, inclusive: false))
    }
}
