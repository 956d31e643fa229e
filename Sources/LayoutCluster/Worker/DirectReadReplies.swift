import LayoutServer
import LayoutWire

/// The replies a worker's direct endpoint writes itself: its refusals (`moved`, `behind`, `read_only`,
/// and faults of the read's own fields), and a list of one layout.
///
/// `moved` and `behind` carry, beside the usual `code`, `message` and `path`, a `copy` member saying what
/// this worker holds of the key (`{"epoch": e, "version": v}`), when it holds one: all it knows of the
/// owner. The owner itself comes from the broker's route table, which the client refreshes.
enum DirectReadReplies {
    static func moved(id: RequestID?, _ message: String, copy: LayoutStore.Summary?, op: String) -> JobReply {
        failure(id: id, WireError(.moved, message), copy: copy, op: op)
    }

    static func behind(id: RequestID?, _ message: String, copy: LayoutStore.Summary, op: String) -> JobReply {
        failure(id: id, WireError(.behind, message, path: "minVersion"), copy: copy, op: op)
    }

    /// `error`, echoing the id of `body` when it stands in its first 64 KiB.
    static func refusal(_ body: RequestBody, _ error: WireError, op: String) -> JobReply {
        JobReply(body: ReplyBody(FrontReplies.failure(for: body, error: error)), op: op, errorCode: error.code.rawValue)
    }

    static func failure(id: RequestID?, _ error: WireError, copy: LayoutStore.Summary? = nil, op: String) -> JobReply {
        var writer = JSONWriter(capacity: 256 + error.message.utf8.count)
        writer.write(raw: "{\"v\":1,\"id\":")
        writer.write(id)
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
            writer.write(raw: "}")
        }
        writer.write(raw: "}}")
        return JobReply(body: ReplyBody(writer.finish()), op: op, errorCode: error.code.rawValue)
    }

    /// `list` of one layout, as a single daemon lists it (PROTOCOL.md §5.8).
    static func list(id: RequestID?, _ copy: LayoutStore.Summary) -> JobReply {
        var writer = JSONWriter(capacity: 160 + copy.key.name.utf8.count)
        writer.write(raw: "{\"v\":1,\"id\":")
        writer.write(id)
        writer.write(raw: ",\"ok\":true,\"result\":{\"layouts\":[{\"layout\":")
        writer.write(copy.key.name)
        writer.write(raw: ",\"version\":")
        writer.write(copy.version)
        writer.write(raw: ",\"items\":")
        writer.write(copy.items)
        writer.write(raw: ",\"bytes\":")
        writer.write(copy.bytes)
        writer.write(raw: "}]}}")
        return JobReply(body: ReplyBody(writer.finish()), op: "list", errorCode: nil)
    }
}
