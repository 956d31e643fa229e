import ArgumentParser
import LayoutClient

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the kept layouts with their versions, items and memory.",
        discussion: "Asks page after page (at most 10,000 layouts each) until every layout, or --limit of them, is listed. With --json, prints each page's reply on a line of its own."
    )

    @ParentCommand private var root: Layoutctl
    private var options: GlobalOptions { root.options }

    @Option(help: ArgumentHelp("Only layouts whose key starts with this.", valueName: "text"))
    var prefix: String?

    @Option(help: ArgumentHelp("At most this many layouts (default: all).", valueName: "count"))
    var limit: Int?

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        let client: LayoutClient
        do {
            client = try options.makeClient()
        } catch {
            throw Failure.report(error)
        }
        var layouts: [AnyJSONObject] = []
        var after: String?
        repeat {
            let pageLimit = limit.map { Swift.min($0 - layouts.count, Self.pageSize) } ?? Self.pageSize
            let reply: Reply
            do {
                reply = try client.list(after: after, limit: pageLimit, prefix: prefix)
            } catch {
                throw Failure.report(error)
            }
            if options.json { Console.print(bytes: reply.body) }
            if let error = reply.error {
                Console.printError(error.description)
                throw ExitCode(Failure.replyErrorStatus)
            }
            layouts += reply.result.objects("layouts") ?? []
            after = reply.result.string("next")
        } while after != nil && layouts.count < (limit ?? .max)
        guard !options.json else { return }
        var lines = Summaries.list(AnyJSONObject(["layouts": layouts.map(\.dictionary)]))
        if let after { lines.append("more follow \(after) (raise --limit to list them)") }
        Console.print(lines.joined(separator: "\n"))
    }

    private static let pageSize = 10_000
}
