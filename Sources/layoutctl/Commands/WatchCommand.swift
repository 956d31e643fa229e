import ArgumentParser
import LayoutClient

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the daemon's events as they come, until interrupted or --count events.",
        discussion: """
            Prefixes select topics: 'batch:' every batch, 'invalidated:feed' one layout's invalidations; none \
            selects everything. A gap in a layout's versions (events dropped or published before the \
            subscription reached the daemon) is reported.
            """
    )

    @ParentCommand private var root: Layoutctl
    private var options: GlobalOptions { root.options }

    @Argument(help: "Topic prefixes to subscribe to (default: all events).")
    var prefixes: [String] = []

    @Option(help: "Stop after this many events.")
    var count: Int?

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
    }

    func run() throws {
        do {
            let subscriber = try EventSubscriber(endpoint: options.eventsEndpoint, prefixes: prefixes.isEmpty ? [""] : prefixes, curve: options.curveCredentials())
            // Said on standard error once the subscriptions are in effect, so that a script may start the
            // changes it watches for then and miss none (PROTOCOL.md §7).
            if try subscriber.confirmSubscriptions(timeout: .seconds(5)) { Console.printError("subscribed") }
            var versions = VersionTracker()
            var received = 0
            while count.map({ received < $0 }) ?? true {
                let event: LayoutEvent
                do {
                    guard let next = try subscriber.next(timeout: nil) else { continue }
                    event = next
                } catch .malformedReply(let reason) {
                    Console.printError("warning: skipped an event: \(reason)")
                    continue
                }
                // Other subscribers' confirmations reach a subscriber of every topic: not a layout's event.
                if event.kind == "subscribed" { continue }
                received += 1
                if options.json {
                    Console.print(bytes: event.bytes)
                } else {
                    if let gap = versions.gap(before: event) { Console.print(gap) }
                    Console.print(Self.line(event))
                }
            }
        } catch {
            throw Failure.report(error)
        }
    }

    static func line(_ event: LayoutEvent) -> String {
        switch event.kind {
        case "batch":
            return BatchSummary.event(event)
        case "invalidated":
            return "invalidated \(event.layout ?? "?") v\(event.version.map(String.init) ?? "?") (\(event.reason ?? "?")) "
                + "→ content \(Format.size(event.contentSize))"
        default:
            return "\(event.topic) \(String(decoding: event.bytes, as: UTF8.self))"
        }
    }
}

/// The last version seen per layout, to notice missed events.
struct VersionTracker {
    private var last: [String: Int] = [:]

    /// A note when `event` skips versions of its layout; records its version either way.
    mutating func gap(before event: LayoutEvent) -> String? {
        guard let layout = event.layout, let version = event.version else { return nil }
        let previous = last[layout]
        // A key prepared again after a drop or an eviction continues its count, but whether that prepare
        // publishes an event is not something to rely on: start afresh rather than report a false gap.
        let gone = event.reason == "dropped" || event.reason == "evicted"
        last[layout] = gone ? nil : version
        guard let previous, version > previous + 1 else { return nil }
        let missed = version - previous - 1
        return "missed \(missed) event\(missed == 1 ? "" : "s") of \(layout) (v\(previous) → v\(version)): re-query it"
    }
}
