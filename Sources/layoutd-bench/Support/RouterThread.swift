import LayoutTestKit
import Dispatch
import Foundation
import Synchronization
import ZeroMQ

/// A ROUTER bound to a free loopback port and served on a thread of its own, made, used and closed
/// there (a socket belongs to one thread). The bench's reference servers (`EchoServer`, `WorkFloorServer`)
/// share it, so that they differ only in what they do with the requests waiting.
final class RouterThread: Sendable {
    let endpoint: String
    private let stopping = StopFlag()
    private let stopped = DispatchSemaphore(value: 0)

    /// Starts the thread and returns once the socket is bound.
    /// - Parameters:
    ///   - name: the thread's name, and the server's in a failure to bind.
    ///   - serveWaiting: called on the thread whenever the socket has something to receive.
    init(name: String, serveWaiting: @escaping @Sendable (Socket) -> Void) throws {
        let context = try Context()
        let bound = Mutex<Result<String, BenchFailure>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let stopping = self.stopping
        let stopped = self.stopped
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
                bound.withLock { $0 = .failure(BenchFailure("\(name) cannot bind: \(error)")) }
                ready.signal()
                return
            }
            var poller = Poller()
            poller.register(socket)
            while !stopping.value.load(ordering: .relaxed) {
                // A bounded wait, so a stop request is seen within 50 ms even when no client talks.
                guard let ready = try? poller.poll(timeout: .milliseconds(50)), !ready.isEmpty else { continue }
                serveWaiting(socket)
            }
            socket.close()
        }
        thread.name = name
        thread.start()
        ready.wait()
        endpoint = try bound.withLock { $0 ?? .failure(BenchFailure("\(name) did not start")) }.get()
    }

    /// Stops the thread and waits until its context is gone.
    func stop() {
        stopping.value.store(true, ordering: .relaxed)
        stopped.wait()
    }
}

/// Set once to stop the thread.
private final class StopFlag: Sendable {
    let value = Atomic<Bool>(false)
}
