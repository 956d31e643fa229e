/// Why one attempt at a front endpoint did not count, so that `LayoutClient` moved to the next one.
public enum EndpointFailure: Sendable, Hashable, CustomStringConvertible {
    /// No reply came from `endpoint` within `after`.
    case timeout(endpoint: String, after: Duration)
    /// `endpoint` is a standby broker: it answered `unavailable` with `message`, which says so.
    case standby(endpoint: String, message: String)

    /// The endpoint the attempt went to.
    public var endpoint: String {
        switch self {
        case .timeout(let endpoint, _), .standby(let endpoint, _): endpoint
        }
    }

    /// Whether the endpoint answered as a standby (rather than not at all).
    public var isStandby: Bool {
        if case .standby = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .timeout(let endpoint, let after): "no reply from \(endpoint) within \(after.secondsText)"
        case .standby(let endpoint, let message): "\(endpoint) is a standby (\(message))"
        }
    }
}
