import Foundation
import Testing
import ZeroMQ

/// The built `layoutd` executable, found next to the test bundle.
func layoutdExecutable() throws -> URL {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for candidate in [here, here.deletingLastPathComponent(), URL(fileURLWithPath: ".build/debug")] {
        let url = candidate.appendingPathComponent("layoutd")
        if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    throw TestFailure("layoutd executable not found next to \(here.path); build it first")
}

/// A loopback port nothing listens on (bound and released; a test reuses it at once).
func freePort() throws -> Int {
    let context = try Context()
    defer { context.terminate() }
    let probe = try Socket(.router, in: context)
    try probe.bind("tcp://127.0.0.1:*")
    let endpoint = try probe.lastEndpoint
    probe.close()
    return Int(endpoint.split(separator: ":").last ?? "0") ?? 0
}

/// Whether a loopback port can be bound now.
func portIsFree(_ port: Int) throws -> Bool {
    let context = try Context()
    defer { context.terminate() }
    let probe = try Socket(.router, in: context)
    defer { probe.close() }
    return (try? probe.bind("tcp://127.0.0.1:\(port)")) != nil
}

/// A broker and workers as real `layoutd` processes on loopback ports, for the tests that kill them.
/// Everything still running is killed when it goes.
final class ProcessCluster {
    let front: String, events: String, stats: String, back: String, eventsIn: String
    private let executable: URL
    private(set) var broker: Process?
    private(set) var workers: [String: Process] = [:]
    let context: Context
    private let logDirectory: URL
    /// Settings the broker gets from its environment (`LAYOUTD_CLUSTER_…`).
    private let brokerEnvironment: [String: String]

    /// Whether the events intake is left to the rule both roles follow (the back port + 1): neither the
    /// broker nor the workers are told it.
    private let derivesEventsIn: Bool
    /// Settings the workers get from their environment.
    private let workerEnvironment: [String: String]

    /// A limit on the size of any file the broker writes (RLIMIT_FSIZE, soft, SIGXFSZ ignored): its
    /// journal meets a full disk; `raiseBrokerFileSizeLimit` gives it room again.
    private let brokerFileSizeLimit: Int?

    init(workers count: Int, brokerEnvironment: [String: String] = [:], workerEnvironment: [String: String] = [:], derivesEventsIn: Bool = false, brokerFileSizeLimit: Int? = nil) throws {
        self.brokerFileSizeLimit = brokerFileSizeLimit
        self.brokerEnvironment = brokerEnvironment
        self.workerEnvironment = workerEnvironment
        self.derivesEventsIn = derivesEventsIn
        executable = try layoutdExecutable()
        var ports = try (0..<5).map { _ in try freePort() }
        if derivesEventsIn {
            // A back port whose successor is free too.
            for _ in 0..<50 where try !portIsFree(ports[3] + 1) { ports[3] = try freePort() }
            ports[4] = ports[3] + 1
        }
        front = "tcp://127.0.0.1:\(ports[0])"
        events = "tcp://127.0.0.1:\(ports[1])"
        stats = "tcp://127.0.0.1:\(ports[2])"
        back = "tcp://127.0.0.1:\(ports[3])"
        eventsIn = "tcp://127.0.0.1:\(ports[4])"
        context = try Context()
        logDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("layoutd-cluster-test-\(ports[0])")
        try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
        try startBroker()
        for index in 0..<count { try startWorker("worker-\(index)") }
        try waitForWorkers(alive: count)
    }

    deinit {
        for process in [broker].compactMap({ $0 }) + Array(workers.values) where process.isRunning {
            kill(process.processIdentifier, SIGCONT)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        context.terminate()
        try? FileManager.default.removeItem(at: logDirectory)
    }

    private func launch(_ name: String, _ arguments: [String], environment: [String: String] = [:], fileSizeLimit: Int? = nil) throws -> Process {
        let process = Process()
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        if let fileSizeLimit {
            // An ignored signal stays ignored across exec: a write past the limit fails (EFBIG), as on a full disk.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "trap '' XFSZ; exec prlimit --fsize=\(fileSizeLimit):unlimited \"$0\" \"$@\"", executable.path] + arguments + ["--log-level", "warning"]
        } else {
            process.executableURL = executable
            process.arguments = arguments + ["--log-level", "warning"]
        }
        process.standardOutput = FileHandle.nullDevice
        let log = logDirectory.appendingPathComponent("\(name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        return process
    }

    func startBroker() throws {
        broker = try launch("broker", [
            "--role", "broker", "--front", front, "--events", events, "--stats", stats, "--back", back,
            // No HTTP listener: its default port would collide between tests.
            "--http", "",
        ] + (derivesEventsIn ? [] : ["--events-in", eventsIn]), environment: [
            // No journal unless a test gives one: its default file would be shared by tests side by side.
            "LAYOUTD_CLUSTER_REJOIN_MILLIS": "0", "LAYOUTD_JOURNAL_URL": "none",
        ].merging(brokerEnvironment) { $1 }, fileSizeLimit: brokerFileSizeLimit)
        // Serving once its stats socket answers.
        for _ in 0..<200 {
            if (try? statsOnce(timeout: 100)) != nil { return }
        }
        throw TestFailure("the broker did not start")
    }

    /// Starts a worker; `through` joins it by another endpoint that leads to the back socket (a relay).
    func startWorker(_ name: String, through joinEndpoint: String? = nil) throws {
        workers[name] = try launch(name, [
            "--role", "worker", "--join", joinEndpoint ?? back, "--worker-id", name, "--workers", "2",
        ] + (derivesEventsIn ? [] : ["--join-events", eventsIn]), environment: workerEnvironment)
    }

    func signal(worker name: String, _ signal: Int32) {
        guard let process = workers[name] else { return }
        kill(process.processIdentifier, signal)
        if signal == SIGKILL { process.waitUntilExit() }
    }

    /// Room again for the broker's files (see `brokerFileSizeLimit`).
    func raiseBrokerFileSizeLimit() throws {
        guard let broker else { return }
        let raise = Process()
        raise.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        raise.arguments = ["--pid", "\(broker.processIdentifier)", "--fsize=unlimited"]
        try raise.run()
        raise.waitUntilExit()
    }

    /// Sends `signal` to the broker (SIGSTOP pauses it: its workers hear nothing, and it sends nothing).
    func signalBroker(_ signal: Int32) {
        guard let broker else { return }
        kill(broker.processIdentifier, signal)
    }

    func killBroker() {
        guard let broker else { return }
        kill(broker.processIdentifier, SIGKILL)
        broker.waitUntilExit()
    }

    private func statsOnce(timeout: Int32) throws -> [String: Any] {
        let socket = try Socket(.req, in: context)
        try socket.set(.receiveTimeout, timeout)
        try socket.connect(stats)
        defer { socket.close() }
        _ = try socket.send("stats")
        guard let reply = try socket.receiveBytes() else { throw TestFailure("no stats reply") }
        return try TestDaemon.object(reply)
    }

    func brokerStats() throws -> [String: Any] {
        try statsOnce(timeout: 5_000)
    }

    /// The broker's Prometheus text.
    func brokerMetrics() throws -> String {
        let socket = try Socket(.req, in: context)
        try socket.set(.receiveTimeout, 5_000)
        try socket.connect(stats)
        defer { socket.close() }
        _ = try socket.send("metrics")
        guard let reply = try socket.receiveString() else { throw TestFailure("no metrics reply") }
        return reply
    }

    /// The broker's view of each worker: name → (state, keys).
    func workerStates() throws -> [(name: String, state: String, keys: Int)] {
        let workers = ((try brokerStats()["cluster"] as? [String: Any])?["workers"] as? [[String: Any]]) ?? []
        return workers.map { ($0["id"] as? String ?? "", $0["state"] as? String ?? "", $0["keys"] as? Int ?? 0) }
    }

    func waitForWorkers(alive count: Int, within seconds: Double = 20) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let totals = ((try? brokerStats())?["cluster"] as? [String: Any])?["totals"] as? [String: Any]
            if totals?["alive"] as? Int == count { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw TestFailure("\(count) workers never were alive at once")
    }

    func dealer() throws -> Socket {
        let socket = try Socket(.dealer, in: context)
        try socket.set(.receiveTimeout, 15_000)
        try socket.connect(front)
        return socket
    }

    /// One request on `socket` (or a new DEALER): the reply's bytes.
    func callBytes(_ body: String, on socket: Socket? = nil) throws -> [UInt8] {
        let dealer = try socket ?? self.dealer()
        _ = try dealer.send(multipart: [[], Array(body.utf8)])
        guard let frames = try dealer.receiveMultipart() else { throw TestFailure("no reply to \(body.prefix(120))") }
        return frames[frames.count - 1]
    }

    func call(_ body: String, on socket: Socket? = nil) throws -> [String: Any] {
        try TestDaemon.object(try callBytes(body, on: socket))
    }
}
