import ArgumentParser
import LayoutClient

struct UpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Apply a batch of updates to a kept layout, all or nothing.",
        discussion: """
            The file holds the updates as a JSON array ([{"delete":[0,3]}, {"insert":[0,0],"item":{"height":80}}]) \
            or an object {"updates":[…], "ifVersion":4}. See examples/updates.
            """
    )

    @ParentCommand private var root: Layoutctl
    private var options: GlobalOptions { root.options }

    @Argument(help: "The layout's key.")
    var key: String

    @Argument(help: "The updates file, or - for standard input.")
    var updates: String

    @Option(help: "Apply only if the layout is at this version (overrides the file's ifVersion).")
    var ifVersion: Int?

    func run() throws {
        try options.perform({ client throws(ClientError) in
            let (updates, container) = try InputFile.objects(self.updates, key: "updates")
            let version = ifVersion ?? AnyJSONObject(container).int("ifVersion")
            return try client.update(key: key, updates: updates, ifVersion: version)
        }, summary: { Summaries.batch($0, verb: "updated", key: key) })
    }
}
