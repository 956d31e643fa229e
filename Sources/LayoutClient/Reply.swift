/// One reply of the front socket: `{"v":1,"id":…,"ok":true,"result":{…}}` or
/// `{"v":1,"id":…,"ok":false,"error":{"code":…,"message":…,"path":…}}`.
public struct Reply {
    /// The echoed request id; `nil` when the daemon could not read one (an `invalid_json` body).
    public let id: CorrelationID?
    /// Whether the request succeeded.
    public let ok: Bool
    /// The `result` object of a success; empty for a failure.
    public let result: AnyJSONObject
    /// The error of a failure; `nil` for a success.
    public let error: ReplyError?
    /// The whole reply object.
    public let object: AnyJSONObject
    /// The reply body exactly as received, for callers that print it or decode it themselves.
    public let body: [UInt8]
    /// The direct endpoint of the cluster worker that answered this read (`DirectReads`); nil when the
    /// front endpoint did.
    public internal(set) var directEndpoint: String?

    /// Reads a reply body.
    public init(body: [UInt8]) throws(ClientError) {
        let object = try AnyJSONObject(parsing: body)
        guard let ok = object.bool("ok") else {
            throw .malformedReply("reply without a boolean \"ok\": \(JSONCoding.preview(body))")
        }
        self.id = CorrelationID(json: object["id"])
        self.ok = ok
        self.object = object
        self.body = body
        if ok {
            result = object.object("result") ?? AnyJSONObject()
            error = nil
        } else {
            result = AnyJSONObject()
            let error = object.object("error")
            self.error = ReplyError(
                code: ReplyError.Code(rawValue: error?.string("code") ?? "internal"),
                message: error?.string("message") ?? "(no message)",
                path: error?.string("path")
            )
        }
    }

    /// The result of a success; throws the error of a failure.
    public func get() throws(ReplyError) -> AnyJSONObject {
        if let error { throw error }
        return result
    }
}
