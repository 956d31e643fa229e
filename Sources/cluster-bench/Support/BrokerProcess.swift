import Foundation
import LayoutJournal
import LayoutTestKit
import Synchronization

/// A `layoutd` child process (the one built next to this executable), its stderr in `log`.
final class LayoutdChild: ChildProcess {
    let process = Process()
    let log: String

    init(arguments: [String], environment: [String: String], log: String) throws {
        let layoutd = WorkerProcess.executable
        guard FileManager.default.isExecutableFile(atPath: layoutd.path) else {
            throw BenchFailure("\(layoutd.path) not found: build the layoutd product too (swift build -c release --product layoutd)")
        }
        self.log = log
        process.executableURL = layoutd
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
    }

    deinit {
        stop()
    }
}

/// `layoutd --role broker` as a process of its own, on free loopback ports (its events intake at its
/// back port + 1, where workers look for it by default, given explicitly all the same).
final class BrokerProcess {
    let front: String
    let back: String
    let eventsIn: String
    private let child: LayoutdChild
    var log: String { child.log }

    init(environment: [String: String], log: String) throws {
        let ports = try (0..<5).map { _ in try Self.freePort() }
        front = "tcp://127.0.0.1:\(ports[0])"
        back = "tcp://127.0.0.1:\(ports[3])"
        eventsIn = "tcp://127.0.0.1:\(ports[4])"
        child = try LayoutdChild(
            arguments: [
                "--role", "broker", "--front", front, "--events", "tcp://127.0.0.1:\(ports[1])", "--stats", "tcp://127.0.0.1:\(ports[2])",
                "--back", back, "--events-in", eventsIn, "--http", "", "--log-level", "notice",
            ],
            environment: environment, log: log
        )
    }

    func kill9() { child.kill9() }
    func stop() { child.stop() }

    /// A loopback port nothing listens on: bound here, then let go.
    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw BenchFailure("socket() failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw BenchFailure("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Watches the lease row on a thread of its own from a kill on: when another broker's holder appears.
final class LeaseWatch: Sendable {
    private let lease: BrokerLease
    private let taken = Mutex<Duration?>(nil)
    private let stopped = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)

    init(url: String, ttlMillis: Int) throws {
        lease = try BrokerLease(url: url, holder: "cluster-bench", ttlMillis: ttlMillis)
    }

    func start(from killed: ContinuousClock.Instant) {
        let before = lease.currentHolder()
        let thread = Thread { [self] in
            defer { finished.store(true, ordering: .releasing) }
            while !stopped.load(ordering: .relaxed) {
                // A different holder, or the same name at a new front: the row names each broker by its front.
                if let holder = lease.currentHolder(), holder != before {
                    taken.withLock { $0 = killed.duration(to: .now) }
                    return
                }
                Thread.sleep(forTimeInterval: 0.002)
            }
        }
        thread.start()
    }

    /// Stops watching: when the lease was seen taken, from the kill.
    func stop() -> Duration? {
        stopped.store(true, ordering: .relaxed)
        while !finished.load(ordering: .acquiring) { Thread.sleep(forTimeInterval: 0.001) }
        return taken.withLock { $0 }
    }
}
