/// The members of a read sent to a cluster worker's direct endpoint that say which copy may answer it
/// (docs/PROTOCOL.md, Direct reads): `epoch`, the key's epoch in the client's route table, and
/// `minVersion`, the oldest version the client accepts (the last it saw acknowledged or read).
///
/// Read by a scan of the top-level members, as `RequestRoute` reads `op` and `layout`: the request is
/// decoded as usual afterwards, where these members are ignored (a single daemon and a broker ignore
/// them too, so a client may send the same body to either).
public struct DirectReadFields: Hashable, Sendable {
    /// The key's epoch the client believes its owner holds it at; nil when not sent.
    public var epoch: UInt64?
    /// The oldest version the client accepts; nil (or 0) when not sent.
    public var minVersion: Int?

    public init(epoch: UInt64? = nil, minVersion: Int? = nil) {
        self.epoch = epoch
        self.minVersion = minVersion
    }

    /// Scans `body`; a member of the wrong type is `invalid_request` at its path. A body that is not a
    /// JSON object gives no fields (its decoding reports why).
    public init(scanning body: UnsafeRawBufferPointer) throws(WireError) {
        self.init()
        var reader = JSONReader(body)
        guard reader.peekKind() == .object, (try? reader.beginObject()) == true else { return }
        do throws(WireError) {
            repeat {
                let key = try reader.readKey()
                if reader.key(key, is: "epoch") {
                    epoch = UInt64(try Self.wholeNumber(try reader.readValue(), at: "epoch"))
                } else if reader.key(key, is: "minVersion") {
                    minVersion = try Self.wholeNumber(try reader.readValue(), at: "minVersion")
                } else {
                    try reader.skipValueLeniently()
                }
            } while try reader.nextMember()
        } catch {
            // A syntax fault is left to the request's decoding, which reports it with its offset.
            guard error.code == .invalidRequest else { return }
            throw error
        }
    }

    /// An integer ≥ 0 (`3`, `3.0` and `3e0` alike, as every integer field of the contract).
    private static func wholeNumber(_ value: JSONValue, at path: String) throws(WireError) -> Int {
        guard case .number(let number) = value, number.value >= 0, number.value.rounded() == number.value, number.value < 9.007_199_254_740_992e15 else {
            throw WireError(.invalidRequest, "must be an integer >= 0", path: path)
        }
        return Int(number.value)
    }
}
