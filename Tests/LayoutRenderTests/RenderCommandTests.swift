import ArgumentParser
import Foundation
import LayoutEngine
import LayoutWire
import Testing
@testable import LayoutRender
@testable import layoutctl

@Suite("layoutctl render")
struct RenderCommandTests {
    @Test("Job files and keys are told apart by the argument's text", arguments: [
        ("examples/jobs/mosaic.json", false, PictureSource.jobFile("examples/jobs/mosaic.json")),
        ("mosaic.json", false, .jobFile("mosaic.json")),
        ("./job", false, .jobFile("./job")),
        ("-", false, .jobFile("-")),
        ("feed", false, .key("feed")),
        ("photos.v2", false, .key("photos.v2")),
        ("a/b", true, .key("a/b")),
        ("x.json", true, .key("x.json")),
    ])
    func sourceRule(argument: String, forcingKey: Bool, source: PictureSource) {
        #expect(PictureSource(argument, forcingKey: forcingKey) == source)
    }

    @Test("A job file runs end to end: decoded, laid out, drawn, written", arguments: Fixtures.exampleJobs)
    func jobFileEndToEnd(job: String) throws {
        let output = try TemporaryFile()
        var command = try Layoutctl.parseAsRoot(["render", Fixtures.example(job), "--out", output.path])
        try command.run()

        let layout = try Fixtures.layout(at: Fixtures.example(job))
        let drawing = try DrawnPicture(output.contents())
        let kinds = DrawnPicture.kinds.map { drawing.shapes(of: $0).count }
        #expect(kinds.reduce(0, +) == layout.elementCount)
        #expect(drawing.canvas.map { isClose($0.width, 800) } == true)
        let title = try #require(drawing.root.children(named: "title").first?.text)
        let sections = layout.sectionCount == 1 ? "1 section" : "\(layout.sectionCount) sections"
        #expect(title.hasPrefix("\(job): \(layout.input.parameters.kind.rawValue), \(sections)"))
    }

    @Test("--rect and --width reach the picture")
    func rectAndWidth() throws {
        let output = try TemporaryFile()
        var command = try Layoutctl.parseAsRoot([
            "render", Fixtures.example("list.json"), "--rect", "0,100,375,200", "--width", "375", "--out", output.path,
        ])
        try command.run()
        let drawing = try DrawnPicture(output.contents())
        let layout = try Fixtures.layout(at: Fixtures.example("list.json"))
        let rect = Rect(x: 0, y: 100, width: 375, height: 200)
        #expect(drawing.outline.count == 1)
        #expect(drawing.canvas.map { isClose($0.width, 375) } == true)
        let count = DrawnPicture.kinds.map { drawing.shapes(of: $0).count }.reduce(0, +)
        #expect(count == layout.elementsByScanning(in: rect).count)
    }

    @Test("A job file over the limit is a usage error; a rect of it is drawn")
    func hugeJobFile() throws {
        let output = try TemporaryFile()
        var whole = try Layoutctl.parseAsRoot(["render", Fixtures.own("huge-list.json"), "--out", output.path])
        #expect(throws: ExitCode.validationFailure) { try whole.run() }
        var part = try Layoutctl.parseAsRoot(["render", Fixtures.own("huge-list.json"), "--rect", "0,0,375,812", "--out", output.path])
        try part.run()
        #expect(try DrawnPicture(output.contents()).shapes(of: "cell").count == 19)
    }

    @Test("An invalid job file fails as the daemon's reply would (status 1)")
    func invalidJob() throws {
        let job = try TemporaryFile(contents: #"{"bounds":{"width":375,"height":812},"spec":{"type":"list"},"sections":[{"count":-1}]}"#)
        var command = try Layoutctl.parseAsRoot(["render", job.path, "--out", job.path + ".svg"])
        #expect(throws: ExitCode(Failure.replyErrorStatus)) { try command.run() }
        #expect(throws: WireError.self) { try JobFile.prepare(Array(#"{"spec":{"type":"list"}}"#.utf8)) }
    }

    @Test("Usage errors", arguments: [
        ["render", "feed", "--width", "0"], ["render", "feed", "--limit", "0"], ["render", "feed", "--rect", "0,0,-1,5"],
        ["render"],
    ])
    func usageErrors(arguments: [String]) {
        #expect(throws: (any Error).self) { try Layoutctl.parseAsRoot(arguments) }
    }

    @Test("The job's members are sent with op layout last, whatever the file holds", arguments: [
        (#"{}"#, #"{"op":"layout"}"#),
        (" {\n} \n", "{\n\"op\":\"layout\"}"),
        (#"{"a":1}"#, #"{"a":1,"op":"layout"}"#),
        (#"  {"op":"prepare"}  "#, #"{"op":"prepare","op":"layout"}"#),
    ])
    func requestBody(job: String, body: String) throws {
        #expect(try JobFile.layoutRequestBody(Array(job.utf8)) == Array(body.utf8))
    }

    @Test("A job that is not an object is refused", arguments: ["", "[]", "1", "{", "}"])
    func notAnObject(job: String) {
        #expect(throws: WireError.self) { try JobFile.layoutRequestBody(Array(job.utf8)) }
    }
}

/// A file in the temporary directory, removed when the test ends.
final class TemporaryFile {
    let path: String

    init(contents: String? = nil) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("layoutrender-\(UUID().uuidString)").path
        if let contents { try Data(contents.utf8).write(to: URL(fileURLWithPath: path)) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: path + ".svg")
    }

    func contents() throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }
}
