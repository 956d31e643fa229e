import Foundation
import ZeroMQ

/// The real `layoutd` executable, run as a child process on free loopback ports.
final class LayoutdProcess {
    let process = Process()
    let ports: [Int]

    var frontEndpoint: String { "tcp://127.0.0.1:\(ports[0])" }
    var eventsEndpoint: String { "tcp://127.0.0.1:\(ports[1])" }
    var statsEndpoint: String { "tcp://127.0.0.1:\(ports[2])" }

    /// Starts `layoutd` with its endpoints and `arguments`, with no journal unless `arguments` name one
    /// (its default file under the working directory would be shared by tests running side by side).
    /// - Parameter fileSizeLimit: a limit on the size of any file it writes (RLIMIT_FSIZE, SIGXFSZ
    ///   ignored), as a full disk makes writes fail; a soft limit, so anyone may raise it later with
    ///   `prlimit --pid`.
    /// - Parameter environment: variables added to the test's own (configuration, `LAYOUTD_*`).
    init(arguments: [String], fileSizeLimit: Int? = nil, environment: [String: String] = [:]) throws {
        ports = try (0..<3).map { _ in try Self.freePort() }
        let daemonArguments = [
            "--front", "tcp://127.0.0.1:\(ports[0])", "--events", "tcp://127.0.0.1:\(ports[1])",
            "--stats", "tcp://127.0.0.1:\(ports[2])", "--log-level", "warning",
        ] + (arguments.contains("--http") ? [] : ["--http", ""]) + (arguments.contains("--journal") ? [] : ["--journal", "none"]) + arguments
        if let fileSizeLimit {
            // The shell ignores SIGXFSZ and execs: an ignored signal stays ignored across exec, so a write
            // past the limit fails with EFBIG instead of killing the process.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "trap '' XFSZ; exec prlimit --fsize=\(fileSizeLimit):unlimited \"$0\" \"$@\"", try Self.executable().path] + daemonArguments
        } else {
            process.executableURL = try Self.executable()
            process.arguments = daemonArguments
        }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    static func executable() throws -> URL {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [here, here.deletingLastPathComponent(), URL(fileURLWithPath: ".build/debug")] {
            let url = candidate.appendingPathComponent("layoutd")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw TestFailure("layoutd executable not found next to \(here.path); build it first")
    }

    static func freePort() throws -> Int {
        let context = try Context()
        defer { context.terminate() }
        let probe = try Socket(.router, in: context)
        try probe.bind("tcp://127.0.0.1:*")
        let endpoint = try probe.lastEndpoint
        probe.close()
        return Int(endpoint.split(separator: ":").last ?? "0") ?? 0
    }
}
