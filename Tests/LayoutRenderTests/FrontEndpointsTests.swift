import ArgumentParser
import Foundation
import LayoutClient
import Testing
@testable import layoutctl

/// `--front` with a comma-separated list of endpoints to fail over between.
@Suite("layoutctl --front")
struct FrontEndpointsTests {
    @Test("--front takes one endpoint or a comma-separated list, kept in order", arguments: [
        ([], [LayoutClient.defaultEndpoint]),
        (["--front", "tcp://a:5555"], ["tcp://a:5555"]),
        (["--front", "tcp://a:5555,tcp://b:5555"], ["tcp://a:5555", "tcp://b:5555"]),
        (["--front", "tcp://b:5555, tcp://a:5555 ,ipc:///tmp/c"], ["tcp://b:5555", "tcp://a:5555", "ipc:///tmp/c"]),
    ])
    func parsing(arguments: [String], endpoints: [String]) throws {
        #expect(try GlobalOptions.parse(arguments).frontEndpoints == endpoints)
    }

    @Test("--direct-reads is auto (each key looked up alone) unless turned off", arguments: [
        ([], DirectReads.automaticByKey),
        (["--direct-reads", "auto"], .automaticByKey),
        (["--direct-reads", "off"], .off),
    ])
    func directReads(arguments: [String], expected: DirectReads) throws {
        #expect(try GlobalOptions.parse(arguments).directReads == expected)
    }

    @Test("--direct-reads takes auto or off only", arguments: ["on", "", "AUTO", "automatic"])
    func directReadsUsage(value: String) {
        let error = #expect(throws: (any Error).self) { try Layoutctl.parseAsRoot(["--direct-reads", value, "ping"]) }
        #expect(error.map(Layoutctl.exitCode(for:)) == .validationFailure)
    }

    @Test("An empty endpoint in the list is a usage error", arguments: ["", ",", "tcp://a:5555,", ",tcp://a:5555", "tcp://a:5555,,tcp://b:5555"])
    func emptyEndpoint(value: String) {
        let error = #expect(throws: (any Error).self) { try Layoutctl.parseAsRoot(["--front", value, "ping"]) }
        #expect(error.map(Layoutctl.exitCode(for:)) == .validationFailure)
    }

    @Test("A command fails over to the next endpoint; a change without ifVersion is not sent again")
    func failover() throws {
        let daemon = try KeptLayoutTests.Daemon()
        try daemon.prepare("feed", job: Fixtures.example("list.json"))
        // An ipc path nothing binds: requests sent there are never answered.
        let nowhere = "ipc://\(FileManager.default.temporaryDirectory.path)/layoutctl-nowhere-\(UUID().uuidString)"
        let front = "\(nowhere),\(daemon.running.frontEndpoint)"

        // render of a key asks `list`, then `query`: both may be resent.
        let output = try TemporaryFile()
        var render = try Layoutctl.parseAsRoot(["--front", front, "--timeout", "1", "render", "feed", "--out", output.path])
        try render.run()
        #expect(try DrawnPicture(output.contents()).shapes(of: "cell").count > 0)

        var drop = try Layoutctl.parseAsRoot(["--front", front, "--timeout", "1", "drop", "feed"])
        #expect(throws: ExitCode(Failure.clientErrorStatus)) { try drop.run() }
        let client = try LayoutClient(endpoint: daemon.running.frontEndpoint, timeout: .seconds(10))
        #expect(try client.list().get().objects("layouts")?.map { $0.string("layout") } == ["feed"])
    }
}
