import Foundation

/// A `layoutd` process whose stderr goes to a file (shown when a test fails), killed when released.
final class LoggedNode {
    let process = Process()
    let log: String

    init(_ arguments: [String], environment: [String: String], log: String) throws {
        self.log = log
        process.executableURL = try layoutdExecutable()
        process.arguments = arguments + ["--log-level", "notice"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var output: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
}
