import Foundation
import LayoutServer
import Configuration
import Testing
@testable import LayoutCluster

@Suite struct ProtocolFramesTests {
    @Test func controlFramesRoundTrip() throws {
        let ready = ReadyInfo(workerID: "w-1", credit: 258, threads: 2, keys: [.init(key: "feed", version: 4), .init(key: "a\"b", version: 1)])
        #expect(ReadyInfo(frame: ready.frame) == ready)
        let load = WorkerLoad(threads: 2, busy: 1, queued: 3, layouts: 4, layoutBytes: 5, itemsPrepared: 6)
        #expect(WorkerLoad(frame: load.frame) == load)
        let header = RestoreHeader(layout: "feed", version: 7, base: 2)
        #expect(RestoreHeader(frame: header.frame) == header)
        for outcome in [RestoreOutcome.restored(layout: "feed", version: 7, items: 10), .failed(code: "too_large", message: "no room")] {
            #expect(RestoreOutcome(body: outcome.body) == outcome)
        }
        var direct = ReadyInfo(workerID: "w-2", credit: 8, threads: 1, keys: [])
        direct.directEndpoint = "tcp://10.0.0.5:5570"
        #expect(ReadyInfo(frame: direct.frame) == direct)
        #expect(!ready.frame.containsSubsequence(Array("direct".utf8)), "a worker without one says nothing new")
        var numbered = load
        numbered.leaseSequence = 41
        #expect(WorkerLoad(frame: numbered.frame) == numbered)
        let grant = LeaseGrant(sequence: 41, milliseconds: 2000)
        #expect(LeaseGrant(frame: grant.frame) == grant)
        #expect(LeaseGrant(frame: Array(#"{"lease":-1,"leaseMillis":2000}"#.utf8)) == nil)
        for key in [LayoutKey(name: "feed"), LayoutKey(namespace: "alice", name: "wall")] {
            #expect(FenceRequest(frame: FenceRequest(key: key).frame) == FenceRequest(key: key))
        }
        #expect(FenceRequest(frame: Array(#"{"layout":""}"#.utf8)) == nil)
        let token = RequestToken(0x0102_0304_0506_0708)
        #expect(token.frame == [8, 7, 6, 5, 4, 3, 2, 1])
        #expect(RequestToken(frame: token.frame) == token)
        #expect(RequestToken(frame: [1, 2, 3]) == nil)
    }

    @Test func namespacesTravelInEveryFrameThatNamesAKey() throws {
        // READY: `[name, version]` in the shared namespace, as protocol 1 wrote it; the namespace third
        // (protocol 2); from protocol 4 always `[name, version, namespace, epoch]`.
        let ready = ReadyInfo(workerID: "w", credit: 8, threads: 1, keys: [
            .init(key: "feed", version: 4, epoch: 1_790_000_000_123), .init(key: LayoutKey(namespace: "alice", name: "feed"), version: 2),
        ])
        #expect(ReadyInfo(frame: ready.frame) == ready)
        let keys = try #require(ControlJSON.object(ready.frame)?["keys"] as? [[Any]])
        #expect(keys.map(\.count) == [4, 4])
        let three = ReadyInfo(extensionVersion: 3, workerID: "w", credit: 8, threads: 1, keys: [
            .init(key: "feed", version: 4), .init(key: LayoutKey(namespace: "alice", name: "feed"), version: 2),
        ])
        #expect(ReadyInfo(frame: three.frame) == three)
        #expect((ControlJSON.object(three.frame)?["keys"] as? [[Any]])?.map(\.count) == [2, 3])
        #expect(ReadyInfo(frame: Array(#"{"protocol":4,"worker":"w","credit":8,"threads":1,"keys":[["feed",4,"",-1]]}"#.utf8)) == nil)
        let old = ReadyInfo(frame: Array(#"{"protocol":1,"worker":"w","credit":8,"threads":1,"keys":[["feed",4]]}"#.utf8))
        #expect(old?.extensionVersion == 1 && old?.keys == [.init(key: "feed", version: 4)])

        // RESTORE: the member `namespace`, left out for "".
        let header = RestoreHeader(key: LayoutKey(namespace: "alice", name: "feed"), version: 7, base: 2)
        #expect(RestoreHeader(frame: header.frame) == header)
        #expect(header.key == LayoutKey(namespace: "alice", name: "feed"))
        #expect(ControlJSON.object(RestoreHeader(layout: "feed", version: 7, base: 2).frame)?["namespace"] == nil)
        #expect(RestoreHeader(frame: Array(#"{"layout":"feed","version":7,"base":2,"namespace":3}"#.utf8)) == nil)

        // RELEASE: shared keys first, as protocol 1 wrote them, then a group per namespace.
        let released: [LayoutKey] = ["a", LayoutKey(namespace: "bob", name: "feed"), LayoutKey(namespace: "alice", name: "feed"), "b", LayoutKey(namespace: "alice", name: "wall")]
        let frames = ReleaseFrames.encode(released)
        #expect(frames.map { String(decoding: $0, as: UTF8.self) } == ["a", "b", "", "alice", "feed", "wall", "", "bob", "feed"])
        #expect(Set(ReleaseFrames.decode(frames)) == Set(released))
        #expect(ReleaseFrames.decode([Array("feed".utf8)]) == ["feed"])

        // REQUEST's caller frame.
        for caller in [Caller(namespace: "alice", isAdmin: false), Caller(namespace: "ops", isAdmin: true)] {
            #expect(Caller(workerFrame: caller.workerFrame) == caller)
        }
        #expect(Caller(namespace: "ops", isAdmin: true).workerFrame == [1] + Array("ops".utf8))
        #expect(Caller(workerFrame: []) == nil)
        #expect(Caller(workerFrame: [2] + Array("ops".utf8)) == nil)
        #expect(Caller(workerFrame: [0, 0xff]) == nil)
    }

    @Test func snapshotFramesRoundTrip() {
        for key in [LayoutKey(name: "feed"), LayoutKey(namespace: "alice", name: "wall")] {
            #expect(SnapshotRequest(frame: SnapshotRequest(key: key).frame)?.key == key)
        }
        #expect(String(decoding: SnapshotRequest(key: LayoutKey(name: "feed")).frame, as: UTF8.self) == #"{"layout":"feed"}"#)
        for outcome in [SnapshotOutcome.taken(layout: "feed", version: 12, items: 40), .failed(code: "unknown_layout", message: "gone")] {
            #expect(SnapshotOutcome(frame: outcome.frame) == outcome)
        }
        #expect(SnapshotRequest(frame: Array(#"{"layout":""}"#.utf8)) == nil)
        #expect(SnapshotRequest(frame: Array(#"{"layout":"a","namespace":3}"#.utf8)) == nil)
        #expect(SnapshotOutcome(frame: Array(#"{"ok":true,"layout":"a"}"#.utf8)) == nil)
    }

    @Test func malformedControlFramesAreRefused() {
        #expect(ReadyInfo(frame: Array("{}".utf8)) == nil)
        #expect(ReadyInfo(frame: Array(#"{"protocol":1,"worker":"w","credit":0,"threads":1,"keys":[]}"#.utf8)) == nil)
        #expect(RestoreHeader(frame: Array("not json".utf8)) == nil)
        #expect(RestoreOutcome(body: Array(#"{"ok":true}"#.utf8)) == nil)
    }

    @Test func commandsKeepTheirMDPNumbers() {
        #expect(WorkerCommand.allCases.map(\.rawValue) == [0x01, 0x02, 0x03, 0x04, 0x05, 0x81, 0x82, 0x83, 0x84, 0x85])
        #expect(WorkerProtocol.extensionVersion == 5)
        #expect(WorkerProtocol.header == Array("MDPW01".utf8))
    }

    @Test func clusterSettingsHaveTheirDefaultsAndChecks() throws {
        let defaults = try ClusterConfiguration.read(ConfigReader(provider: InMemoryProvider(values: [:])))
        #expect(defaults == ClusterConfiguration())
        #expect(defaults.role == .single)
        #expect(defaults.backEndpoint == "tcp://127.0.0.1:5560")
        #expect(defaults.recipeBytes == 1 << 30)
        #expect(defaults.compactAfterBytes == 64 * 1024 && defaults.compactAfterChanges == 1024)

        let worker = try ClusterConfiguration.read(ConfigReader(provider: InMemoryProvider(values: [
            "role": "worker", "cluster.join": "tcp://broker.local:5560",
        ])))
        #expect(worker.resolvedJoinEventsEndpoint == "tcp://broker.local:5561")
        #expect(worker.workerHTTPAddress == nil)

        // A broker given only its back endpoint binds the events intake where a worker given only that
        // endpoint looks for it (issue 14: they met at 5561 and P + 1, never).
        let broker = try ClusterConfiguration.read(ConfigReader(provider: InMemoryProvider(values: [
            "role": "broker", "cluster.back": "tcp://127.0.0.1:7300",
        ])))
        let joining = try ClusterConfiguration.read(ConfigReader(provider: InMemoryProvider(values: [
            "role": "worker", "cluster.join": "tcp://127.0.0.1:7300",
        ])))
        #expect(broker.eventsInEndpoint == "tcp://127.0.0.1:7301")
        #expect(joining.resolvedJoinEventsEndpoint == broker.eventsInEndpoint)
        let wildcard = try ClusterConfiguration.read(ConfigReader(provider: InMemoryProvider(values: ["cluster.back": "tcp://*:*"])))
        #expect(wildcard.eventsInEndpoint == "tcp://127.0.0.1:5561")
        let probed = try ClusterConfiguration.read(ConfigReader(provider: InMemoryProvider(values: [
            "role": "worker", "cluster.join": "tcp://broker.local:5560", "cluster.workerHttp": "0.0.0.0:5568",
        ])))
        #expect(probed.workerHTTPAddress == "0.0.0.0:5568")
        let secured = try ClusterConfiguration.read(ConfigReader(provider: InMemoryProvider(values: [
            "role": "worker", "cluster.join": "tcp://broker.local:5560",
            "security.workerSecretKeyFile": "/keys/worker.key", "security.serverPublicKeyFile": "/keys/broker.pub",
        ])))
        #expect(secured.workerSecretKeyFile == "/keys/worker.key")
        #expect(secured.brokerPublicKeyFile == "/keys/broker.pub")
        #expect(throws: (any Error).self) {
            try ClusterConfiguration.read(ConfigReader(provider: InMemoryProvider(values: [
                "role": "worker", "cluster.join": "tcp://broker.local:5560", "security.workerSecretKeyFile": "/keys/worker.key",
            ])))
        }
        #expect(throws: (any Error).self) {
            try ClusterConfiguration.read(ConfigReader(provider: InMemoryProvider(values: [
                "role": "worker", "cluster.join": "tcp://broker.local:5560", "cluster.workerHttp": "5568",
            ])))
        }
        #expect(throws: (any Error).self) {
            try ClusterConfiguration.read(ConfigReader(provider: InMemoryProvider(values: ["role": "worker"])))
        }
        #expect(throws: (any Error).self) {
            try ClusterConfiguration.read(ConfigReader(provider: InMemoryProvider(values: ["role": "conductor"])))
        }
        #expect(throws: (any Error).self) {
            try ClusterConfiguration.read(ConfigReader(provider: InMemoryProvider(values: ["cluster.liveness": 0])))
        }
        #expect(throws: (any Error).self) {
            try ClusterConfiguration.read(ConfigReader(provider: InMemoryProvider(values: ["cluster.compactAfterChanges": -1])))
        }
    }
}

@Suite struct ClusterConfigurationFileTests {
    @Test func theShippedConfigFileParsesToTheClusterDefaults() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let reader = try await ConfigurationLoader.reader(filePath: root.appendingPathComponent("config/layoutd.yaml").path, environment: [:])
        #expect(try ClusterConfiguration.read(reader) == ClusterConfiguration())
    }

    @Test func environmentVariablesNameTheClusterKeys() async throws {
        let reader = try await ConfigurationLoader.reader(filePath: nil, environment: [
            "LAYOUTD_ROLE": "worker", "LAYOUTD_CLUSTER_JOIN": "tcp://b:7000", "LAYOUTD_CLUSTER_HEARTBEAT_MILLIS": "250",
            "LAYOUTD_CLUSTER_RECIPE_BYTES": "1024", "LAYOUTD_CLUSTER_WORKER_ID": "w-7", "LAYOUTD_CLUSTER_EVENTS_IN": "tcp://*:1",
            "LAYOUTD_CLUSTER_COMPACT_AFTER_BYTES": "0", "LAYOUTD_CLUSTER_COMPACT_AFTER_CHANGES": "50",
        ])
        let cluster = try ClusterConfiguration.read(reader)
        #expect(cluster.role == .worker)
        #expect(cluster.joinEndpoint == "tcp://b:7000")
        #expect(cluster.resolvedJoinEventsEndpoint == "tcp://b:7001")
        #expect(cluster.heartbeatMilliseconds == 250)
        #expect(cluster.recipeBytes == 1024)
        #expect(cluster.compactAfterBytes == 0 && cluster.compactAfterChanges == 50)
        #expect(cluster.resolvedWorkerID == "w-7")
        #expect(cluster.eventsInEndpoint == "tcp://*:1")
        #expect(cluster.directEndpoint == nil, "no direct endpoint unless asked for")
    }

    @Test func aDirectEndpointIsReadAndRefusedWithCurve() async throws {
        let reader = try await ConfigurationLoader.reader(filePath: nil, environment: [
            "LAYOUTD_ROLE": "worker", "LAYOUTD_CLUSTER_JOIN": "tcp://b:7000",
            "LAYOUTD_CLUSTER_DIRECT": "tcp://0.0.0.0:5570", "LAYOUTD_CLUSTER_DIRECT_ADVERTISE": "tcp://10.0.0.5:5570",
        ])
        let cluster = try ClusterConfiguration.read(reader)
        #expect(cluster.directEndpoint == "tcp://0.0.0.0:5570")
        #expect(cluster.directAdvertiseEndpoint == "tcp://10.0.0.5:5570")
        let secured = try await ConfigurationLoader.reader(filePath: nil, environment: [
            "LAYOUTD_ROLE": "worker", "LAYOUTD_CLUSTER_JOIN": "tcp://b:7000", "LAYOUTD_CLUSTER_DIRECT": "tcp://0.0.0.0:5570",
            "LAYOUTD_SECURITY_WORKER_SECRET_KEY_FILE": "/k", "LAYOUTD_SECURITY_SERVER_PUBLIC_KEY_FILE": "/p",
        ])
        #expect(throws: ConfigurationError.self) { try ClusterConfiguration.read(secured) }
    }
}

private extension Array where Element == UInt8 {
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
    }
}
