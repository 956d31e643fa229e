/// A `route` request, which a cluster's broker answers itself with its route table (who owns which key,
/// and where its direct endpoint is: docs/PROTOCOL.md, Direct reads). Found by a scan of the top-level
/// members, only for bodies whose `op` is none of `OperationName`'s.
public struct RouteRequest: Hashable, Sendable {
    /// One key's entry only, when given.
    public var layout: String?

    public init(layout: String? = nil) {
        self.layout = layout
    }

    /// Nil unless `body` is an object whose `op` is `"route"`.
    public init?(scanning body: UnsafeRawBufferPointer) {
        var reader = JSONReader(body)
        var isRoute = false
        var layout: String?
        do throws(WireError) {
            guard reader.peekKind() == .object, try reader.beginObject() else { return nil }
            repeat {
                let key = try reader.readKey()
                if reader.key(key, is: "op") {
                    if case .string(let text) = try reader.readValue() { isRoute = text == "route" } else { isRoute = false }
                } else if reader.key(key, is: "layout") {
                    if case .string(let text) = try reader.readValue() { layout = text } else { layout = nil }
                } else {
                    try reader.skipValueLeniently()
                }
            } while try reader.nextMember()
        } catch {
            return nil
        }
        guard isRoute else { return nil }
        self.layout = layout
    }
}
