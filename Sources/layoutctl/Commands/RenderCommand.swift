import ArgumentParser
import Foundation
import LayoutClient
import LayoutRender

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Draw a layout as SVG: a job file laid out here, or a layout the daemon keeps.",
        discussion: """
            The argument is a job file when it is -, contains a / or ends in .json (examples/jobs/mosaic.json, \
            ./job); otherwise it is the key of a kept layout (--key reads any argument as a key). A job file is \
            decoded and laid out here, as the daemon's layout op would, with no daemon; a key is read from the \
            daemon with a query of --rect, or of every element.
            Cells, headers, footers and decorations each have their colour; elements are labelled with their \
            index (item, or section.item when the picture shows sections other than 0) where the label fits; \
            --rect is outlined. At most --limit elements are drawn: a larger layout needs --rect, and a rect \
            holding more is refused (exit status 64). Rules: examples/README.md, Pictures.
            """
    )

    @ParentCommand private var root: Layoutctl
    private var options: GlobalOptions { root.options }

    @Argument(help: "A job file (see examples/jobs), - for standard input, or the key of a kept layout.")
    var source: String

    @Flag(help: "Read the argument as a key, even if it contains a / or ends in .json.")
    var key = false

    @Option(parsing: .unconditional, help: "Draw only the elements overlapping x,y,w,h, and outline the rect.",
            transform: ArgumentParsing.rect)
    var rect: QueryRect?

    @Option(help: "Write the SVG to this file instead of standard output.")
    var out: String?

    @Option(help: "The width in px the layout is drawn at.")
    var width: Double = 800

    @Option(help: "The most elements a picture draws.")
    var limit = LayoutPicture.defaultLimit

    func validate() throws {
        guard width.isFinite, width >= 1, width <= 100_000 else { throw ValidationError("--width is from 1 to 100000 px") }
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1") }
        if let rect, rect.width < 0 || rect.height < 0 { throw ValidationError("--rect needs a width and height ≥ 0") }
    }

    func run() throws {
        let loading = PictureLoading(options: options, rect: rect, limit: limit)
        let picture = try loading.picture(of: PictureSource(source, forcingKey: key))
        let svg = picture.svg(style: PictureStyle(width: width))
        guard let out else {
            // The document ends with a newline already; `print` adds one.
            Console.print(String(svg.dropLast()))
            return
        }
        do {
            try Data(svg.utf8).write(to: URL(fileURLWithPath: out))
        } catch {
            throw Failure.report(.invalidInput("cannot write \(out): \(error.localizedDescription)"))
        }
    }
}
