/// Reply envelopes (PROTOCOL.md, Requests and replies).
public enum ReplyEncoder {
    /// `{"v":1,"id":…,"ok":true,"result":{…}}`.
    public static func success(id: RequestID?, result: some WireResult) -> [UInt8] {
        successBody(id: id, result: result).finish()
    }

    /// The success reply still in its writer, for sending without a copy (`JSONWriter.releaseBuffer()`,
    /// `withUnsafeBytes`): a large attributes reply is tens of megabytes.
    public static func successBody(id: RequestID?, result: some WireResult) -> JSONWriter {
        var writer = JSONWriter(capacity: result.estimatedByteCount + 64)
        writeHead(id: id, into: &writer)
        writer.write(raw: ",\"ok\":true,\"result\":")
        result.encode(into: &writer)
        writer.write(byte: UInt8(ascii: "}"))
        return writer
    }

    /// `{"v":1,"id":…,"ok":false,"error":{"code":…,"message":…,"path":…}}`; `path` only where there is one.
    /// - Parameter copy: what a cluster worker's direct endpoint holds of the key it refuses to read
    ///   (`moved`, `behind`: PROTOCOL.md §11), written as the error's `copy` member.
    public static func failure(id: RequestID?, error: WireError, copy: KeyCopy? = nil) -> [UInt8] {
        var writer = JSONWriter(capacity: 224 + error.message.utf8.count)
        writeHead(id: id, into: &writer)
        writer.write(raw: ",\"ok\":false,\"error\":{\"code\":")
        writer.write(error.code.rawValue)
        writer.write(raw: ",\"message\":")
        writer.write(error.message)
        if let path = error.path {
            writer.write(raw: ",\"path\":")
            writer.write(path)
        }
        if let copy {
            writer.write(raw: ",\"copy\":{\"epoch\":")
            writer.write(Int64(clamping: copy.epoch))
            writer.write(raw: ",\"version\":")
            writer.write(copy.version)
            writer.write(byte: UInt8(ascii: "}"))
        }
        writer.write(raw: "}}")
        return writer.finish()
    }

    /// `{"v":1,"id":…` — a missing id is echoed as null.
    private static func writeHead(id: RequestID?, into writer: inout JSONWriter) {
        writer.write(raw: "{\"v\":1,\"id\":")
        writer.write(id)
    }
}

/// The epoch and version of the copy of a key that a cluster worker holds.
public struct KeyCopy: Hashable, Sendable {
    public var epoch: UInt64
    public var version: Int

    public init(epoch: UInt64, version: Int) {
        self.epoch = epoch
        self.version = version
    }
}

extension JSONWriter {
    /// A request id as it was sent: a string quoted, a number by its exact text, nil as null.
    public mutating func write(_ id: RequestID?) {
        switch id {
        case .string(let text)?:
            write(text)
        case .number(let text)?:
            // The text passed the JSON number grammar when the request was read.
            var text = text
            text.withUTF8 { write(raw: UnsafeRawBufferPointer($0)) }
        case nil:
            writeNull()
        }
    }
}
