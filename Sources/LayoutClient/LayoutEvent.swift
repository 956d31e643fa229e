/// One event of the events socket: a topic frame (`batch:feed`) and a JSON body.
public struct LayoutEvent {
    /// The topic frame, such as `invalidated:feed` or `batch:feed`.
    public let topic: String
    /// The body object.
    public let body: AnyJSONObject
    /// The body exactly as received.
    public let bytes: [UInt8]

    /// Reads the two frames of an event.
    public init(topic: [UInt8], body: [UInt8]) throws(ClientError) {
        self.topic = String(decoding: topic, as: UTF8.self)
        self.body = try AnyJSONObject(parsing: body)
        self.bytes = body
    }

    /// The body's `event`: `invalidated` or `batch`.
    public var kind: String? { body.string("event") }
    /// The layout key the event is about.
    public var layout: String? { body.string("layout") }
    /// The layout's version after the change; a gap from the last one seen means events were missed.
    public var version: Int? { body.int("version") }
    /// The content size after the change.
    public var contentSize: ContentSize? { body.size("contentSize") }
    /// Why an `invalidated` event happened: `bounds`, `replaced`, `dropped` or `evicted`.
    public var reason: String? { body.string("reason") }
}
