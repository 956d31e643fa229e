/// Reads sent straight to a cluster worker that owns the key (docs/PROTOCOL.md §11), changes and every
/// doubtful case to the front endpoint (`DirectReads`).
extension LayoutClient {
    /// `query` at the owner of `key`, or nil when it must go to the front instead: no route table (a
    /// single daemon, or a broker that could not give one), no owner with a direct endpoint, a timeout,
    /// `moved` or `behind`. Other answers are the owner's, as the broker would have given them.
    func queryDirectly(key: String, fields: [String: Any]) throws(ClientError) -> Reply? {
        guard directReads != .off, !router.frontHasNoRoutes, fields["namespace"] == nil else { return nil }
        guard let entry = try routeEntry(for: key), let endpoint = entry.endpoint else { return nil }
        var fields = fields
        fields["epoch"] = entry.epoch
        if let seen = router.seenVersions[key] { fields["minVersion"] = max(seen, fields["minVersion"] as? Int ?? 0) }
        let request = try makeRequest("query", fields: fields)
        let connection = try directConnection(to: endpoint)
        guard let body = try attempt(request.body, id: request.id, on: connection) else {
            // No answer in time: the worker may be gone. The late reply must not meet the next read, and
            // every key routed there is looked up again on its next read.
            try connection.reconnect()
            router.forgetKeys(at: endpoint)
            return nil
        }
        var reply = try Reply(body: body)
        reply.directEndpoint = endpoint
        switch reply.error?.code {
        case .moved?:
            // One lookup of this key before its next read, not a table.
            router.keysToLookUp.insert(key)
            return nil
        case .behind?, .readOnly?:
            return nil
        default:
            noteVersion(of: reply, key: key)
            return reply
        }
    }

    /// Remembers what a reply says of `key`'s version (reads and changes alike) and, after a `prepare`
    /// or `drop`, that the route table may be wrong about it.
    func noteVersion(of reply: Reply, key: String, op: String = "query") {
        // Only these replies' `version` is the key's: a `route` reply's is the table's, which, taken as the
        // key's, made the next direct read ask for a version the key may never reach (`behind` each time).
        guard reply.ok, Self.opsNamingTheKeysVersion.contains(op) else { return }
        if let version = reply.result.int("version") {
            if op == "query" { router.seenVersions.noteRead(version, of: key) } else { router.seenVersions.noteChange(version, of: key) }
        }
        if directReads != .off, op == "prepare" || op == "drop" { router.keysToLookUp.insert(key) }
    }

    private static let opsNamingTheKeysVersion: Set<String> = ["query", "prepare", "bounds", "update", "diff", "drop"]

    /// The table's entry for `key`, looked up alone (`route` with its `layout`) on its first read and
    /// again after this client changed who may own it or its read was answered `moved`: never the whole
    /// table, whose size grows with the keys.
    private func routeEntry(for key: String) throws(ClientError) -> RouteTable.Entry? {
        if !router.keysLookedUp.contains(key) || router.keysToLookUp.contains(key) {
            guard let alone = try fetchRoutes(layouts: [key]) else { return nil }
            router.table.merge(alone, asked: [key])
            router.keysLookedUp.insert(key)
            router.keysToLookUp.remove(key)
        }
        return router.table.entries[key]
    }

    /// `route` at the front for `layouts`; nil when it gave no table (remembering a single daemon: its
    /// `role` says so, or an older one's `unknown_op`).
    private func fetchRoutes(layouts: [String]) throws(ClientError) -> RouteTable? {
        let fields: [String: Any] = layouts.count == 1 ? ["layout": layouts[0]] : ["layouts": layouts]
        let reply = try call("route", fields: fields)
        guard reply.ok else {
            if reply.error?.code == .unknownOp { router.frontHasNoRoutes = true }
            return nil
        }
        if reply.result.string("role") == "daemon" {
            router.frontHasNoRoutes = true
            return nil
        }
        return RouteTable(result: reply.result)
    }

    private func directConnection(to endpoint: String) throws(ClientError) -> DealerConnection {
        if let open = router.connections[endpoint] { return open }
        let connection = try DealerConnection(endpoint: endpoint, context: context, sendTimeout: timeout, curve: curve)
        router.connections[endpoint] = connection
        return connection
    }
}
