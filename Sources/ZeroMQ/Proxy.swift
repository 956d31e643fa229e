/// libzmq's built-in proxy (`zmq_proxy_steerable`): forwards messages both ways between two sockets on
/// the calling thread, without any Swift code in the path.
public enum Proxy {
    /// What a control socket may send to a running proxy.
    public enum Command: String, Sendable {
        case pause = "PAUSE"
        case resume = "RESUME"
        case terminate = "TERMINATE"
    }

    /// Forwards between `frontend` and `backend` (for example XSUB and XPUB: messages one way,
    /// subscriptions the other) until `control` receives `TERMINATE`, then returns; throws
    /// `.terminated` if the context is shut down first. Every message, in both directions, is also sent
    /// on `capture` when there is one (use a PUB there, which drops rather than blocks the proxy).
    ///
    /// Blocks the calling thread, which must own all four sockets; send commands from another thread's
    /// socket connected to `control` (a PAIR).
    public static func runSteerable(frontend: Socket, backend: Socket, capture: Socket?, control: Socket) throws(ZeroMQError) {
        try LibZMQ.proxySteerable(
            frontend: frontend.openHandle("zmq_proxy_steerable"), backend: backend.openHandle("zmq_proxy_steerable"),
            capture: try capture?.openHandle("zmq_proxy_steerable"), control: control.openHandle("zmq_proxy_steerable")
        )
    }
}
