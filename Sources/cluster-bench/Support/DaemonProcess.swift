import Foundation
import LayoutTestKit
import ZeroMQ

/// A single daemon as a process of its own (`layoutd`, no journal): the fair baseline for a worker
/// process's direct endpoint, which, like it, is a process apart from its clients. (A daemon in the
/// bench's own process shares its clients' process: no switch between processes on the way.)
final class DaemonProcess: ChildProcess {
    let frontEndpoint: String
    let process = Process()

    init(workers: Int, context: Context) throws {
        let layoutd = WorkerProcess.executable
        guard FileManager.default.isExecutableFile(atPath: layoutd.path) else {
            throw BenchFailure("\(layoutd.path) not found: build the layoutd product too (swift build -c release --product layoutd)")
        }
        // layoutd binds the ports it is given: take free ones from the kernel, as a test's daemon does.
        let ports = try (0..<3).map { _ in try Self.freeLoopbackEndpoint(context: context) }
        frontEndpoint = ports[0]
        process.executableURL = layoutd
        process.arguments = [
            "--front", ports[0], "--events", ports[1], "--stats", ports[2], "--http", "",
            "--journal", "none", "--workers", String(workers), "--log-level", "error",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Serving once it answers a ping; bounded, so a daemon that cannot start fails the bench.
        let probe = try Client(endpoint: frontEndpoint, context: context, timeoutMilliseconds: 30_000)
        defer { probe.close() }
        guard try probe.call(#"{"v":1,"id":"up","op":"ping"}"#).starts(with: Array(#"{"v":1,"id":"up","ok":true"#.utf8)) else {
            throw BenchFailure("the daemon process did not answer a ping")
        }
    }

    deinit {
        stop()
    }

    /// A loopback endpoint nothing listens on: bound by a socket here, then let go.
    private static func freeLoopbackEndpoint(context: Context) throws -> String {
        let socket = try Socket(.router, in: context)
        defer { socket.close() }
        try socket.bind("tcp://127.0.0.1:*")
        return try socket.lastEndpoint
    }
}
