import ZeroMQ

/// A request that did not produce a reply from the daemon: the daemon's own error answers are
/// `ReplyError`s inside a `Reply`, not this.
public enum ClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No reply came from `endpoint` within `after`. The connection has been reset, so a late reply to
    /// this request can never be taken for the reply to a later one.
    case timeout(endpoint: String, after: Duration)
    /// A client with several front endpoints tried every one of them, `rounds` times, and none
    /// answered as an active daemon; `failures` says what each did in the last round.
    case allEndpointsFailed(rounds: Int, failures: [EndpointFailure])
    /// A change (`op`) without `ifVersion` lost its answer (`cause`): it may or may not have been
    /// applied. It was not sent again, since a second copy could be applied twice; query the layout to
    /// learn its state, or send changes with `ifVersion` so that they may be resent.
    case outcomeUnknown(op: String, cause: EndpointFailure)
    /// A socket call failed (a malformed endpoint, a terminated context, ...).
    case transport(ZeroMQError)
    /// The daemon answered with something that is not a reply of the wire contract.
    case malformedReply(String)
    /// What the caller asked to send cannot be sent (a job that is not a JSON object, a value
    /// `JSONSerialization` cannot write).
    case invalidInput(String)
    /// A CURVE key (file) that cannot be used.
    case invalidKey(String)

    /// A short snake_case name for scripts and log lines, in the style of the daemon's error codes.
    public var code: String {
        switch self {
        case .timeout: "timeout"
        case .allEndpointsFailed: "all_endpoints_failed"
        case .outcomeUnknown: "outcome_unknown"
        case .transport: "transport"
        case .malformedReply: "malformed_reply"
        case .invalidInput: "invalid_input"
        case .invalidKey: "invalid_key"
        }
    }

    /// What went wrong, without the code.
    public var message: String {
        switch self {
        case .timeout(let endpoint, let after):
            "no reply from \(endpoint) within \(after.secondsText)"
        case .allEndpointsFailed(let rounds, let failures):
            "every endpoint was tried (\(rounds) round\(rounds == 1 ? "" : "s")) and none answered as an active daemon: "
                + failures.map(\.description).joined(separator: "; ")
        case .outcomeUnknown(let op, let cause):
            "the outcome of this \(op) is unknown: it may or may not have been applied, and it was not sent again "
                + "because it carries no ifVersion (\(cause))"
        case .transport(let error): error.description
        case .malformedReply(let reason): reason
        case .invalidInput(let reason): reason
        case .invalidKey(let reason): reason
        }
    }

    public var description: String { "error \(code): \(message)" }
}
