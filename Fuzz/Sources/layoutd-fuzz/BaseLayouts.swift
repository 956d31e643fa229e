import Foundation
import LayoutEngine
import LayoutWire

/// The kept layouts that fuzzed `query`, `bounds`, `update` and `diff` requests work on: every job of
/// examples/jobs, prepared under its file's name (`list`, `mosaic`, …).
struct BaseLayouts: Sendable {
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
            byKey[key] = Self.prepare(job: Array(job), key: key, options: options)
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

    /// An example job (a request without its head) sent as `prepare` and prepared.
    private static func prepare(job: [UInt8], key: String, options: PrepareOptions) -> PreparedLayout {
        guard let open = job.firstIndex(of: UInt8(ascii: "{")) else { Invariants.fail("examples/jobs/\(key).json is not an object") }
        let body = Array(#"{"v":1,"op":"prepare","layout":"\#(key)","#.utf8) + job[(open + 1)...]
        do {
            guard case .prepare(let request) = try RequestDecoder().decode(body).operation else {
                Invariants.fail("examples/jobs/\(key).json did not decode as prepare")
            }
            return try PreparedLayout.prepare(request.input, options: options)
        } catch {
            Invariants.fail("examples/jobs/\(key).json: \(error)")
        }
    }
}
