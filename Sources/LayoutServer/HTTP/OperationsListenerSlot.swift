import Synchronization

/// Where a running process keeps its HTTP listener: attached once it is bound, closed when the process
/// stops, whichever comes first (a listener bound after the stop is closed at once). The single daemon
/// and the cluster's roles hold one each.
public final class OperationsListenerSlot: Sendable {
    private let state = Mutex<(server: OperationsServer?, stopped: Bool)>((nil, false))

    public init() {}

    /// The listener's bound `host:port`; nil when there is none.
    public var boundAddress: String? { state.withLock { $0.server?.boundAddress.description } }

    /// Keeps `server` until `close()` (closing it at once if that already happened).
    public func attach(_ server: OperationsServer) {
        let lateForStop = state.withLock { state in
            if !state.stopped { state.server = server }
            return state.stopped
        }
        if lateForStop { server.close() }
    }

    /// Closes the listener, and any attached later.
    public func close() {
        let server = state.withLock { state in
            state.stopped = true
            return state.server
        }
        server?.close()
    }
}
