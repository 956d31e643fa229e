import ArgumentParser
import LayoutClient

struct BoundsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bounds", abstract: "Give a kept layout a new size (it is re-prepared if the size changed)."
    )

    @ParentCommand private var root: Layoutctl
    private var options: GlobalOptions { root.options }

    @Argument(help: "The layout's key.")
    var key: String

    @Argument(help: "The new width.")
    var width: Double

    @Argument(help: "The new height.")
    var height: Double

    func validate() throws {
        guard width.isFinite, height.isFinite else { throw ValidationError("width and height must be finite numbers") }
    }

    func run() throws {
        try options.perform({ client throws(ClientError) in
            try client.bounds(key: key, width: width, height: height)
        }, summary: { Summaries.bounds($0, key: key) })
    }
}
