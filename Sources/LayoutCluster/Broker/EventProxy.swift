import Foundation
import LayoutServer
import Logging
import Synchronization
import ZeroMQ

/// The cluster's event stream: libzmq's own proxy (`zmq_proxy_steerable`) between an XSUB that every
/// worker's XPUB connects to and the client-facing XPUB, on a thread of its own. Events pass through
/// without Swift code in the path. A capture PUB shows the broker everything that passes (for stats and
/// evictions), and an inproc endpoint of the XSUB lets the broker publish its own `lost` events into
/// the same stream. With CURVE, `SecureEventForwarder` takes the proxy's place on the same sockets, so
/// that each subscriber receives its own namespace's events only.
final class EventProxy: Sendable {
    /// The client-facing XPUB's endpoint, and the workers' XSUB endpoint, as bound.
    let eventsEndpoint: String
    let eventsInEndpoint: String
    /// inproc endpoints the broker thread connects to.
    let captureEndpoint: String
    let controlEndpoint: String
    let internalPublishEndpoint: String
    private let finished = DispatchSemaphore(value: 0)

    /// Binds the proxy's sockets on a new thread and starts forwarding; returns once they are bound.
    /// With `access`, the events-in XSUB is a CURVE server admitting the workers' keys, and the events
    /// XPUB one admitting the clients', as the single daemon's.
    init(context: Context, eventsEndpoint: String, eventsInEndpoint: String, sendHighWaterMark: Int32, access: AccessControl?, logger: Logger) throws {
        let unique = UInt64.random(in: 0 ... .max)
        let captureEndpoint = "inproc://layoutd-broker-\(unique)-capture"
        let controlEndpoint = "inproc://layoutd-broker-\(unique)-control"
        let internalPublishEndpoint = "inproc://layoutd-broker-\(unique)-publish"
        let bound = Mutex<Result<(String, String), ServerError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let finished = self.finished
        let thread = Thread {
            defer { finished.signal() }
            let sockets: (xsub: Socket, xpub: Socket, capture: Socket, control: Socket)
            do {
                let xsub = try Socket(.xsub, in: context)
                let xpub = try Socket(.xpub, in: context)
                let capture = try Socket(.pub, in: context)
                let control = try Socket(.pair, in: context)
                for socket in [xsub, xpub, capture] {
                    try socket.set(.sendHighWaterMark, sendHighWaterMark)
                    try socket.set(.receiveHighWaterMark, sendHighWaterMark)
                }
                // inproc connections (the broker's own PUB) have no security handshake: only TCP peers are asked.
                if let access {
                    try ClusterCurve.secureEventsIn(xsub, with: access)
                    try AccessGate.secureEvents(xpub, with: access)
                }
                try xsub.bind(eventsInEndpoint)
                let inEndpoint = try xsub.lastEndpoint
                try xsub.bind(internalPublishEndpoint)
                // Every event comes to the broker, whoever subscribed: a worker's XPUB waits for this
                // subscription before it joins, so no event it publishes is dropped for want of a
                // subscriber, and subscribers meet only the single daemon's slow-joiner window (at the
                // broker's XPUB), never a second one at a worker.
                try xsub.send([1])
                try xpub.bind(eventsEndpoint)
                try capture.bind(captureEndpoint)
                try control.bind(controlEndpoint)
                sockets = (xsub, xpub, capture, control)
                let outEndpoint = (try? xpub.lastEndpoint) ?? eventsEndpoint
                bound.withLock { $0 = .success((outEndpoint, inEndpoint)) }
            } catch {
                bound.withLock { $0 = .failure(ServerError("cannot bind the events sockets: \(error)")) }
                ready.signal()
                return
            }
            ready.signal()
            do throws(ZeroMQError) {
                if let access {
                    try SecureEventForwarder(
                        xsub: sockets.xsub, xpub: sockets.xpub, capture: sockets.capture, control: sockets.control,
                        gate: AccessGate(access: access)
                    ).run()
                } else {
                    try Proxy.runSteerable(frontend: sockets.xsub, backend: sockets.xpub, capture: sockets.capture, control: sockets.control)
                }
            } catch {
                if error.code != .terminated { logger.error("event proxy stopped", metadata: ["error": "\(error)"]) }
            }
            // A short linger lets the last events leave.
            try? sockets.xpub.set(.linger, 1000)
            for socket in [sockets.xsub, sockets.xpub, sockets.capture, sockets.control] { socket.close() }
        }
        thread.name = "layoutd-events"
        thread.start()
        ready.wait()
        let endpoints = try bound.withLock { $0 ?? .failure(ServerError("the event proxy did not start")) }.get()
        self.eventsEndpoint = endpoints.0
        self.eventsInEndpoint = endpoints.1
        self.captureEndpoint = captureEndpoint
        self.controlEndpoint = controlEndpoint
        self.internalPublishEndpoint = internalPublishEndpoint
    }

    /// Waits until the proxy thread has closed its sockets (after TERMINATE on its control socket).
    func waitUntilFinished() {
        finished.wait()
    }
}
