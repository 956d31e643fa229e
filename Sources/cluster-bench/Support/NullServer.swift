import Foundation
import Synchronization
import LayoutTestKit
import ZeroMQ

/// The floor of a broker hop on this machine: a server that answers every request at once with a
/// canned success, reached directly and through libzmq's own proxy (`zmq_proxy_steerable`, ROUTER to
/// DEALER, no Swift code in its path). Whatever the relayed figures add over the direct ones is what any
/// ZeroMQ broker adds here before it does any work of its own: two more loopback transfers and the
/// thread wake-ups of two more processes' I/O threads.
enum NullServer {
    static let reply = Array(#"{"v":1,"id":1,"ok":true,"result":{}}"#.utf8)

    /// `cluster-bench --null-server`: binds a ROUTER on a free loopback port, prints its endpoint, then
    /// answers until killed.
    static func serve() throws -> Never {
        let context = try Context()
        let socket = try Socket(.router, in: context)
        try socket.bind("tcp://127.0.0.1:*")
        FileHandle.standardOutput.write(Data((try socket.lastEndpoint + "\n").utf8))
        while true {
            guard let frames = try socket.receiveMultipart(), frames.count >= 2 else { continue }
            _ = try socket.send(multipart: Array(frames.dropLast()) + [reply])
        }
    }
}

/// `cluster-bench --null-server` as a process of its own, like a worker process.
final class NullServerProcess {
    private let process = Process()
    let endpoint: String

    init() throws {
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--null-server"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line: [UInt8] = []
        while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        endpoint = String(decoding: line, as: UTF8.self)
        guard endpoint.hasPrefix("tcp://") else {
            stop()
            throw BenchFailure("the null server did not start")
        }
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

/// libzmq's proxy between a front ROUTER (bound here) and a DEALER to `backend`, on a thread of its own
/// that owns all of its sockets.
final class RelayProxy: Sendable {
    let frontEndpoint: String
    private let controlEndpoint: String
    private let context: Context
    private let finished = DispatchSemaphore(value: 0)

    init(to backend: String, context: Context) throws {
        self.context = context
        controlEndpoint = "inproc://cluster-bench-relay-\(UInt64.random(in: 0 ... .max))"
        let boundSignal = DispatchSemaphore(value: 0)
        let endpoint = Mutex<Result<String, BenchFailure>?>(nil)
        let control = controlEndpoint
        let finished = self.finished
        let thread = Thread {
            do {
                let front = try Socket(.router, in: context)
                let back = try Socket(.dealer, in: context)
                let controlSocket = try Socket(.pair, in: context)
                try front.bind("tcp://127.0.0.1:*")
                try back.connect(backend)
                try controlSocket.bind(control)
                let bound = try front.lastEndpoint
                endpoint.withLock { $0 = .success(bound) }
                boundSignal.signal()
                try? Proxy.runSteerable(frontend: front, backend: back, capture: nil, control: controlSocket)
                for socket in [front, back, controlSocket] { socket.close() }
            } catch {
                let failure = BenchFailure("relay proxy: \(error)")
                endpoint.withLock { $0 = .failure(failure) }
                boundSignal.signal()
            }
            finished.signal()
        }
        thread.start()
        boundSignal.wait()
        frontEndpoint = try (endpoint.withLock { $0 } ?? .failure(BenchFailure("relay proxy did not start"))).get()
    }

    func stop() {
        guard let socket = try? Socket(.pair, in: context) else { return }
        try? socket.connect(controlEndpoint)
        _ = try? socket.send(Array(Proxy.Command.terminate.rawValue.utf8))
        finished.wait()
        socket.close()
    }
}
