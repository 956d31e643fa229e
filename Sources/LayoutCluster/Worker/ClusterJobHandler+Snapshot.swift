import LayoutEngine
import LayoutServer
import LayoutWire

/// A SNAPSHOT on its way from the worker's I/O thread to the pool.
struct SnapshotJob: Sendable {
    var request: SnapshotRequest
}

extension ClusterJobHandler {
    /// The key's layout as the body of a `prepare` that rebuilds it (`SnapshotBody`), and the version it
    /// stands at. Run as an op on the key, it sees the layout between two of the key's requests, never
    /// during one. A body that fails its check is not sent: the broker keeps the recipe it has.
    func run(_ job: SnapshotJob) -> JobReply {
        let key = job.request.key
        func fail(_ code: WireError.Code, _ message: String) -> JobReply {
            JobReply(body: ReplyBody(SnapshotOutcome.failed(code: code.rawValue, message: message).frame), op: "snapshot", errorCode: code.rawValue)
        }
        guard let entry = store.entry(forKey: key) else {
            return fail(.unknownLayout, "no layout is kept under \"\(key.name)\"")
        }
        let writer: JSONWriter
        switch SnapshotBody.encode(layout: key.name, input: entry.layout.input, limits: limits) {
        case .success(let encoded): writer = encoded
        case .failure(let error): return fail(error.code, error.message)
        }
        let outcome = SnapshotOutcome.taken(layout: key.name, version: entry.version, items: entry.layout.itemCount)
        return JobReply(body: ReplyBody(leading: outcome.frame, writer), op: "snapshot", errorCode: nil)
    }
}
