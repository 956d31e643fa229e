import Dispatch
import Synchronization

/// What other threads tell the broker's I/O thread.
enum BrokerSignal: Sendable {
    case shutdown
    /// The journal committed the write numbered `sequence` (failed, with why).
    case journaled(sequence: Int, failure: String?)
    /// The HTTP listener's `/metrics`.
    case metrics(MetricsAsk)
}

/// A `/metrics` request from the HTTP listener's thread, answered by the broker's I/O thread, which
/// owns the state it reports.
final class MetricsAsk: Sendable {
    private let answer = Mutex<[UInt8]?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func fulfil(_ bytes: [UInt8]) {
        answer.withLock { $0 = bytes }
        done.signal()
    }

    /// The answer, or nil when none came within `timeout` (the loop has stopped, or is stuck).
    func wait(timeout: Duration) -> [UInt8]? {
        let nanos = Int(clamping: timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        guard done.wait(timeout: .now() + .nanoseconds(nanos)) == .success else { return nil }
        return answer.withLock { $0 }
    }
}
