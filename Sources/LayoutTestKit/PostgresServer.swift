import Dispatch
import Foundation

/// A real PostgreSQL server of its own for one test, never a mock: `scripts/postgres start` makes a
/// throwaway cluster in a temporary folder, on 127.0.0.1 and a free port, and `stop` removes it when the
/// test lets go of this.
public final class PostgresServer: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    public let folder: String
    /// `postgres://layoutd@127.0.0.1:PORT/layoutd`, as the script prints it.
    public let url: String

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/postgres").path

    /// - Parameter tls: whether the server also takes TLS, with a self-signed certificate for the name
    ///   `localhost` (`certificatePath`).
    public init(tls: Bool = false) throws {
        // Failed, not skipped: a machine without PostgreSQL would otherwise pass without testing it.
        let installed = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard installed.contains(where: { FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/initdb") }) else {
            throw Failure(description: "PostgreSQL's server is not installed (no /usr/lib/postgresql/*/bin/initdb): run scripts/ensure-deps --tests")
        }
        let folder = NSTemporaryDirectory() + "layoutd-pg-" + UUID().uuidString
        self.folder = folder
        do {
            url = try Self.run("start", folder, environment: tls ? ["LAYOUTD_PG_TLS": "1"] : [:])
            guard url.hasPrefix("postgres://") else { throw Failure(description: "scripts/postgres start printed \"\(url)\", not a URL") }
        } catch {
            // deinit does not run for an object that failed to initialise: a server half started goes here.
            _ = try? Self.run("stop", folder)
            throw error
        }
    }

    deinit {
        _ = try? Self.run("stop", folder)
    }

    /// The server's certificate, when it was started with `tls`: the root a client verifying it trusts.
    public var certificatePath: String { folder + "/server.crt" }

    /// The URL of another database of the same server (made with `CREATE DATABASE` first).
    public func url(database: String, parameters: String = "") -> String {
        let base = url.hasSuffix("/layoutd") ? String(url.dropLast("layoutd".count)) : url + "/"
        return base + database + (parameters.isEmpty ? "" : "?" + parameters)
    }

    /// Stops the server and keeps its folder: `start` brings it back on the same port.
    public func halt() throws {
        _ = try Self.run("halt", folder)
    }

    public func start() throws {
        _ = try Self.run("start", folder)
    }

    /// Runs the script, bounded, and returns what it printed; its output goes through files, as the
    /// server it starts could otherwise hold a pipe open.
    private static func run(_ command: String, _ folder: String, environment: [String: String] = [:]) throws -> String {
        let output = folder + ".\(command).out"
        let errors = folder + ".\(command).err"
        guard FileManager.default.createFile(atPath: output, contents: nil), FileManager.default.createFile(atPath: errors, contents: nil) else {
            throw Failure(description: "cannot make \(output) for scripts/postgres's output")
        }
        defer {
            try? FileManager.default.removeItem(atPath: output)
            try? FileManager.default.removeItem(atPath: errors)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = [command, folder]
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: output)
        process.standardError = FileHandle(forWritingAtPath: errors)
        try process.run()
        let deadline = DispatchTime.now() + .seconds(45)
        while process.isRunning {
            guard DispatchTime.now() < deadline else {
                process.terminate()
                throw Failure(description: "scripts/postgres \(command) \(folder) did not finish within 45 s")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw Failure(description: "scripts/postgres \(command) \(folder) failed (\(process.terminationStatus)): \(said)")
        }
        return printed.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
