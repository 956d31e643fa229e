import LayoutWire

/// A single daemon's answer to `route`, the request a cluster's broker answers with its route table
/// (docs/PROTOCOL.md, Direct reads).
///
/// Why a single daemon answers it at all: clients probe `route` once to learn whether direct reads are
/// possible. Answered `unknown_op`, every such probe showed up as an error in the daemon's stats, paging
/// operators who alert on errors for a client doing what the protocol tells it to. The answer is an
/// empty table with `role` "daemon": a client written against the older text finds no worker for any
/// key and sends everything to the front, as it did after `unknown_op`.
enum StandaloneRoute {
    /// The reply to a `route` request with this `id`.
    static func reply(id: RequestID?) -> [UInt8] {
        ReplyEncoder.success(id: id, result: RouteResult.standalone)
    }
}
