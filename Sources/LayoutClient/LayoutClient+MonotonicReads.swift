import Foundation

/// Reads never go back in time for one client (docs/PROTOCOL.md §11): a `query` through the front
/// carries, as `minVersion`, the newest version this client has seen of the key, and the answer is
/// returned only when it is at least that new. A cluster's broker forwards `minVersion` to the key's
/// owner, which answers `behind` when its copy is older (a copy rebuilt from an older recipe, a read
/// through a broker whose lease ended); the read is then tried again, through the front, until the
/// client's timeout has passed since the first try, and the `behind` error is returned.
extension LayoutClient {
    func queryThroughFront(key: String, fields: [String: Any]) throws(ClientError) -> Reply {
        let deadline = ContinuousClock.now + timeout
        var pause = Duration.milliseconds(5)
        while true {
            let seen = router.seenVersions[key]
            var fields = fields
            if let seen { fields["minVersion"] = max(seen, fields["minVersion"] as? Int ?? 0) }
            let request = try makeRequest("query", fields: fields)
            let reply = try Reply(body: self.request(request.body, id: request.id))
            // An older daemon or broker ignores `minVersion`: the reply's own version is checked too.
            let older = reply.ok && (reply.result.int("version").map { $0 < (seen ?? 0) } ?? false)
            guard older || reply.error?.code == .behind else {
                noteVersion(of: reply, key: key)
                return reply
            }
            guard ContinuousClock.now + pause < deadline else {
                return older ? try Self.behind(id: request.id, key: key, version: reply.result.int("version") ?? 0, seen: seen ?? 0) : reply
            }
            Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18 + Double(pause.components.seconds))
            pause = min(pause * 2, .milliseconds(100))
        }
    }

    /// The `behind` error a daemon would give, for a reply older than what the client has seen.
    private static func behind(id: CorrelationID, key: String, version: Int, seen: Int) throws(ClientError) -> Reply {
        let message = "the answer for \"\(key)\" is at version \(version), before version \(seen) this client has seen; retry later"
        let object: [String: Any] = [
            "v": 1, "id": id.jsonValue, "ok": false,
            "error": ["code": ReplyError.Code.behind.rawValue, "message": message, "path": "minVersion"] as [String: Any],
        ]
        return try Reply(body: JSONCoding.bytes(of: object))
    }
}
