/// How a `LayoutClient` with several front endpoints goes round them (the ZeroMQ guide's Binary Star
/// client): how many rounds a request may make, and how long it pauses when a whole round found only
/// standby brokers.
public struct FailoverPolicy: Sendable, Hashable {
    /// The most times a request goes round every endpoint before `ClientError.allEndpointsFailed`;
    /// at least 1.
    public let rounds: Int
    /// The pause after a round in which every endpoint answered as a standby, doubled after each such
    /// round and never longer than the client's timeout; at least zero.
    ///
    /// A round with a timeout in it is not followed by a pause: the timeout was the wait.
    public let backoff: Duration

    /// Values below the minimum (`rounds` 1, `backoff` zero) are raised to it.
    public init(rounds: Int = 2, backoff: Duration = .milliseconds(100)) {
        self.rounds = max(1, rounds)
        self.backoff = max(.zero, backoff)
    }

    /// The pause after round `round` (1 for the first) found only standbys, for a client waiting
    /// `timeout` per reply.
    func pause(afterRound round: Int, timeout: Duration) -> Duration {
        // Doubling stops at the cap long before the shift could overflow.
        let doublings = min(max(0, round - 1), 20)
        return min(backoff * (1 << doublings), max(.zero, timeout))
    }
}
