import Logging
import NIOCore
import Synchronization

/// What the console needs at the listener: its settings, where its gateway reaches the process, and
/// whether CURVE is on. Given to `OperationsRoutes` by the process that serves a console.
public struct ConsoleSetup: Sendable {
    public var settings: ConsoleSettings
    public var endpoints: ConsoleEndpoints
    public var isCurveOn: Bool
    /// The front's `limits.maxMessageBytes`: the gateway never reads a larger body.
    public var maxMessageBytes: Int64

    public init(settings: ConsoleSettings, endpoints: ConsoleEndpoints, isCurveOn: Bool, maxMessageBytes: Int64) {
        self.settings = settings
        self.endpoints = endpoints
        self.isCurveOn = isCurveOn
        self.maxMessageBytes = maxMessageBytes
    }
}

/// A running console: its rules, its gateway thread and its count of open streams; shared by the
/// listener's connections.
final class ConsoleService: Sendable {
    let api: ConsoleAPI
    let gateway: ConsoleGateway
    let maxBodyBytes: Int
    let timeout: Duration
    private let openStreams = Atomic<Int>(0)
    private let maxStreams: Int

    init(setup: ConsoleSetup, logger: Logger) throws {
        api = ConsoleAPI(settings: setup.settings, isCurveOn: setup.isCurveOn)
        gateway = try ConsoleGateway(endpoints: setup.endpoints, timeout: setup.settings.timeout, logger: logger)
        maxBodyBytes = Int(min(Int64(setup.settings.maxBodyBytes), setup.maxMessageBytes))
        timeout = setup.settings.timeout
        maxStreams = setup.settings.maxStreams
    }

    /// Takes a place for a stream; false when all are taken.
    func reserveStream() -> Bool {
        if openStreams.add(1, ordering: .relaxed).newValue <= maxStreams { return true }
        openStreams.subtract(1, ordering: .relaxed)
        return false
    }

    func releaseStream() {
        openStreams.subtract(1, ordering: .relaxed)
    }

    func stop() {
        gateway.stop()
    }
}
