import Foundation
import LayoutEngine
import LayoutWire

/// The kept layouts that fuzzed `query`, `bounds`, `update` and `diff` requests work on: every job of
/// examples/jobs, prepared under its file's name (`list`, `mosaic`, …), and each again with a long
/// section inserted at index 1 (`list-long`, …), so that changes reach the resume paths, which restart
/// only past the first segment of a section.
struct BaseLayouts: Sendable {
    /// Items of the long section: many segments of `Harness.options`.
    static let longSectionCount = 300

    private let byKey: [String: PreparedLayout]
    private let ordered: [PreparedLayout]

    init(options: PrepareOptions) {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../examples/jobs").standardizedFileURL
        var byKey: [String: PreparedLayout] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names.sorted() where name.hasSuffix(".json") {
            let key = String(name.dropLast(".json".count))
            guard let job = try? Data(contentsOf: directory.appendingPathComponent(name)) else { continue }
            let input = Self.input(of: Array(job), key: key)
            byKey[key] = Self.prepare(input, key: key, options: options)
            var long = input
            long.sections.insert(Self.longSection(isFlow: key == "flow"), at: min(1, long.sections.count))
            byKey[key + "-long"] = Self.prepare(long, key: key + "-long", options: options)
        }
        guard !byKey.isEmpty else { Invariants.fail("no example jobs found in \(directory.path)") }
        self.byKey = byKey
        ordered = byKey.keys.sorted().compactMap { byKey[$0] }
    }

    /// The layout kept under `key`; another key picks one by its bytes, so that every key reaches one.
    func layout(forKey key: String) -> PreparedLayout {
        if let layout = byKey[key] { return layout }
        let hash = key.utf8.reduce(0) { $0 &+ Int($1) }
        return ordered[hash % ordered.count]
    }

    /// An example job (a request without its head) sent as `prepare`, decoded.
    private static func input(of job: [UInt8], key: String) -> LayoutInput {
        guard let open = job.firstIndex(of: UInt8(ascii: "{")) else { Invariants.fail("examples/jobs/\(key).json is not an object") }
        let body = Array(#"{"v":1,"op":"prepare","layout":"\#(key)","#.utf8) + job[(open + 1)...]
        do {
            guard case .prepare(let request) = try RequestDecoder().decode(body).operation else {
                Invariants.fail("examples/jobs/\(key).json did not decode as prepare")
            }
            return request.input
        } catch {
            Invariants.fail("examples/jobs/\(key).json: \(error)")
        }
    }

    private static func prepare(_ input: LayoutInput, key: String, options: PrepareOptions) -> PreparedLayout {
        do {
            return try PreparedLayout.prepare(input, options: options)
        } catch {
            Invariants.fail("base layout \(key): \(error)")
        }
    }

    /// Items `L0`, `L1`, … of varied sizing (Fuzz/make-seeds.py writes updates and diffs against them).
    private static func longSection(isFlow: Bool) -> Section {
        let items = (0..<longSectionCount).map { (i: Int) -> ItemSizing in
            let height: Double? = i % 5 == 4 ? nil : Double(10 + (i * 37) % 90)
            let aspectRatio: Double? = i % 3 == 0 ? 1.5 : nil
            let width: Double? = isFlow ? Double(20 + (i * 53) % 180) : nil
            return ItemSizing(height: height, aspectRatio: aspectRatio, width: width, isSpan: isFlow && i % 17 == 16)
        }
        return Section(items: ItemSizes(items), ids: (0..<longSectionCount).map { .string("L\($0)") }, headerHeight: 30)
    }
}
