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
        let held = copy.map { KeyCopy(epoch: $0.epoch, version: $0.version) }
        return JobReply(body: ReplyBody(ReplyEncoder.failure(id: id, error: error, copy: held)), op: op, errorCode: error.code.rawValue)
    }

    /// `list` of one layout, as a single daemon lists it (PROTOCOL.md §5.8).
    static func list(id: RequestID?, _ copy: LayoutStore.Summary) -> JobReply {
        let entry = ListResult.Entry(layout: copy.key.name, version: copy.version, items: copy.items, bytes: copy.bytes)
        return JobReply(body: ReplyBody(ReplyEncoder.success(id: id, result: ListResult(layouts: [entry]))), op: "list", errorCode: nil)
    }
}
