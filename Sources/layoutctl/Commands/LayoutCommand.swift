import ArgumentParser
import LayoutClient

struct LayoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layout", abstract: "Compute a job without keeping it, and print its attributes."
    )

    @ParentCommand private var root: Layoutctl
    private var options: GlobalOptions { root.options }
    @OptionGroup var job: JobOptions

    func run() throws {
        try options.perform({ client throws(ClientError) in
            try client.layout(jobBytes: InputFile.bytes(job.job), returning: job.returning, format: job.format)
        }, summary: Summaries.layout)
    }
}
