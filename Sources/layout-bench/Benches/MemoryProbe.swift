import LayoutTestKit
import LayoutEngine

/// One memory reading, taken in a child process (`ChildProcess`) that builds one layout and nothing else.
enum MemoryProbe {
    /// The hidden flag that turns the executable into a probe: `--memory-probe KIND ours|baseline ITEMS`.
    static let flag = "--memory-probe"

    enum Side: String, Sendable {
        case ours
        case baseline
    }

    struct Request: Sendable {
        var kind: LayoutKind
        var side: Side
        var items: Int

        init(kind: LayoutKind, side: Side, items: Int) {
            self.kind = kind
            self.side = side
            self.items = items
        }

        init(arguments: inout ArraySlice<String>) throws(UsageError) {
            guard let kindName = arguments.popFirst(), let kind = LayoutKind(rawValue: kindName),
                  let sideName = arguments.popFirst(), let side = Side(rawValue: sideName),
                  let itemsText = arguments.popFirst(), let items = Int(itemsText), items >= 0
            else {
                throw UsageError(description: "\(MemoryProbe.flag) needs KIND ours|baseline ITEMS")
            }
            self.init(kind: kind, side: side, items: items)
        }

        var arguments: [String] { [MemoryProbe.flag, kind.rawValue, side.rawValue, String(items)] }
    }

    /// What the probe saw: resident memory before and after building the layout, and the peak between.
    struct Reading: Sendable {
        var residentBefore: Int
        var residentAfter: Int
        var peak: Int
        var cells: Int
        /// Our `PreparedLayout.frameBytes` and `byteCount`; nil for the baseline.
        var frameBytes: Int?
        var layoutBytes: Int?

        /// Memory the layout holds once built.
        var bytes: Int { residentAfter - residentBefore }
        /// The most the build needed at once (growing arrays, scratch space), over what was there before.
        var peakBytes: Int { peak - residentBefore }

        /// The probe's one line of output: integers, -1 for "none".
        var line: String {
            [residentBefore, residentAfter, peak, cells, frameBytes ?? -1, layoutBytes ?? -1].map(String.init).joined(separator: " ")
        }

        init(residentBefore: Int, residentAfter: Int, peak: Int, cells: Int, frameBytes: Int?, layoutBytes: Int?) {
            self.residentBefore = residentBefore
            self.residentAfter = residentAfter
            self.peak = peak
            self.cells = cells
            self.frameBytes = frameBytes
            self.layoutBytes = layoutBytes
        }

        init?(line: String) {
            let numbers = line.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
            guard numbers.count == 6 else { return nil }
            self.init(
                residentBefore: numbers[0], residentAfter: numbers[1], peak: numbers[2], cells: numbers[3],
                frameBytes: numbers[4] < 0 ? nil : numbers[4], layoutBytes: numbers[5] < 0 ? nil : numbers[5]
            )
        }
    }

    /// In the parent: runs a probe process and reads its answer.
    static func measure(_ request: Request) -> Reading? {
        ChildProcess.outputOfSelf(arguments: request.arguments).flatMap(Reading.init(line:))
    }

    /// In the probe process: builds the layout, prints the reading. Returns the exit status.
    static func run(_ request: Request) -> Int32 {
        let input = BenchInputs(itemCount: request.items, sizing: .default).input(for: request.kind)
        warmUp(request)
        guard let before = ProcessMemory.status() else { return 1 }
        ProcessMemory.resetPeak()
        let reading: Reading
        switch request.side {
        case .ours:
            guard let layout = try? PreparedLayout.prepare(input), let after = ProcessMemory.status() else { return 1 }
            reading = Reading(
                residentBefore: before.residentBytes, residentAfter: after.residentBytes, peak: after.peakResidentBytes,
                cells: layout.itemCount, frameBytes: layout.frameBytes, layoutBytes: layout.byteCount
            )
            blackHole(layout)
        case .baseline:
            guard let layout = SeedLayouts.make(for: input) else { return 1 }
            layout.prepare()
            guard let after = ProcessMemory.status() else { return 1 }
            reading = Reading(
                residentBefore: before.residentBytes, residentAfter: after.residentBytes, peak: after.peakResidentBytes,
                cells: layout.cache.count, frameBytes: nil, layoutBytes: nil
            )
            blackHole(layout)
        }
        print(reading.line)
        return 0
    }

    /// A tiny layout of the same kind first, so that faulting in code pages and starting Dispatch's
    /// threads is not counted as the layout's memory.
    private static func warmUp(_ request: Request) {
        let input = BenchInputs(itemCount: 1_000, sizing: .default).input(for: request.kind)
        switch request.side {
        case .ours:
            let options = PrepareOptions(segments: Segments(segmentSize: 100), parallelThreshold: 0)
            blackHole(try? PreparedLayout.prepare(input, options: options))
        case .baseline:
            let layout = SeedLayouts.make(for: input)
            layout?.prepare()
            blackHole(layout)
        }
    }
}
