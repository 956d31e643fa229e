import ArgumentParser
import LayoutClient

struct PingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ping", abstract: "Check that the daemon answers.")

    @ParentCommand private var root: Layoutctl
    private var options: GlobalOptions { root.options }

    func run() throws {
        let clock = ContinuousClock()
        var roundTrip = Duration.zero
        try options.perform({ client throws(ClientError) in
            let start = clock.now
            let reply = try client.ping()
            roundTrip = clock.now - start
            return reply
        }, summary: { Summaries.ping($0, endpoint: options.frontEndpoint, roundTrip: roundTrip) })
    }
}
