import ArgumentParser
import LayoutClient

/// What a `layout` or `prepare` reply should carry.
struct JobOptions: ParsableArguments {
    @Option(
        name: .customLong("return"),
        parsing: .unconditional,
        help: "Attributes to return: none, all, or a rect x,y,w,h (default: the job's, else the op's).",
        transform: ArgumentParsing.returnedElements
    )
    var returning: ReturnedElements?

    @Option(help: "Attribute format: objects or columns.", transform: ArgumentParsing.format)
    var format: ReplyFormat?

    @Argument(help: "The job file (bounds, spec, sections; see examples/jobs), or - for standard input.")
    var job: String
}
