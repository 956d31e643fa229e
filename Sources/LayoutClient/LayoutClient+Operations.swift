/// The ops of PROTOCOL.md. Each returns the daemon's `Reply`, success or failure; they throw only when
/// no reply came (`ClientError`).
///
/// Every change takes an `ifVersion`: apply only if the layout is at that version (else
/// `version_conflict`; `0` for a key never prepared). With several endpoints, only a change that carries
/// one is sent again after a timeout or a standby's answer.
extension LayoutClient {
    /// `ping`: the daemon's version, layouts and uptime.
    public func ping() throws(ClientError) -> Reply {
        try call("ping")
    }

    /// `layout`: computes `job` (bounds, spec, sections, ...) without keeping it.
    ///
    /// - Parameters:
    ///   - returning: the attributes to return; `nil` leaves it to the job, else the daemon (all).
    ///   - format: how to list them; `nil` leaves it to the job, else the daemon (objects).
    public func layout(job: [String: Any], returning: ReturnedElements? = nil, format: ReplyFormat? = nil) throws(ClientError) -> Reply {
        try call("layout", fields: Self.job(job, layout: nil, returning: returning, format: format))
    }

    /// `layout` for a job read from JSON text (a job file): its members are sent with this request's
    /// `op`, `id` and options.
    public func layout(jobBytes: [UInt8], returning: ReturnedElements? = nil, format: ReplyFormat? = nil) throws(ClientError) -> Reply {
        try layout(job: Self.parseJob(jobBytes), returning: returning, format: format)
    }

    /// `prepare`: computes `job` and keeps it under `key`, replacing an earlier one.
    ///
    /// - Parameters:
    ///   - returning: the attributes to return; `nil` leaves it to the job, else the daemon (none).
    ///   - ifVersion: replace only the layout at this version; `nil` leaves it to the job.
    public func prepare(
        key: String, job: [String: Any], returning: ReturnedElements? = nil, format: ReplyFormat? = nil, ifVersion: Int? = nil
    ) throws(ClientError) -> Reply {
        try call("prepare", fields: Self.change(Self.job(job, layout: key, returning: returning, format: format), ifVersion: ifVersion))
    }

    /// `prepare` for a job read from JSON text (a job file).
    public func prepare(
        key: String, jobBytes: [UInt8], returning: ReturnedElements? = nil, format: ReplyFormat? = nil, ifVersion: Int? = nil
    ) throws(ClientError) -> Reply {
        try prepare(key: key, job: Self.parseJob(jobBytes), returning: returning, format: format, ifVersion: ifVersion)
    }

    /// `query` by rectangle: the elements of layout `key` that overlap `rect`, in layout order.
    ///
    /// - Parameters:
    ///   - pinning: headers and footers to pin to `rect`'s edges, `rect` being the visible bounds.
    ///   - dynamics: a scroll whose spring displacement moves the cells.
    ///   - namespace: another client's namespace, for an admin of a daemon with CURVE (nil: the
    ///     caller's own); the same for the other `query` forms.
    public func query(
        key: String, rect: QueryRect, format: ReplyFormat? = nil, pinning: QueryPinning? = nil, dynamics: QueryDynamics? = nil,
        namespace: String? = nil
    ) throws(ClientError) -> Reply {
        var selector: [String: Any] = ["rect": rect.jsonValue]
        if let pinning { selector["pin"] = pinning.jsonValue }
        if let dynamics { selector["dynamics"] = dynamics.jsonValue }
        return try call("query", fields: Self.fields(key: key, selector, format: format, namespace: namespace))
    }

    /// `query` by index paths: the cells at `items` (those that exist).
    public func query(key: String, items: [ItemLocation], format: ReplyFormat? = nil, namespace: String? = nil) throws(ClientError) -> Reply {
        try call("query", fields: Self.fields(key: key, ["items": items.map(\.jsonValue)], format: format, namespace: namespace))
    }

    /// `query` of supplementary elements: the `kind` elements of `sections` (`nil`: of every section).
    /// Sections without such an element are left out of the answer.
    public func query(
        key: String, supplementary kind: SupplementaryKind, sections: [Int]? = nil, format: ReplyFormat? = nil, namespace: String? = nil
    ) throws(ClientError) -> Reply {
        var supplementary: [String: Any] = ["kind": kind.rawValue]
        if let sections { supplementary["sections"] = sections }
        return try call("query", fields: Self.fields(key: key, ["supplementary": supplementary], format: format, namespace: namespace))
    }

    /// `bounds`: gives layout `key` a new size; the daemon re-prepares it if the size changed.
    public func bounds(key: String, width: Double, height: Double, ifVersion: Int? = nil) throws(ClientError) -> Reply {
        try call("bounds", fields: Self.change(["layout": key, "bounds": ["width": width, "height": height]], ifVersion: ifVersion))
    }

    /// `drop`: forgets layout `key`.
    public func drop(key: String, ifVersion: Int? = nil) throws(ClientError) -> Reply {
        try call("drop", fields: Self.change(["layout": key], ifVersion: ifVersion))
    }

    /// `list`: the kept layouts with their versions, item counts and sizes, in key order: one page of at
    /// most `limit` of them (10,000 without one), starting after the key `after` (a page's `next`) and
    /// only keys starting with `prefix`. The reply's `next` is present when more remain.
    public func list(after: String? = nil, limit: Int? = nil, prefix: String? = nil) throws(ClientError) -> Reply {
        var fields: [String: Any] = [:]
        if let after { fields["after"] = after }
        if let limit { fields["limit"] = limit }
        if let prefix { fields["prefix"] = prefix }
        return try call("list", fields: fields)
    }

    /// Every kept layout (starting with `prefix`), page after page of `pageSize` (10,000 without one):
    /// the pages' entries in key order, and the error that ended the walk early, if one did (the entries
    /// are then those of the pages before it).
    public func listAll(prefix: String? = nil, pageSize: Int? = nil) throws(ClientError) -> (layouts: [AnyJSONObject], error: ReplyError?) {
        var entries: [AnyJSONObject] = []
        var after: String?
        repeat {
            let reply = try list(after: after, limit: pageSize, prefix: prefix)
            if let error = reply.error { return (entries, error) }
            entries += reply.result.objects("layouts") ?? []
            after = reply.result.string("next")
        } while after != nil
        return (entries, nil)
    }

    /// `update`: applies a batch (`{"delete":[s,i]}`, `{"insert":[s,i],"item":{…}}`, ...) to layout
    /// `key`, all or nothing.
    ///
    /// - Parameter ifVersion: apply only if the layout is at this version (else `version_conflict`).
    public func update(key: String, updates: [[String: Any]], ifVersion: Int? = nil) throws(ClientError) -> Reply {
        try call("update", fields: Self.change(["layout": key, "updates": updates], ifVersion: ifVersion))
    }

    /// `diff`: gives layout `key` new contents by item identity (`[{"ids":[…],"heights":[…]}, …]`); the
    /// daemon computes and applies the batch and returns it.
    public func diff(key: String, sections: [[String: Any]], ifVersion: Int? = nil) throws(ClientError) -> Reply {
        try call("diff", fields: Self.change(["layout": key, "sections": sections], ifVersion: ifVersion))
    }

    // MARK: Building bodies

    /// The members of a job file.
    static func parseJob(_ bytes: [UInt8]) throws(ClientError) -> [String: Any] {
        guard let value = JSONCoding.value(from: bytes) else {
            throw .invalidInput("the job is not valid JSON: \(JSONCoding.preview(bytes))")
        }
        guard let job = value as? [String: Any] else { throw .invalidInput("the job is not a JSON object") }
        return job
    }

    private static func job(
        _ job: [String: Any], layout key: String?, returning: ReturnedElements?, format: ReplyFormat?
    ) -> [String: Any] {
        var fields = job
        if let key { fields["layout"] = key }
        if let returning { fields["return"] = returning.jsonValue }
        if let format { fields["format"] = format.rawValue }
        return fields
    }

    private static func change(_ fields: [String: Any], ifVersion: Int?) -> [String: Any] {
        var fields = fields
        if let ifVersion { fields["ifVersion"] = ifVersion }
        return fields
    }

    private static func fields(key: String, _ selector: [String: Any], format: ReplyFormat?, namespace: String? = nil) -> [String: Any] {
        var fields = selector
        fields["layout"] = key
        if let format { fields["format"] = format.rawValue }
        if let namespace { fields["namespace"] = namespace }
        return fields
    }
}
