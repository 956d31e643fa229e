import ArgumentParser
import LayoutClient

struct PingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ping", abstract: "Check that the daemon answers.")

    @ParentCommand private var root: Layoutctl
    private var options: GlobalOptions { root.options }

    func run() throws {
        let clock = ContinuousClock()
        var roundTrip = Duration.zero
        var answeredBy = ""
        try options.perform({ client throws(ClientError) in
            let start = clock.now
            let reply = try client.ping()
            roundTrip = clock.now - start
            // With several --front endpoints, the one that answered (after any failover).
            answeredBy = client.endpoint
            return reply
        }, summary: { Summaries.ping($0, endpoint: answeredBy, roundTrip: roundTrip) })
    }
}
