import Foundation
import LayoutEngine
@testable import layoutctl

/// Job files: the examples (one per layout) and this target's own, laid out as `layoutctl render` does.
enum Fixtures {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The path of `examples/jobs/<name>`.
    static func example(_ name: String) -> String {
        repository.appendingPathComponent("examples/jobs").appendingPathComponent(name).path
    }

    /// The path of this target's `Fixtures/<name>`.
    static func own(_ name: String) -> String {
        repository.appendingPathComponent("Tests/LayoutRenderTests/Fixtures").appendingPathComponent(name).path
    }

    /// Every `examples/jobs/*.json`, by file name.
    static let exampleJobs: [String] = {
        let directory = repository.appendingPathComponent("examples/jobs").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }()

    static func layout(at path: String) throws -> PreparedLayout {
        try JobFile.prepare(Array(Data(contentsOf: URL(fileURLWithPath: path))))
    }

    static func elements(of layout: PreparedLayout) -> [LayoutElement] {
        var elements: [LayoutElement] = []
        layout.forEachElement { elements.append($0) }
        return elements
    }
}
