import Foundation
import LayoutServer
import LayoutTestKit

/// A real `layoutd` as a child process on free loopback ports, configured by flags and `LAYOUTD_*`
/// environment variables, its output kept in a log file (quoted when a test fails).
final class ChildDaemon {
    let process = Process()
    let front: String
    let events: String
    let stats: String
    /// The operations HTTP listener, `127.0.0.1:port`.
    let http: String
    let logURL: URL
    /// Where its journal lives; removed with it.
    let journalFolder: URL

    /// Starts it and waits until `/readyz` answers 200.
    init(executable: URL, settings: [String: String] = [:]) throws {
        let ports = try FreePorts.take(4)
        front = "tcp://127.0.0.1:\(ports[0])"
        events = "tcp://127.0.0.1:\(ports[1])"
        stats = "tcp://127.0.0.1:\(ports[2])"
        http = "127.0.0.1:\(ports[3])"
        logURL = FileManager.default.temporaryDirectory.appendingPathComponent("layoutd-soak-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: logURL.path, contents: nil) else { throw SoakFailure("cannot create \(logURL.path)") }
        let log = try FileHandle(forWritingTo: logURL)
        process.executableURL = executable
        process.arguments = ["--front", front, "--events", events, "--stats", stats, "--http", http, "--log-level", "warning"]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LAYOUTD_") }
        // The default journal (SQLite, async), as a user runs it, in a folder of its own.
        journalFolder = FileManager.default.temporaryDirectory.appendingPathComponent("layoutd-soak-\(UUID().uuidString)")
        environment["LAYOUTD_JOURNAL_URL"] = "sqlite:\(journalFolder.path)/layoutd.db"
        for (key, value) in settings { environment[key] = value }
        process.environment = environment
        process.standardOutput = log
        process.standardError = log
        try process.run()
        try waitUntilReady(timeout: .seconds(20))
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: logURL)
        try? FileManager.default.removeItem(at: journalFolder)
    }

    var processID: Int32 { process.processIdentifier }

    /// Resident memory and the rest, read from /proc.
    var usage: ProcessUsage? { ProcessUsage.of(processID: processID) }

    private func waitUntilReady(timeout: Duration) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw SoakFailure("layoutd exited at start: \(logTail())") }
            if let response = try? HTTPProbe.request("GET", "/readyz", at: http, timeoutSeconds: 1), response.status == 200 { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw SoakFailure("layoutd not ready within \(timeout): \(logTail())")
    }

    /// `/metrics`, as series → value.
    func metrics() throws -> [String: Double] {
        let response = try HTTPProbe.request("GET", "/metrics", at: http)
        guard response.status == 200 else { throw SoakFailure("/metrics answered \(response.status)") }
        var samples: [String: Double] = [:]
        for line in response.body.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    /// One series of `/metrics` (0 when absent: a counter never incremented is not exported).
    func metric(_ series: String) throws -> Double {
        try metrics()[series] ?? 0
    }

    /// SIGTERM, then waits up to `timeout` for the exit: its status, or nil if it did not exit (it is
    /// then killed).
    @discardableResult
    func terminate(waitingUpTo timeout: Duration) -> Int32? {
        kill(processID, SIGTERM)
        return waitForExit(timeout)
    }

    func waitForExit(_ timeout: Duration) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        guard !process.isRunning else {
            kill(processID, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The last lines the daemon logged.
    func logTail(lines: Int = 5) -> String {
        let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: " | ")
    }
}

/// Free loopback TCP ports: bound to port 0, read back, released (the daemon binds them a moment later).
enum FreePorts {
    static func take(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { for fd in sockets { close(fd) } }
        var ports: [Int] = []
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw SoakFailure("socket: errno \(errno)") }
            sockets.append(fd)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
                }
            }
            guard bound else { throw SoakFailure("bind: errno \(errno)") }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }
}

/// A test that could not run as intended.
struct SoakFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
