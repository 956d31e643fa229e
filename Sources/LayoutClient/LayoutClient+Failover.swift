import Foundation

extension LayoutClient {
    /// `request(_:id:)` with several endpoints: round after round of them, starting at the one in use,
    /// until one answers as an active daemon (see `init(endpoints:context:timeout:failover:curve:)`).
    func requestWithFailover(_ body: [UInt8], id: CorrelationID?) throws(ClientError) -> [UInt8] {
        let resendable = ResendRule.allowsResending(body)
        var failures: [EndpointFailure] = []
        for round in 1...failover.rounds {
            failures.removeAll(keepingCapacity: true)
            for _ in endpoints {
                let failure: EndpointFailure
                if let reply = try attempt(body, id: id) {
                    guard let message = StandbyReply.message(in: reply) else { return reply }
                    failure = .standby(endpoint: endpoint, message: message)
                } else {
                    failure = .timeout(endpoint: endpoint, after: timeout)
                }
                // A fresh socket either way (Lazy Pirate): a late reply must not reach the next attempt,
                // and the next request should not start at an endpoint that just failed.
                try moveToNextEndpoint()
                // A standby applies nothing, so its answer makes any request safe to send on; after a
                // timeout only one the rule allows is sent again.
                guard resendable || failure.isStandby else { throw .outcomeUnknown(op: ResendRule.op(of: body) ?? "request", cause: failure) }
                failures.append(failure)
            }
            // Only a round of standbys calls for a pause: a pair of brokers swapping roles needs a moment,
            // whereas a timeout has already waited.
            if round < failover.rounds, failures.allSatisfy(\.isStandby) {
                Self.pause(failover.pause(afterRound: round, timeout: timeout))
            }
        }
        throw .allEndpointsFailed(rounds: failover.rounds, failures: failures)
    }

    private static func pause(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
    }
}
