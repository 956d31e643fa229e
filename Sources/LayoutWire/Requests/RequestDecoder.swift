import LayoutEngine

/// Decodes request bodies (PROTOCOL.md) into `Request`s.
///
/// Every bad body yields exactly one `WireError`, in this order of precedence: `invalid_json` (the body
/// is not one strict JSON document, wherever the fault is; `too_large` if it nests too deep), then
/// `v`, `id`, `op`, then the op's own fields, the error naming the offending one by its path.
public struct RequestDecoder: Sendable {
    /// Objects and arrays may nest this deep (`too_large` beyond).
    public var maxDepth: Int

    public init(maxDepth: Int = 64) {
        self.maxDepth = maxDepth
    }

    /// Decodes one request body (the last frame of a front-socket message).
    public func decode(_ body: [UInt8]) throws(WireError) -> Request {
        // withUnsafeBytes rethrows untyped; carry the typed error out by hand.
        let result: Result<Request, WireError> = body.withUnsafeBytes { bytes in
            do throws(WireError) { return .success(try decode(bytes)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Decodes one request body in place (for example a ZeroMQ message's data), without copying it;
    /// `frames` are the binary frames sent after it, which its size columns may name.
    public func decode(_ body: UnsafeRawBufferPointer, frames: AttachedFrames = .none) throws(WireError) -> Request {
        guard !body.isEmpty else { throw .invalidJSON("empty body", at: 0) }
        do throws(WireError) {
            return try decodeChecked(body, frames: frames)
        } catch {
            // A fault found while decoding a field does not outrank a syntax error further on.
            if error.code != .invalidJSON, let syntax = JSONReader.syntaxError(in: body, maxDepth: maxDepth) {
                throw syntax
            }
            throw error
        }
    }

    /// The request's `id`, read as cheaply as possible from a body that failed to decode, so that the
    /// error reply can echo it. nil when there is none or it cannot be found.
    ///
    /// The top-level members are read up to the end or the first fault; as in `decode`, the last `id`
    /// wins (a body may name it twice), so an error reply echoes the id a success reply would.
    public static func requestID(in body: UnsafeRawBufferPointer) -> RequestID? {
        var reader = JSONReader(body)
        var id: RequestID?
        do throws(WireError) {
            guard try reader.beginObject() else { return nil }
            repeat {
                let key = try reader.readKey()
                guard reader.key(key, is: "id") else {
                    try reader.skipValue()
                    continue
                }
                switch try reader.readValue() {
                case .string(let text): id = .string(text)
                // A number beyond Double's range would make the reply unreadable to most parsers.
                case .number(let number) where number.value.isFinite: id = .number(number.text)
                default: id = nil
                }
            } while try reader.nextMember()
        } catch {
            return id
        }
        return id
    }

    /// `requestID(in:)` for a body held in an array.
    public static func requestID(in body: [UInt8]) -> RequestID? {
        body.withUnsafeBytes { requestID(in: $0) }
    }

    // MARK: Top level

    private func decodeChecked(_ body: UnsafeRawBufferPointer, frames: AttachedFrames) throws(WireError) -> Request {
        var reader = JSONReader(body, maxDepth: maxDepth)
        guard reader.peekKind() == .object else {
            try reader.skipValue()
            try reader.expectEnd()
            throw WireError(.invalidRequest, "a request must be a JSON object")
        }
        var top = TopLevelFields(body: body, frames: frames, maxDepth: maxDepth)
        if try reader.beginObject() {
            repeat {
                let key = try reader.readKey()
                try top.read(TopLevelMember(key, in: reader), from: &reader)
            } while try reader.nextMember()
        }
        try reader.expectEnd()
        return try top.request()
    }
}

/// The top-level members of a request as they are read, in any order.
///
/// Small control fields are kept as `JSONValue`s. The bulk fields (`sections`, a query's `items`) are
/// decoded straight from the bytes when `op` came before them (the usual order), else skipped and
/// decoded from their remembered offset once `op` is known, so an op never pays for, or fails on, a
/// bulk field it does not use.
private struct TopLevelFields {
    let body: UnsafeRawBufferPointer
    let frames: AttachedFrames
    let maxDepth: Int
    var controls = ControlFields()
    /// A query's `rect`, decoded as it is read (nil: absent or null).
    var rect: Result<Rect, WireError>?
    /// The op as far as it is known.
    var operation: OperationName?
    var sections: Bulk<[DecodedSection]> = .absent
    var items: Bulk<[ItemIndexPath]> = .absent
    var updates: Bulk<[UpdatePayload]> = .absent

    init(body: UnsafeRawBufferPointer, frames: AttachedFrames, maxDepth: Int) {
        self.body = body
        self.frames = frames
        self.maxDepth = maxDepth
    }

    /// Reads the value of `member` (nil: a member the protocol does not define).
    mutating func read(_ member: TopLevelMember?, from reader: inout JSONReader) throws(WireError) {
        switch member {
        case .sections?:
            sections = try Bulk.read(from: &reader, now: operation == .layout || operation == .prepare || operation == .diff) { (reader: inout JSONReader) throws(WireError) in
                try SectionsDecoder.decodeSections(&reader, frames: frames, at: .root / "sections")
            }
        case .items?:
            items = try Bulk.read(from: &reader, now: operation == .query) { (reader: inout JSONReader) throws(WireError) in
                try ItemIndexPathsDecoder.decode(&reader, at: .root / "items")
            }
        case .updates?:
            updates = try Bulk.read(from: &reader, now: operation == .update) { (reader: inout JSONReader) throws(WireError) in
                try UpdatesDecoder.decode(&reader, at: .root / "updates")
            }
        case .control(.rect)?:
            rect = try TopLevelRect.read(&reader)
        case .control(.op)?:
            // The usual case, a plain op name: matched by its bytes, no String made of it and no
            // string switch over the op names.
            reader.skipWhitespace()
            if reader.peek() == UInt8(ascii: "\"") {
                let start = reader.offset
                let depth = reader.depth
                if let name = OperationName(try reader.readStringToken(), in: reader) {
                    operation = name
                    controls[.op] = .string(name.rawValue)
                    return
                }
                reader.rewind(to: start, depth: depth)
            }
            let value = try reader.readValue()
            if case .string(let text) = value { operation = OperationName(rawValue: text) } else { operation = nil }
            controls[.op] = value
        case .control(let name)?:
            let value = try reader.readValue()
            controls[name] = value
        case nil:
            // Unknown fields are ignored, for forward compatibility.
            try reader.skipValue()
        }
    }

    func request() throws(WireError) -> Request {
        try checkVersion()
        let id = try requestID()
        let name = try operationName()
        let fields = RequestFields(controls: controls)
        switch name {
        case .ping:
            return Request(id: id, operation: .ping)
        case .list:
            return Request(id: id, operation: .list(try fields.listRequest()))
        case .layout:
            let input = try fields.layoutInput(sections: try sections.value(body: body, maxDepth: maxDepth, name: "sections") { (reader: inout JSONReader) throws(WireError) in
                try SectionsDecoder.decodeSections(&reader, frames: frames, at: .root / "sections")
            })
            return Request(id: id, operation: .layout(LayoutRequest(input: input, attributes: try fields.attributes(default: .all), format: try fields.format())))
        case .prepare:
            let key = try fields.layoutKey()
            let input = try fields.layoutInput(sections: try sections.value(body: body, maxDepth: maxDepth, name: "sections") { (reader: inout JSONReader) throws(WireError) in
                try SectionsDecoder.decodeSections(&reader, frames: frames, at: .root / "sections")
            })
            return Request(id: id, operation: .prepare(PrepareRequest(
                layout: key, input: input, attributes: try fields.attributes(default: nil), format: try fields.format(), ifVersion: try fields.ifVersion()
            )))
        case .query:
            let key = try fields.layoutKey()
            let selection = try fields.querySelection(rect: rect, items: try items.optionalValue(body: body, maxDepth: maxDepth) { (reader: inout JSONReader) throws(WireError) in
                try ItemIndexPathsDecoder.decode(&reader, at: .root / "items")
            })
            let pinning = try fields.pinning(for: selection)
            let dynamics = try fields.dynamics(for: selection)
            let query = QueryRequest(
                layout: key, selection: selection, format: try fields.format(), pinning: pinning, dynamics: dynamics,
                namespace: try fields.namespace()
            )
            return Request(id: id, operation: .query(query))
        case .bounds:
            let key = try fields.layoutKey()
            return Request(id: id, operation: .bounds(BoundsRequest(layout: key, bounds: try fields.bounds(), ifVersion: try fields.ifVersion())))
        case .drop:
            return Request(id: id, operation: .drop(DropRequest(layout: try fields.layoutKey(), ifVersion: try fields.ifVersion())))
        case .update:
            let key = try fields.layoutKey()
            let decoded = try updates.value(body: body, maxDepth: maxDepth, name: "updates") { (reader: inout JSONReader) throws(WireError) in
                try UpdatesDecoder.decode(&reader, at: .root / "updates")
            }
            return Request(id: id, operation: .update(UpdateRequest(layout: key, updates: decoded, ifVersion: try fields.ifVersion())))
        case .diff:
            let key = try fields.layoutKey()
            let decoded = try sections.value(body: body, maxDepth: maxDepth, name: "sections") { (reader: inout JSONReader) throws(WireError) in
                try SectionsDecoder.decodeSections(&reader, frames: frames, at: .root / "sections")
            }
            let payloads = decoded.enumerated().map { SectionPayload(decoded: $0.element, path: .root / "sections" / $0.offset) }
            return Request(id: id, operation: .diff(DiffRequest(layout: key, sections: payloads, ifVersion: try fields.ifVersion())))
        }
    }

    /// `v` defaults to 1, the only version there is.
    private func checkVersion() throws(WireError) {
        guard let version = controls[.v] else { return }
        guard case .number(let number) = version else { throw .wrongType(expected: .number, found: version.kind, at: .root / "v") }
        guard number.value == 1 else {
            throw .invalidRequest("unsupported protocol version \(number.text); this daemon speaks 1", at: .root / "v")
        }
    }

    private func requestID() throws(WireError) -> RequestID? {
        switch controls[.id] {
        case nil, .null?: return nil
        case .string(let text)?: return .string(text)
        case .number(let number)?:
            guard number.value.isFinite else {
                throw .invalidRequest("id \(number.text) is out of the range of a double", at: .root / "id")
            }
            return .number(number.text)
        case let value?: throw .invalidRequest("id must be a string or a number, not \(value.kind.article)", at: .root / "id")
        }
    }

    private func operationName() throws(WireError) -> OperationName {
        let value = try controls.required(.op)
        // Already matched while reading (the usual case): no second string comparison.
        if let operation { return operation }
        let text = try value.string(at: .root / "op")
        guard let name = OperationName(rawValue: text) else {
            throw WireError(.unknownOperation, "unknown op \"\(text)\"", path: "op")
        }
        return name
    }
}

/// A bulk member: absent, decoded, or remembered by offset for when the op is known.
private enum Bulk<Value> {
    case absent
    case decoded(Value)
    /// Its value starts at `offset`, inside the top-level object (depth 1).
    case deferred(offset: Int)
    /// Decoding it failed (not a syntax error): reported once `v`, `id` and `op` check out.
    case failed(WireError)

    static func read(from reader: inout JSONReader, now: Bool, _ decode: (inout JSONReader) throws(WireError) -> Value) throws(WireError) -> Bulk {
        reader.skipWhitespace()
        let start = reader.offset
        let depth = reader.depth
        guard now else {
            try reader.skipValue()
            return .deferred(offset: start)
        }
        do throws(WireError) {
            return .decoded(try decode(&reader))
        } catch {
            if error.code == .invalidJSON { throw error }
            reader.rewind(to: start, depth: depth)
            try reader.skipValue()
            return .failed(error)
        }
    }

    func optionalValue(body: UnsafeRawBufferPointer, maxDepth: Int, _ decode: (inout JSONReader) throws(WireError) -> Value) throws(WireError) -> Value? {
        switch self {
        case .absent:
            return nil
        case .decoded(let value):
            return value
        case .deferred(let offset):
            var reader = JSONReader(body, offset: offset, depth: 1, maxDepth: maxDepth)
            return try decode(&reader)
        case .failed(let error):
            throw error
        }
    }

    func value(body: UnsafeRawBufferPointer, maxDepth: Int, name: String, _ decode: (inout JSONReader) throws(WireError) -> Value) throws(WireError) -> Value {
        guard let value = try optionalValue(body: body, maxDepth: maxDepth, decode) else {
            throw .invalidRequest("missing required field \"\(name)\"", at: .root / name)
        }
        return value
    }
}
