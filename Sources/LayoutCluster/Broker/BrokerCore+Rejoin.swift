import LayoutWire

/// The wait after a broker starts (issue 14): workers of a previous broker may still hold layouts, and a
/// request served or a key assigned before they register again could answer from a stale copy, or make
/// a second owner. Requests on keys (and `list`) wait; `ping` and `layout` are served at once.
extension BrokerCore {
    /// Most requests held while waiting; beyond, `busy` (every wait is bounded, and so is its memory).
    static let rejoinHoldLimit = 10_000

    /// Holds requests on keys until `deadline`.
    func holdKeyedRequests(until deadline: Nanos) {
        rejoinUntil = deadline
    }

    func holdUntilRejoined(_ request: ClientRequest) {
        guard rejoinHeld.count < Self.rejoinHoldLimit else {
            counters.busy += 1
            answer(request, WireError(.busy, "the broker has just started and is waiting for its workers to register again; retry shortly"))
            return
        }
        counters.held += 1
        rejoinHeld.append(request)
    }

    /// At every tick: once the wait is over, the held requests go out in arrival order.
    func endRejoinWait(now: Nanos) {
        guard let deadline = rejoinUntil, now >= deadline else { return }
        rejoinUntil = nil
        let held = rejoinHeld
        rejoinHeld = []
        logger.info("serving keys", metadata: ["held": "\(held.count)", "workers": "\(live.count)"])
        for request in held { dispatch(request) }
    }
}
