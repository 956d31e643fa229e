/// A `route` request, which a cluster's broker answers itself with its route table (who owns which key,
/// and where its direct endpoint is: docs/PROTOCOL.md, Direct reads). Found by a scan of the top-level
/// members, only for bodies whose `op` is none of `OperationName`'s.
public struct RouteRequest: Hashable, Sendable {
    /// The most names one lookup (`layouts`) may ask about.
    public static let maxLayouts = 1_000

    /// One key's entry only, when given.
    public var layout: String?
    /// Only these keys' entries, when given (a lookup of the keys a client reads).
    public var layouts: [String]?
    /// What is wrong with the request's members, when something is: it is answered with this error.
    public var fault: WireError?

    public init(layout: String? = nil, layouts: [String]? = nil) {
        self.layout = layout
        self.layouts = layouts
    }

    /// Nil unless `body` is an object whose `op` is `"route"`.
    public init?(scanning body: UnsafeRawBufferPointer) {
        var reader = JSONReader(body)
        var isRoute = false
        var layout: String?
        var layouts: JSONValue?
        do throws(WireError) {
            guard reader.peekKind() == .object, try reader.beginObject() else { return nil }
            repeat {
                let key = try reader.readKey()
                if reader.key(key, is: "op") {
                    if case .string(let text) = try reader.readValue() { isRoute = text == "route" } else { isRoute = false }
                } else if reader.key(key, is: "layout") {
                    if case .string(let text) = try reader.readValue() { layout = text } else { layout = nil }
                } else if reader.key(key, is: "layouts") {
                    layouts = try reader.readValue()
                } else {
                    try reader.skipValueLeniently()
                }
            } while try reader.nextMember()
        } catch {
            return nil
        }
        guard isRoute else { return nil }
        self.layout = layout
        do throws(WireError) {
            self.layouts = try layouts.flatMap(Self.names)
        } catch {
            fault = error
        }
    }

    /// `init(scanning:)` for a body held in an array.
    public init?(scanning body: [UInt8]) {
        guard let request = body.withUnsafeBytes({ RouteRequest(scanning: $0) }) else { return nil }
        self = request
    }

    /// The names of a `layouts` member: an array of at most `maxLayouts` strings (null: absent).
    private static func names(_ value: JSONValue) throws(WireError) -> [String]? {
        if value == .null { return nil }
        guard case .array(let items) = value else {
            throw .wrongType(expected: .array, found: value.kind, at: .root / "layouts")
        }
        guard items.count <= maxLayouts else {
            throw .invalidRequest("asks about \(items.count) keys; at most \(maxLayouts) at once", at: .root / "layouts")
        }
        var names: [String] = []
        names.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .string(let name) = item else {
                throw .wrongType(expected: .string, found: item.kind, at: .root / "layouts" / index)
            }
            names.append(name)
        }
        return names
    }

    /// The names whose entries the answer holds: nil for every kept key of the caller's namespace.
    public var askedNames: [String]? {
        switch (layout, layouts) {
        case (nil, nil): return nil
        case (let one?, nil): return [one]
        case (nil, let many?): return many
        case (let one?, let many?): return many + [one]
        }
    }
}
