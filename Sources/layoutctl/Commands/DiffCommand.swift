import ArgumentParser
import LayoutClient

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Give a kept layout new contents by item identity; the daemon works out and applies the batch.",
        discussion: """
            The file holds the new sections as a JSON array ([{"ids":["a","b"],"heights":[80,120]}]) or an \
            object {"sections":[…]}. See examples/updates.
            """
    )

    @ParentCommand private var root: Layoutctl
    private var options: GlobalOptions { root.options }

    @Argument(help: "The layout's key.")
    var key: String

    @Argument(help: "The sections file, or - for standard input.")
    var sections: String

    func run() throws {
        try options.perform({ client throws(ClientError) in
            try client.diff(key: key, sections: InputFile.objects(sections, key: "sections").objects)
        }, summary: { Summaries.batch($0, verb: "diff", key: key) })
    }
}
