import LayoutServer
import LayoutTestKit
import ZeroMQ

/// The work floor: the echo's ROUTER (`RouterThread`: same thread, socket options and poll), which for
/// every request does exactly the request's own work as the daemon does it, and nothing else: the body
/// decoded and answered by the daemon's own code (`InlineAnswerer`), the reply sent behind the request's
/// envelope. No pool, stats, mailbox, metrics or other sockets.
///
/// Why: its rate is the ceiling of any daemon doing this work on one thread on this machine. The raw
/// echo's rate over it is what the work costs; its rate over the daemon's is what the daemon's own
/// machinery costs.
final class WorkFloorServer: Sendable {
    private let thread: RouterThread
    /// The floor's store and answers; a `prepare` run through it before measuring sets up a query's layout.
    let answerer: InlineAnswerer

    var endpoint: String { thread.endpoint }

    init() throws {
        let answerer = InlineAnswerer()
        self.answerer = answerer
        thread = try RouterThread(name: "floor-router") { Self.answerWaiting(on: $0, with: answerer) }
    }

    /// Stops the floor's thread and waits until its context is gone.
    func stop() {
        thread.stop()
    }

    /// Answers everything waiting, a batch at a time as the echo does. The envelope (routing id and
    /// delimiter) goes back frame by frame as the `zmq_msg_t` it came in, as the echo sends it; the last
    /// frame is the body (the bench sends no attachments), and its reply ends the message.
    private static func answerWaiting(on socket: Socket, with answerer: InlineAnswerer) {
        for _ in 0..<256 {
            do {
                guard var frame = try socket.receive(flags: .dontWait) else { return }
                while frame.more {
                    _ = try socket.send(frame, flags: [.dontWait, .sendMore])
                    // The rest of a multipart message is already there: libzmq delivers it whole.
                    frame = try socket.receiveFollowingFrame()
                }
                if let reply = answerer.answer(RequestBody(frame)) {
                    _ = try reply.send(on: socket, flags: .dontWait)
                } else {
                    // Not a request the daemon answers inline: an empty body, which the bench's check
                    // refuses, rather than work the floor is not meant to measure.
                    _ = try socket.send([UInt8](), flags: .dontWait)
                }
            } catch {
                return
            }
        }
    }
}
