import Foundation
import Testing
@testable import LayoutServer

@Suite struct ConfigurationLoaderTests {
    private func temporaryFile(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "layoutd-config-\(UUID().uuidString).yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func defaultsWithoutFileEnvironmentOrFlags() async throws {
        let configuration = try await ConfigurationLoader.load(filePath: nil, environment: [:])
        #expect(configuration == ServerConfiguration())
        #expect(configuration.frontEndpoint == "tcp://127.0.0.1:5555")
    }

    @Test func theShippedConfigFileParsesToTheDefaults() async throws {
        // config/layoutd.yaml documents the defaults; it must say what the code does.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let configuration = try await ConfigurationLoader.load(filePath: root.appendingPathComponent("config/layoutd.yaml").path, environment: [:])
        #expect(configuration == ServerConfiguration())
    }

    @Test func flagsBeatEnvironmentWhichBeatsTheFile() async throws {
        let file = try temporaryFile("""
            front: "tcp://127.0.0.1:7001"
            events: "tcp://127.0.0.1:7002"
            workers: 3
            limits:
              maxItems: 500
            store:
              maxBytes: 1234
            """)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let configuration = try await ConfigurationLoader.load(
            filePath: file,
            overrides: ["front": .init(.string("tcp://127.0.0.1:9001"), isSecret: false)],
            environment: ["LAYOUTD_FRONT": "tcp://127.0.0.1:8001", "LAYOUTD_EVENTS": "tcp://127.0.0.1:8002", "LAYOUTD_LIMITS_MAX_ITEMS": "700"]
        )
        #expect(configuration.frontEndpoint == "tcp://127.0.0.1:9001")
        #expect(configuration.eventsEndpoint == "tcp://127.0.0.1:8002")
        #expect(configuration.maxItems == 700)
        #expect(configuration.workers == 3)
        #expect(configuration.storeCapacityBytes == 1234)
        #expect(configuration.statsEndpoint == "tcp://127.0.0.1:5557")
    }

    @Test func negativeValuesAreRejectedWithTheirKey() async throws {
        await #expect(throws: ConfigurationError.self) {
            try await ConfigurationLoader.load(filePath: nil, environment: ["LAYOUTD_WORKERS": "-2"])
        }
    }

    @Test func theJournalsLogPathIsReadFromTheEnvironmentAndUnsetByDefault() async throws {
        #expect(try await ConfigurationLoader.load(filePath: nil, environment: [:]).journalLogPath == nil)
        let set = try await ConfigurationLoader.load(filePath: nil, environment: ["LAYOUTD_JOURNAL_LOG_PATH": "/var/lib/layoutd/journal"])
        #expect(set.journalLogPath == "/var/lib/layoutd/journal")
    }

    @Test func aMissingConfigFileIsAnError() async throws {
        await #expect(throws: (any Error).self) {
            try await ConfigurationLoader.load(filePath: "/nonexistent/layoutd.yaml", environment: [:])
        }
    }
}

@Suite struct GraceValidationTests {
    @Test func aNegativeGracePeriodIsRejected() async {
        await #expect(throws: ConfigurationError.self) {
            try await ConfigurationLoader.load(filePath: nil, environment: ["LAYOUTD_SHUTDOWN_GRACE_SECONDS": "-1"])
        }
    }
}

@Suite struct TransportCapConfigurationTests {
    @Test func theTransportCapIsFourTimesTheMessageLimitUnlessSet() async throws {
        let derived = try await ConfigurationLoader.load(filePath: nil, environment: ["LAYOUTD_LIMITS_MAX_MESSAGE_BYTES": "1000"])
        #expect(derived.maxTransportBytes == nil)
        #expect(derived.resolvedMaxTransportBytes == 4000)

        let set = try await ConfigurationLoader.load(filePath: nil, environment: ["LAYOUTD_LIMITS_MAX_MESSAGE_BYTES": "1000", "LAYOUTD_LIMITS_MAX_TRANSPORT_BYTES": "1500"])
        #expect(set.resolvedMaxTransportBytes == 1500)
    }

    @Test func theDerivedCapStopsAtInt64Max() {
        var configuration = ServerConfiguration()
        configuration.maxMessageBytes = .max / 2
        #expect(configuration.resolvedMaxTransportBytes == .max)
    }

    @Test func aCapBelowTheMessageLimitIsRejected() async {
        await #expect(throws: ConfigurationError.self) {
            try await ConfigurationLoader.load(filePath: nil, environment: ["LAYOUTD_LIMITS_MAX_MESSAGE_BYTES": "1000", "LAYOUTD_LIMITS_MAX_TRANSPORT_BYTES": "999"])
        }
        await #expect(throws: ConfigurationError.self) {
            try await ConfigurationLoader.load(filePath: nil, environment: ["LAYOUTD_LIMITS_MAX_TRANSPORT_BYTES": "-1"])
        }
    }
}
