/// What a broker needs to know of an event it forwards (PROTOCOL.md, Events): its kind, layout,
/// version and, for `invalidated`, the reason. Read from the body without decoding the batch.
public struct EventSummary: Hashable, Sendable {
    public var event: String?
    public var layout: String?
    public var version: Int?
    public var reason: InvalidationReason?

    public init(event: String? = nil, layout: String? = nil, version: Int? = nil, reason: InvalidationReason? = nil) {
        self.event = event
        self.layout = layout
        self.version = version
        self.reason = reason
    }

    /// Reads the top-level members `event`, `layout`, `version` and `reason`; stops at the first other
    /// member after `version` (a batch's change lists), or at a fault.
    public init(scanning body: UnsafeRawBufferPointer) {
        self.init()
        var reader = JSONReader(body)
        do throws(WireError) {
            guard try reader.beginObject() else { return }
            repeat {
                let key = try reader.readKey()
                if reader.key(key, is: "event") {
                    if case .string(let text) = try reader.readValue() { event = text }
                } else if reader.key(key, is: "layout") {
                    if case .string(let text) = try reader.readValue() { layout = text }
                } else if reader.key(key, is: "version") {
                    let value = try reader.readNumber()
                    version = value.rounded() == value && Swift.abs(value) < 9e15 ? Int(value) : nil
                } else if reader.key(key, is: "reason") {
                    if case .string(let text) = try reader.readValue() { reason = InvalidationReason(rawValue: text) }
                } else if version != nil {
                    return
                } else {
                    try reader.skipValue()
                }
            } while try reader.nextMember()
        } catch {
            return
        }
    }

    /// `init(scanning:)` for a body held in an array.
    public init(scanning body: [UInt8]) {
        self = body.withUnsafeBytes { EventSummary(scanning: $0) }
    }
}
