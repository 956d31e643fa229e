import Foundation
import LayoutTestKit

/// The web console's HTTP gateway under hostile clients: the HTTP fuzzer (scripts/fuzz_http.py, docs/FUZZING.md)
/// for a fixed time and seed, against this suite's layoutd. It starts its own daemons (read-only, then with
/// console.allowChanges) and holds them to its oracles: every request answered within a bound with the
/// protocol's error body where it is refused, slow clients closed, the front answering ping, resident memory
/// and descriptors bounded, exit 0 on SIGTERM.
struct HTTPGateway {
    let plan: SoakPlan
    let executable: URL

    /// The same seed every run, so that a failure here is the fuzzer's run to repeat.
    static let seed = 35

    func run(into report: inout TestReport) throws {
        let script = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("scripts/fuzz_http.py")
        guard FileManager.default.fileExists(atPath: script.path) else {
            throw SoakFailure("no \(script.path): run from the repository's root (scripts/soak does)")
        }
        let artifacts = FileManager.default.temporaryDirectory.appendingPathComponent("layoutd-soak-http-\(UUID().uuidString)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "--layoutd", executable.path, "--seconds", String(plan.httpSeconds),
                             "--seed", String(Self.seed), "--artifacts", artifacts.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let lines = text.split(separator: "\n")
        guard let line = lines.last(where: { $0.hasPrefix("{") }),
              let summary = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw SoakFailure("the HTTP fuzzer printed no summary (status \(process.terminationStatus)): \(lines.suffix(5).joined(separator: " | "))")
        }
        for key in ["requests", "connections", "slow_clients", "streams", "never_read", "findings", "pings"] {
            report.add(key, (summary[key] as? Int) ?? 0)
        }
        report.add("max_rss_mb", figure: summary["max_rss_mb"] as? Double)
        report.add("max_fds", (summary["max_fds"] as? Int) ?? 0)
        report.expect(process.terminationStatus == 0, "the HTTP fuzzer exited \(process.terminationStatus): "
            + lines.filter { $0.hasPrefix("http-fuzz: FOUND") }.prefix(3).joined(separator: " | ") + " (inputs in \(artifacts.path))")
        if process.terminationStatus == 0 { try? FileManager.default.removeItem(at: artifacts) }
    }
}
