import LayoutTestKit
import Dispatch
import Foundation
import Synchronization
import ZeroMQ

/// The raw libzmq reference: a ROUTER on a thread of its own that sends every multipart message straight
/// back (envelope and body) as the `zmq_msg_t` it arrived in: no decoding, no worker hand-off, no copy.
/// It is what the daemon's transport would cost if the daemon did nothing.
final class EchoServer: Sendable {
    let endpoint: String
    private let stopping = StopFlag()
    private let stopped = DispatchSemaphore(value: 0)

    init() throws {
        let context = try Context()
        let bound = Mutex<Result<String, BenchFailure>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let stopping = self.stopping
        let stopped = self.stopped
        // The socket is made, used and closed on the echo thread: a socket belongs to one thread.
        let thread = Thread {
            defer {
                context.terminate()
                stopped.signal()
            }
            let socket: Socket
            do {
                socket = try Socket(.router, in: context)
                try socket.set(.sendHighWaterMark, 10_000)
                try socket.bind("tcp://127.0.0.1:*")
                let endpoint = try socket.lastEndpoint
                bound.withLock { $0 = .success(endpoint) }
                ready.signal()
            } catch {
                bound.withLock { $0 = .failure(BenchFailure("echo server cannot bind: \(error)")) }
                ready.signal()
                return
            }
            Self.serve(socket, until: stopping)
            socket.close()
        }
        thread.name = "echo-router"
        thread.start()
        ready.wait()
        endpoint = try bound.withLock { $0 ?? .failure(BenchFailure("echo server did not start")) }.get()
    }

    /// Stops the echo thread and waits until its context is gone.
    func stop() {
        stopping.value.store(true, ordering: .relaxed)
        stopped.wait()
    }

    private static func serve(_ socket: Socket, until stopping: StopFlag) {
        var poller = Poller()
        poller.register(socket)
        while !stopping.value.load(ordering: .relaxed) {
            // A bounded wait, so a stop request is seen within 50 ms even when no client talks.
            guard let ready = try? poller.poll(timeout: .milliseconds(50)), !ready.isEmpty else { continue }
            echoWaiting(on: socket)
        }
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

/// Set once to stop the echo thread.
private final class StopFlag: Sendable {
    let value = Atomic<Bool>(false)
}
