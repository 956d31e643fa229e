import LayoutEngine

/// What a broker needs to know of a reply to keep a layout's recipe and version (PROTOCOL.md, "The
/// broker ↔ worker protocol"), read without decoding the reply: success or error code, and the result's
/// `version`, `invalidated` and `contentSize`.
///
/// The scan stops once it has all it looks for, so a large `attributes` member after them is never read.
public struct ReplySummary: Hashable, Sendable {
    /// `ok`; nil when the reply has none.
    public var ok: Bool?
    /// `error.code` of a failure.
    public var errorCode: String?
    /// `result.version`, for the ops that report one.
    public var version: Int?
    /// `result.invalidated` (`bounds`).
    public var invalidated: Bool?
    /// `result.contentSize`.
    public var contentSize: Size?

    public init(ok: Bool? = nil, errorCode: String? = nil, version: Int? = nil, invalidated: Bool? = nil, contentSize: Size? = nil) {
        self.ok = ok
        self.errorCode = errorCode
        self.version = version
        self.invalidated = invalidated
        self.contentSize = contentSize
    }

    /// Reads a reply body as the daemon writes it (`{"v":…,"id":…,"ok":…,"result"|"error":…}`).
    /// - Parameter readingResult: false to stop at `result` (only `ok` and an error's code are wanted).
    public init(scanning reply: UnsafeRawBufferPointer, readingResult: Bool = true) {
        self.init()
        var reader = JSONReader(reply)
        do throws(WireError) {
            guard try reader.beginObject() else { return }
            repeat {
                let key = try reader.readKey()
                if reader.key(key, is: "ok") {
                    ok = try reader.readBool()
                } else if reader.key(key, is: "error") {
                    try readError(&reader)
                } else if reader.key(key, is: "result") {
                    if readingResult { try readResult(&reader) }
                    // Nothing the daemon writes follows the result.
                    return
                } else {
                    try reader.skipValue()
                }
            } while try reader.nextMember()
        } catch {
            return
        }
    }

    /// `init(scanning:)` for a reply held in an array.
    public init(scanning reply: [UInt8], readingResult: Bool = true) {
        self = reply.withUnsafeBytes { ReplySummary(scanning: $0, readingResult: readingResult) }
    }

    private mutating func readError(_ reader: inout JSONReader) throws(WireError) {
        guard reader.peekKind() == .object else { return try reader.skipValue() }
        guard try reader.beginObject() else { return }
        repeat {
            let key = try reader.readKey()
            if reader.key(key, is: "code"), case .string(let code) = try reader.readValue() {
                errorCode = code
            } else if !reader.key(key, is: "code") {
                try reader.skipValue()
            }
        } while try reader.nextMember()
    }

    /// Reads the result's members until `version` and `contentSize` are both known.
    private mutating func readResult(_ reader: inout JSONReader) throws(WireError) {
        guard reader.peekKind() == .object else { return }
        guard try reader.beginObject() else { return }
        repeat {
            let key = try reader.readKey()
            if reader.key(key, is: "version") {
                let value = try reader.readNumber()
                version = value.rounded() == value && Swift.abs(value) < 9e15 ? Int(value) : nil
            } else if reader.key(key, is: "invalidated") {
                invalidated = try reader.readBool()
            } else if reader.key(key, is: "contentSize") {
                contentSize = try Self.readSize(&reader)
            } else {
                try reader.skipValue()
            }
            if version != nil, contentSize != nil { return }
        } while try reader.nextMember()
    }

    private static func readSize(_ reader: inout JSONReader) throws(WireError) -> Size? {
        guard case .object(let object) = try reader.readValue(),
              case .number(let width)? = object["width"], case .number(let height)? = object["height"] else { return nil }
        return Size(width: width.value, height: height.value)
    }
}

extension ListResult {
    /// The page a `list` reply holds, as the daemon writes it; nil when it is not a successful list reply.
    public init?(reply: UnsafeRawBufferPointer) {
        guard case .object(let top)? = try? JSONReader.parse(reply), case .bool(true)? = top["ok"],
              case .object(let result)? = top["result"], case .array(let layouts)? = result["layouts"] else { return nil }
        var entries: [Entry] = []
        entries.reserveCapacity(layouts.count)
        for value in layouts {
            guard case .object(let entry) = value, case .string(let key)? = entry["layout"],
                  let version = entry["version"]?.integer, let items = entry["items"]?.integer,
                  let bytes = entry["bytes"]?.integer else { return nil }
            let namespace: String? = if case .string(let name)? = entry["namespace"] { name } else { nil }
            entries.append(Entry(layout: key, version: version, items: items, bytes: bytes, namespace: namespace))
        }
        let next: String? = if case .string(let text)? = result["next"] { text } else { nil }
        self.init(layouts: entries, next: next)
    }

    /// The entries of a `list` reply; nil when it is not a successful list reply.
    public static func entries(inReply reply: UnsafeRawBufferPointer) -> [Entry]? {
        ListResult(reply: reply)?.layouts
    }

    /// `entries(inReply:)` for a reply held in an array.
    public static func entries(inReply reply: [UInt8]) -> [Entry]? {
        reply.withUnsafeBytes { entries(inReply: $0) }
    }
}

extension JSONValue {
    /// The value as an integer, when it is a whole number that fits.
    fileprivate var integer: Int? {
        guard case .number(let number) = self, number.value.rounded() == number.value, Swift.abs(number.value) < 9e15 else { return nil }
        return Int(number.value)
    }
}
