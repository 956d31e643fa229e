import ArgumentParser
import Foundation
import LayoutClient
import LayoutEngine
import LayoutServer
import Logging
import Testing
@testable import layoutctl

/// `layoutctl render KEY` against a real daemon on a free loopback port.
@Suite("layoutctl render of a kept layout")
struct KeptLayoutTests {
    /// A daemon for one test, stopped when it ends.
    final class Daemon {
        let running: RunningDaemon

        init(configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
            var configuration = ServerConfiguration()
            configuration.useFreeLoopbackPorts()
            configuration.workers = 1
            configure(&configuration)
            var logger = Logger(label: "layoutrender-test")
            logger.logLevel = .warning
            running = try LayoutDaemon(configuration: configuration, logger: logger).start()
        }

        deinit { running.stop() }

        func prepare(_ key: String, job path: String) throws {
            let client = try LayoutClient(endpoint: running.frontEndpoint, timeout: .seconds(10))
            let reply = try client.prepare(key: key, jobBytes: Array(Data(contentsOf: URL(fileURLWithPath: path))))
            #expect(reply.ok)
        }

        /// `layoutctl render` with this daemon's front endpoint.
        func render(_ arguments: [String]) throws {
            var command = try Layoutctl.parseAsRoot(["render", "--front", running.frontEndpoint, "--timeout", "10"] + arguments)
            try command.run()
        }
    }

    @Test("A kept layout draws the same shapes as its job file", arguments: ["mosaic.json", "list.json", "columns.json"])
    func keyMatchesJobFile(job: String) throws {
        // These jobs have section backgrounds and no contentInsets: the query's frames span the content
        // as the job file's content size does (a kept layout's picture spans its frames, see LayoutPicture).
        let daemon = try Daemon()
        try daemon.prepare("photos", job: Fixtures.example(job))
        let fromKey = try TemporaryFile()
        let fromFile = try TemporaryFile()
        try daemon.render(["photos", "--out", fromKey.path])
        try daemon.render([Fixtures.example(job), "--out", fromFile.path])

        let kept = try DrawnPicture(fromKey.contents())
        let local = try DrawnPicture(fromFile.contents())
        let layout = try Fixtures.layout(at: Fixtures.example(job))
        #expect(kept.canvas.map { isClose($0.height, layout.contentSize.height * 800 / layout.contentSize.width) } == true)
        for kind in DrawnPicture.kinds {
            let shapes = kept.shapes(of: kind)
            let expected = local.shapes(of: kind)
            #expect(shapes.count == expected.count)
            #expect(zip(shapes, expected).allSatisfy { isClose($0, $1) }, "\(job): \(kind) shapes in layout order")
        }
        let title = try #require(kept.root.children(named: "title").first?.text)
        #expect(title == "photos v1: \(layout.elementCount) elements")
    }

    @Test("A rect of a kept layout draws what the query answers, outlined")
    func keyWithRect() throws {
        let daemon = try Daemon()
        try daemon.prepare("feed", job: Fixtures.example("list.json"))
        let output = try TemporaryFile()
        try daemon.render(["feed", "--rect", "0,100,375,200", "--out", output.path])
        let drawing = try DrawnPicture(output.contents())
        let layout = try Fixtures.layout(at: Fixtures.example("list.json"))
        let count = DrawnPicture.kinds.map { drawing.shapes(of: $0).count }.reduce(0, +)
        #expect(count == layout.elementsByScanning(in: Rect(x: 0, y: 100, width: 375, height: 200)).count)
        #expect(drawing.outline.count == 1)
    }

    @Test("A kept layout over the limit is refused before it is fetched; unknown keys fail as the daemon says")
    func keyLimitsAndErrors() throws {
        let daemon = try Daemon()
        try daemon.prepare("big", job: Fixtures.own("huge-list.json"))
        let output = try TemporaryFile()
        #expect(throws: ExitCode.validationFailure) { try daemon.render(["big", "--out", output.path]) }
        try daemon.render(["big", "--rect", "0,0,375,812", "--out", output.path])
        #expect(try DrawnPicture(output.contents()).shapes(of: "cell").count == 19)
        #expect(throws: ExitCode(Failure.replyErrorStatus)) { try daemon.render(["nosuch", "--out", output.path]) }
    }
}
