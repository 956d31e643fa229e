import LayoutCluster
import ZeroMQ
@testable import LayoutServer

/// A fake broker's sockets for driving a real worker over the real worker protocol: the back ROUTER it
/// joins and the events XSUB it publishes to (subscribed to everything, as a broker's proxy is, so the
/// worker sends READY), and the worker's settings pointing at them.
struct FakeBrokerSockets {
    let back: Socket
    let eventsIn: Socket
    var configuration: ServerConfiguration
    var cluster: ClusterConfiguration

    init(in context: Context, backReceiveTimeout: Int32) throws {
        back = try Socket(.router, in: context)
        try back.set(.receiveTimeout, backReceiveTimeout)
        try back.bind("tcp://127.0.0.1:*")
        eventsIn = try Socket(.xsub, in: context)
        try eventsIn.bind("tcp://127.0.0.1:*")
        _ = try eventsIn.send([0x01])
        configuration = ServerConfiguration()
        configuration.useFreeLoopbackPorts()
        configuration.workers = 2
        cluster = ClusterConfiguration()
        cluster.role = .worker
        cluster.joinEndpoint = try back.lastEndpoint
        cluster.joinEventsEndpoint = try eventsIn.lastEndpoint
        cluster.workerID = "w"
    }

    /// The next message from the worker that `wanted` accepts (others are skipped), within 30 s.
    /// libzmq attaches a socket's new connections when its owner calls into it: the XSUB is touched
    /// between short waits on the back socket, as a broker's proxy thread would.
    func receive(where wanted: ([[UInt8]]) -> Bool = { _ in true }) throws -> [[UInt8]] {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            _ = try? eventsIn.receiveBytes(flags: .dontWait)
            if let frames = try back.receiveMultipart(), wanted(frames) { return frames }
        }
        throw TestFailure("nothing wanted from the worker within 30 s")
    }
}
