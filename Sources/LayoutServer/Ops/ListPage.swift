import LayoutWire

extension RequestHandler {
    /// `list`: a page of the caller's kept layouts in key order (PROTOCOL.md §5.8), at most 10,000 of
    /// them even when no `limit` is asked for, with `next` when more remain. An admin (with CURVE) lists
    /// every namespace, each entry naming its own, and pages with `ListCursor`s. With a journal, the
    /// layouts it keeps that are not in memory are listed too, with `bytes` 0.
    func listPage(_ request: ListRequest, caller: Caller) -> ListResult {
        let namespace = caller.isAdmin ? nil : caller.namespace
        let after = request.after.map { text in
            caller.isAdmin ? Self.key(of: ListCursor(text: text)) : LayoutKey(namespace: caller.namespace, name: text)
        }
        let page = KeyPage(namespace: namespace, after: after, prefix: request.prefix ?? "", limit: request.pageSize)
        let (listed, more) = store.listing(page)
        var entries: [ListResult.Entry] = []
        entries.reserveCapacity(listed.count)
        for item in listed {
            // A key listed by the journal alone that it no longer keeps (dropped meanwhile) is left out.
            guard let summary = item.summary ?? durable?.journaledSummary(of: item.key) else { continue }
            entries.append(ListResult.Entry(
                layout: summary.key.name, version: summary.version, items: summary.items, bytes: summary.bytes,
                namespace: caller.isAdmin ? summary.key.namespace : nil
            ))
        }
        // The cursor is the last key of the page, listed or not: the next page starts after it.
        let next = more ? listed.last.map { caller.isAdmin ? ListCursor(namespace: $0.key.namespace, name: $0.key.name).text : $0.key.name } : nil
        return ListResult(layouts: entries, next: next)
    }

    private static func key(of cursor: ListCursor) -> LayoutKey {
        LayoutKey(namespace: cursor.namespace, name: cursor.name)
    }
}
