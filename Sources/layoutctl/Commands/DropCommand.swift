import ArgumentParser
import LayoutClient

struct DropCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "drop", abstract: "Forget a kept layout.")

    @ParentCommand private var root: Layoutctl
    private var options: GlobalOptions { root.options }

    @Argument(help: "The layout's key.")
    var key: String

    func run() throws {
        try options.perform({ client throws(ClientError) in try client.drop(key: key) },
                            summary: { Summaries.drop($0, key: key) })
    }
}
