import ArgumentParser
import LayoutClient

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Print the elements of a kept layout in a rect, at index paths, or of a supplementary kind."
    )

    @ParentCommand private var root: Layoutctl
    private var options: GlobalOptions { root.options }

    @Argument(help: "The layout's key.")
    var key: String

    @Option(parsing: .unconditional, help: "The elements overlapping x,y,w,h.", transform: ArgumentParsing.rect)
    var rect: QueryRect?

    @Option(name: .customLong("item"), help: "The cell at section,item (repeatable).", transform: ArgumentParsing.item)
    var items: [ItemLocation] = []

    @Option(help: "The supplementary elements (of every section, or of --sections): header, footer or decoration.",
            transform: ArgumentParsing.supplementaryKind)
    var supplementary: SupplementaryKind?

    @Option(help: "Only these sections for --supplementary, such as 0,1.", transform: { try ArgumentParsing.integers($0) })
    var sections: [Int]?

    @Option(help: "Attribute format: objects or columns.", transform: ArgumentParsing.format)
    var format: ReplyFormat?

    @Option(help: "Another client's namespace (an admin key of a daemon with CURVE only).")
    var namespace: String?

    func validate() throws {
        let selectors = [rect != nil, !items.isEmpty, supplementary != nil].filter { $0 }.count
        guard selectors == 1 else { throw ValidationError("give exactly one of --rect, --item, --supplementary") }
        if sections != nil, supplementary == nil { throw ValidationError("--sections goes with --supplementary") }
    }

    func run() throws {
        try options.perform({ client throws(ClientError) in
            if let rect { return try client.query(key: key, rect: rect, format: format, namespace: namespace) }
            if let supplementary {
                return try client.query(key: key, supplementary: supplementary, sections: sections, format: format, namespace: namespace)
            }
            return try client.query(key: key, items: items, format: format, namespace: namespace)
        }, summary: { Summaries.query($0, key: key) })
    }
}
