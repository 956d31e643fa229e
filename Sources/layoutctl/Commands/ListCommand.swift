import ArgumentParser
import LayoutClient

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the kept layouts with their versions, items and memory."
    )

    @ParentCommand private var root: Layoutctl
    private var options: GlobalOptions { root.options }

    func run() throws {
        try options.perform({ client throws(ClientError) in try client.list() }, summary: Summaries.list)
    }
}
