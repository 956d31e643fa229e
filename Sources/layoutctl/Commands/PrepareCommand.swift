import ArgumentParser
import LayoutClient

struct PrepareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prepare", abstract: "Compute a job and keep it under a key for queries and updates."
    )

    @ParentCommand private var root: Layoutctl
    private var options: GlobalOptions { root.options }

    @Argument(help: "The key to keep the layout under.")
    var key: String

    @OptionGroup var job: JobOptions

    func run() throws {
        try options.perform({ client throws(ClientError) in
            try client.prepare(key: key, jobBytes: InputFile.bytes(job.job), returning: job.returning, format: job.format)
        }, summary: { Summaries.prepare($0, key: key) })
    }
}
