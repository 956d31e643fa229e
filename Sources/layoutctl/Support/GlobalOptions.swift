import ArgumentParser
import LayoutClient

/// The options every subcommand takes: where the daemon is, how long to wait, how to print.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .customLong("front"),
        help: ArgumentHelp(
            "The daemon's front (request) endpoint, or a comma-separated list to fail over between, such as a cluster's "
                + "active and standby brokers: tcp://a:5555,tcp://b:5555. (default: \(LayoutClient.defaultEndpoint))",
            valueName: "endpoints"
        ),
        transform: ArgumentParsing.endpoints
    )
    var frontEndpoints = [LayoutClient.defaultEndpoint]

    @Option(name: .customLong("events"), help: "The daemon's events endpoint.")
    var eventsEndpoint = EventSubscriber.defaultEndpoint

    @Option(name: .customLong("stats"), help: "The daemon's stats endpoint.")
    var statsEndpoint = StatsClient.defaultEndpoint

    @Option(help: "Seconds to wait for a reply.")
    var timeout: Double = 5

    @Option(name: .customLong("secret-key"), help: "CURVE: this client's secret key file (from 'layoutctl keygen'). Needs --server-key.")
    var secretKeyFile: String?

    @Option(name: .customLong("server-key"), help: "CURVE: the daemon's public key file.")
    var serverKeyFile: String?

    @Flag(help: "Print the raw reply JSON (events: one body per line) instead of a summary.")
    var json = false

    @Option(
        name: .customLong("direct-reads"),
        help: ArgumentHelp(
            "auto: a query against a cluster's broker goes to the worker that owns the layout, when the broker names one "
                + "with a direct endpoint (anything in doubt goes to the broker); off: everything goes to --front.",
            valueName: "auto|off"
        ),
        transform: ArgumentParsing.directReads
    )
    var directReads: DirectReads = .automaticByKey

    func validate() throws {
        guard timeout.isFinite, timeout > 0 else { throw ValidationError("--timeout must be a positive number of seconds") }
        guard (secretKeyFile == nil) == (serverKeyFile == nil) else {
            throw ValidationError("--secret-key and --server-key go together: CURVE needs both")
        }
    }

    var replyTimeout: Duration { .seconds(timeout) }

    /// The CURVE keys from `--secret-key` and `--server-key`; nil without them.
    func curveCredentials() throws(ClientError) -> CurveCredentials? {
        guard let secretKeyFile, let serverKeyFile else { return nil }
        return try CurveCredentials(secretKeyFile: secretKeyFile, serverKeyFile: serverKeyFile)
    }

    func makeClient() throws(ClientError) -> LayoutClient {
        // A one-shot command reads a key or two: each key's route is asked for alone, not the whole table
        // (which, in a large cluster, would cost more than the reads it routes).
        try LayoutClient(endpoints: frontEndpoints, timeout: replyTimeout, curve: curveCredentials(), directReads: directReads)
    }
}
