import Dispatch
import Foundation
import Logging
import NIOCore
import ZeroMQ

/// The console's way to its own process: one thread that owns a DEALER on the front, a DEALER on the
/// stats socket and a SUB on the events socket, and speaks PROTOCOL.md to them as any client does.
///
/// NIO's event-loop threads never touch these sockets: they post asks to the mailbox (which wakes the
/// thread through its pipe) and get their answers through promises; events reach a stream's channel
/// through its event loop. So a broker's console sees the whole cluster, with the front's limits.
final class ConsoleGateway: Sendable {
    enum Ask: Sendable {
        /// A protocol body for the front; the promise gets the reply body.
        case front([UInt8], EventLoopPromise<[UInt8]>)
        /// `stats`; the promise gets the bare stats object.
        case stats(EventLoopPromise<[UInt8]>)
        case open(ConsoleStream)
        case close(ConsoleStream)
        case stop
    }

    /// Why an ask got no reply.
    struct Failure: Error, Sendable {
        var message: String
    }

    private let mailbox: Mailbox<Ask>
    private let finished = DispatchSemaphore(value: 0)
    /// Asks awaiting a reply at once; more are refused at once (the front is never flooded by the console).
    static let maxPending = 256

    init(endpoints: ConsoleEndpoints, timeout: Duration, logger: Logger) throws {
        let mailbox = try Mailbox<Ask>()
        self.mailbox = mailbox
        let context = try Context()
        let sockets = try ConsoleSockets(context: context, endpoints: endpoints)
        let finished = self.finished
        let thread = Thread {
            var loop = ConsoleGatewayLoop(sockets: sockets, mailbox: mailbox, timeout: timeout, topicPrefix: endpoints.curve?.clientKeys.publicKey.z85 ?? "", logger: logger)
            loop.run()
            sockets.close()
            context.terminate()
            finished.signal()
        }
        thread.name = "layoutd-console"
        thread.start()
    }

    func post(_ ask: Ask) {
        mailbox.post(ask)
    }

    /// Stops the thread, failing what is still pending, and waits for it.
    func stop() {
        mailbox.post(.stop)
        finished.wait()
    }
}

/// The gateway's three sockets, made and connected on the starting thread, then used by the gateway's
/// thread alone.
final class ConsoleSockets: @unchecked Sendable {
    let front: Socket
    let stats: Socket
    let events: Socket

    init(context: Context, endpoints: ConsoleEndpoints) throws {
        front = try Socket(.dealer, in: context)
        stats = try Socket(.dealer, in: context)
        events = try Socket(.sub, in: context)
        for socket in [front, stats, events] {
            try socket.set(.linger, 0)
            if let curve = endpoints.curve {
                try socket.makeCurveClient(keys: curve.clientKeys, serverKey: curve.serverPublicKey)
            }
        }
        try front.connect(endpoints.front)
        try stats.connect(endpoints.stats)
        try events.connect(endpoints.events)
    }

    func close() {
        front.close()
        stats.close()
        events.close()
    }
}
