import LayoutTestKit
import ZeroMQ

/// The raw libzmq reference: a ROUTER on a thread of its own that sends every multipart message straight
/// back (envelope and body) as the `zmq_msg_t` it arrived in: no decoding, no worker hand-off, no copy.
/// It is what the daemon's transport would cost if the daemon did nothing.
final class EchoServer: Sendable {
    private let thread: RouterThread

    var endpoint: String { thread.endpoint }

    init() throws {
        thread = try RouterThread(name: "echo-router") { Self.echoWaiting(on: $0) }
    }

    /// Stops the echo thread and waits until its context is gone.
    func stop() {
        thread.stop()
    }

    /// Sends back everything waiting, a bounded batch at a time as the daemon's I/O loop drains its
    /// front socket. Each frame goes back as the `zmq_msg_t` it came in: no copy.
    private static func echoWaiting(on socket: Socket) {
        for _ in 0..<256 {
            do {
                guard var frame = try socket.receive(flags: .dontWait) else { return }
                while true {
                    let more = frame.more
                    _ = try socket.send(frame, flags: more ? [.dontWait, .sendMore] : .dontWait)
                    guard more else { break }
                    // The rest of a multipart message is already there: libzmq delivers it whole.
                    guard let next = try socket.receive() else { return }
                    frame = next
                }
            } catch {
                return
            }
        }
    }
}
