import LayoutEngine
import LayoutServer
import LayoutWire

/// A SNAPSHOT on its way from the worker's I/O thread to the pool.
struct SnapshotJob: Sendable {
    var request: SnapshotRequest
}

extension ClusterJobHandler {
    /// The key's layout as the body of a `prepare` that rebuilds it, and the version it stands at. Run as
    /// an op on the key, it sees the layout between two of the key's requests, never during one.
    ///
    /// The body is checked before it leaves: decoded as a recipe replay will decode it, it must give the
    /// same input, and one that `prepare` accepts (a batch checks less than a `prepare` does, so a layout
    /// batches made is not taken on trust). A body that fails is not sent: the broker keeps the recipe it has.
    func run(_ job: SnapshotJob) -> JobReply {
        let key = job.request.key
        func fail(_ code: WireError.Code, _ message: String) -> JobReply {
            JobReply(body: ReplyBody(SnapshotOutcome.failed(code: code.rawValue, message: message).frame), op: "snapshot", errorCode: code.rawValue)
        }
        guard let entry = store.entry(forKey: key) else {
            return fail(.unknownLayout, "no layout is kept under \"\(key.name)\"")
        }
        let input = entry.layout.input
        let writer = PrepareBodyEncoder.body(layout: key.name, input: input)
        let check: WireError? = writer.withUnsafeBytes { bytes in
            do throws(WireError) {
                guard case .prepare(let prepare) = try RequestDecoder().decode(bytes).operation, prepare.layout == key.name else {
                    return WireError(.internal, "the snapshot does not decode as a prepare of \"\(key.name)\"")
                }
                guard prepare.input.describesSameLayout(as: input) else {
                    return WireError(.internal, "the snapshot decodes to another input than the layout's")
                }
                do throws(LayoutError) {
                    try prepare.input.validate(limits: limits)
                } catch {
                    return WireError(.internal, "a prepare would refuse the layout's input: \(error.message)")
                }
                return nil
            } catch {
                return WireError(.internal, "the snapshot does not decode: \(error.message)")
            }
        }
        if let check { return fail(check.code, check.message) }
        let outcome = SnapshotOutcome.taken(layout: key.name, version: entry.version, items: entry.layout.itemCount)
        return JobReply(body: ReplyBody(leading: outcome.frame, writer), op: "snapshot", errorCode: nil)
    }
}
