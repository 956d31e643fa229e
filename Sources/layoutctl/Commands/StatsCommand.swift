import ArgumentParser
import LayoutClient

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Print the daemon's counters (or, with --metrics, its Prometheus metrics)."
    )

    @ParentCommand private var root: Layoutctl
    private var options: GlobalOptions { root.options }

    @Flag(help: "Print the Prometheus text exposition instead.")
    var metrics = false

    func run() throws {
        do {
            let client = try StatsClient(endpoint: options.statsEndpoint, timeout: options.replyTimeout, curve: options.curveCredentials())
            if metrics {
                let text = try client.metrics()
                Console.print(text.hasSuffix("\n") ? String(text.dropLast()) : text)
            } else if options.json {
                Console.print(bytes: try client.request("stats"))
            } else {
                Console.print(StatsSummary.lines(try client.stats()).joined(separator: "\n"))
            }
        } catch {
            throw Failure.report(error)
        }
    }
}
