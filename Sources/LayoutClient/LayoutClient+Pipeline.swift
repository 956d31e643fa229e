extension LayoutClient {
    /// The requests a pipeline keeps waiting for replies at once by default: well under a daemon's send
    /// high-water mark (10,000 replies queued per client), past which it drops replies.
    public static let defaultMaxInFlight = 1_000

    /// Sends every request of `requests` (bodies made by `makeRequest(_:fields:)`) and returns their
    /// replies in the same order, keeping at most `maxInFlight` of them waiting for a reply at once and
    /// reading replies while it sends.
    ///
    /// Why a bound: a client that sends many thousands of requests before reading any makes the daemon
    /// queue their replies, and past its high-water mark the daemon drops them (it never blocks on one
    /// client); the requests then wait out a whole timeout. Reading as it sends, a pipeline of any
    /// length completes at the wire's rate.
    ///
    /// Pipelined requests use the endpoint in use and never fail over, as `send(_:)`. Throws
    /// `ClientError.timeout` when no reply came within `timeout` of the last one, and
    /// `ClientError.malformedReply` for a reply whose id names no request of the pipeline.
    public func pipeline(
        _ requests: [(id: CorrelationID, body: [UInt8])], maxInFlight: Int = LayoutClient.defaultMaxInFlight
    ) throws(ClientError) -> [Reply] {
        guard maxInFlight >= 1 else { throw .invalidInput("maxInFlight must be at least 1, not \(maxInFlight)") }
        var positions: [CorrelationID: Int] = [:]
        positions.reserveCapacity(requests.count)
        for (index, request) in requests.enumerated() {
            guard positions.updateValue(index, forKey: request.id) == nil else {
                throw .invalidInput("two requests of the pipeline have the id \(request.id)")
            }
        }
        var replies = [Reply?](repeating: nil, count: requests.count)
        var sent = 0
        var received = 0
        while received < requests.count {
            while sent < requests.count, sent - received < maxInFlight {
                try send(requests[sent].body)
                sent += 1
            }
            guard let body = try receive(timeout: timeout) else { throw .timeout(endpoint: endpoint, after: timeout) }
            let reply = try Reply(body: body)
            guard let id = reply.id, let position = positions[id], replies[position] == nil else {
                throw .malformedReply("a reply to no request of the pipeline: \(JSONCoding.preview(body))")
            }
            replies[position] = reply
            received += 1
        }
        return replies.compactMap { $0 }
    }
}
