import ArgumentParser
import LayoutClient

/// `layoutctl`: talks to a running layoutd from the command line.
@main
struct Layoutctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layoutctl",
        abstract: "Submit, query and update layouts on a running layoutd; watch its events and stats; draw layouts.",
        discussion: """
            Job files are the JSON of PROTOCOL.md without op and id (see examples/jobs); '-' reads standard input.
            Several --front endpoints (comma-separated): a request that gets no reply within --timeout, or a \
            standby broker's answer, moves to the next, going round the list at most \(FailoverPolicy().rounds) \
            times. A ping, layout, query or list is sent again there; a change only with an ifVersion (update \
            --if-version, or one in the file), so that it is never applied twice: without one it fails (exit \
            status 2) saying it may or may not have been applied.
            Exit status: 0 on success, 1 when the daemon answered with an error (render: also an invalid job \
            file), 2 when no answer came, the input could not be read or render's output not written, 64 for \
            usage errors (render: also a picture over --limit).
            """,
        subcommands: [
            PingCommand.self, LayoutCommand.self, PrepareCommand.self, QueryCommand.self, BoundsCommand.self,
            UpdateCommand.self, DiffCommand.self, DropCommand.self, ListCommand.self, WatchCommand.self,
            StatsCommand.self, RenderCommand.self, KeygenCommand.self,
        ]
    )

    /// Options for every subcommand, given before or after its name.
    @OptionGroup var options: GlobalOptions
}
