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

    @Flag(help: "With --rect, the visible bounds: pin each section's header to its top.")
    var pinHeaders = false

    @Flag(help: "With --rect, the visible bounds: pin each section's footer to its bottom.")
    var pinFooters = false

    @Option(parsing: .unconditional, help: "With --rect and --touch: displace the cells as seed 004's springs do for this scroll delta.")
    var scrollDelta: Double?

    @Option(parsing: .unconditional, help: "The touch x,y in content coordinates for --scroll-delta (0,0 moves nothing).", transform: ArgumentParsing.point)
    var touch: (x: Double, y: Double)?

    @Option(help: "The scroll resistance for --scroll-delta (default 1500).")
    var resistance: Double?

    @Option(help: "Another client's namespace (an admin key of a daemon with CURVE only).")
    var namespace: String?

    func validate() throws {
        let selectors = [rect != nil, !items.isEmpty, supplementary != nil].filter { $0 }.count
        guard selectors == 1 else { throw ValidationError("give exactly one of --rect, --item, --supplementary") }
        if sections != nil, supplementary == nil { throw ValidationError("--sections goes with --supplementary") }
        if rect == nil, pinHeaders || pinFooters || scrollDelta != nil {
            throw ValidationError("--pin-headers, --pin-footers and --scroll-delta go with --rect")
        }
        if (scrollDelta == nil) != (touch == nil) { throw ValidationError("--scroll-delta and --touch go together") }
        if resistance != nil, scrollDelta == nil { throw ValidationError("--resistance goes with --scroll-delta") }
    }

    func run() throws {
        let pinning = pinHeaders || pinFooters ? QueryPinning(headers: pinHeaders, footers: pinFooters) : nil
        let dynamics = scrollDelta.flatMap { delta in
            touch.map { QueryDynamics(scrollDelta: delta, touchX: $0.x, touchY: $0.y, resistance: resistance) }
        }
        try options.perform({ client throws(ClientError) in
            if let rect { return try client.query(key: key, rect: rect, format: format, pinning: pinning, dynamics: dynamics, namespace: namespace) }
            if let supplementary {
                return try client.query(key: key, supplementary: supplementary, sections: sections, format: format, namespace: namespace)
            }
            return try client.query(key: key, items: items, format: format, namespace: namespace)
        }, summary: { Summaries.query($0, key: key) })
    }
}
