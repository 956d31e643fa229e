import Foundation
import LayoutEngine
import LayoutServer
import LayoutWire
import Testing
@testable import LayoutCluster

/// SNAPSHOT's promise: the `prepare` body a worker writes for a kept layout, replayed by RESTORE on
/// another worker, gives the live layout bit for bit at the same version, and both then take the same
/// changes the same way. Checked for every layout type, from the engine's fixtures and from random
/// inputs, after random changes (updates, bounds, diffs) on the live worker.
@Suite struct SnapshotTests {
    private static let key = LayoutKey(name: "feed")

    @Test(arguments: LayoutKind.allCases)
    func aRestoredSnapshotIsTheLiveLayoutAndTakesChangesAlike(kind: LayoutKind) throws {
        var prepares = try Self.fixturePrepares(kind)
        for seed in UInt64(0)..<24 {
            var inputs = WireInputs(seed: seed &* 7919 &+ UInt64(kind.rawValue.utf8.count))
            prepares.append(inputs.prepare(kind, layout: Self.key.name))
        }
        var changesApplied = 0
        for (index, prepare) in prepares.enumerated() {
            changesApplied += try checkSnapshot(of: prepare, seed: UInt64(index), context: "\(kind) #\(index)")
        }
        // Most random changes fit the layout they were made for; a few are refused (and change nothing).
        #expect(changesApplied > prepares.count * 8, "\(changesApplied) changes applied")
    }

    /// Prepares `body` on a live worker, changes it at random, snapshots it and restores the snapshot on a
    /// spare worker; then both take the same further changes. Returns the number of changes applied.
    private func checkSnapshot(of body: String, seed: UInt64, context: String) throws -> Int {
        let live = SimulatedWorker(name: "live", routingID: Array("live".utf8))
        let spare = SimulatedWorker(name: "spare", routingID: Array("spare".utf8))
        var inputs = WireInputs(seed: seed &+ 1000)
        let prepared = try live.call(body)
        try #require(prepared.ok, "\(context): \(prepared)")
        var applied = 0
        for _ in 0..<12 {
            let change = inputs.change(to: try live.input(of: Self.key), layout: Self.key.name)
            if try live.call(change).ok { applied += 1 }
        }

        let (outcome, snapshot) = try live.snapshot(Self.key)
        guard case .taken(let layout, let version, let items) = outcome, let snapshot else {
            Issue.record("\(context): no snapshot: \(outcome)")
            return applied
        }
        #expect(layout == Self.key.name && version == live.store.entry(forKey: Self.key)?.version)
        let restored = spare.restore(RestoreHeader(key: Self.key, version: version, base: version), bodies: [snapshot])
        #expect(restored == .restored(layout: Self.key.name, version: version, items: items), "\(context)")
        try expectSameLayout(live, spare, context: "\(context) after the snapshot")

        for step in 0..<4 {
            let change = inputs.change(to: try live.input(of: Self.key), layout: Self.key.name)
            let (mine, theirs) = (try live.callBytes(change), try spare.callBytes(change))
            #expect(mine == theirs, "\(context), change \(step): \(String(decoding: mine.prefix(300), as: UTF8.self))")
            try expectSameLayout(live, spare, context: "\(context), change \(step)")
        }
        return applied
    }

    /// The two workers keep `key` at the same version with the same input, content size and frames, to
    /// the bit.
    private func expectSameLayout(_ a: SimulatedWorker, _ b: SimulatedWorker, context: String) throws {
        let mine = try #require(a.store.entry(forKey: Self.key), "\(context)")
        let theirs = try #require(b.store.entry(forKey: Self.key), "\(context)")
        #expect(mine.version == theirs.version, "\(context)")
        #expect(mine.layout.input.describesSameLayout(as: theirs.layout.input), "\(context)")
        #expect(Self.bits(mine.layout.contentSize) == Self.bits(theirs.layout.contentSize), "\(context)")
        #expect(Self.elements(of: mine.layout) == Self.elements(of: theirs.layout), "\(context)")
    }

    private static func bits(_ size: Size) -> [UInt64] { [size.width.bitPattern, size.height.bitPattern] }

    /// Every element in layout order, its frame as bit patterns (so that -0 and 0 differ).
    private static func elements(of layout: PreparedLayout) -> [String] {
        var elements: [String] = []
        layout.forEachElement { element in
            let frame = element.frame
            elements.append("\(element.kind) \(element.section) \(element.item) \([frame.x, frame.y, frame.width, frame.height].map(\.bitPattern))")
        }
        return elements
    }

    /// The engine's fixtures of `kind` (Tests/LayoutEngineTests/Fixtures/layouts) as `prepare` bodies of
    /// `feed`, left to right and right to left.
    private static func fixturePrepares(_ kind: LayoutKind) throws -> [String] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("LayoutEngineTests/Fixtures/layouts")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasPrefix(kind.rawValue + "-") && $0.hasSuffix(".json") }.sorted()
        #expect(!files.isEmpty, "no fixture of \(kind)")
        var bodies: [String] = []
        for file in files {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            let fixture = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            for direction in ["leftToRight", "rightToLeft"] {
                var input = try #require(fixture["input"] as? [String: Any], "\(file)")
                input["op"] = "prepare"
                input["layout"] = key.name
                input["layoutDirection"] = direction
                bodies.append(String(decoding: try JSONSerialization.data(withJSONObject: input), as: UTF8.self))
            }
        }
        return bodies
    }
}

extension SimulatedWorker {
    func callBytes(_ body: String) throws -> [UInt8] {
        try #require(run(.request(RequestToken(1), HeldBody(Array(body.utf8)), caller: nil))).1.bytes
    }

    func call(_ body: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(try callBytes(body))) as? [String: Any])
    }

    func input(of key: LayoutKey) throws -> LayoutInput {
        try #require(store.entry(forKey: key)).layout.input
    }

    /// SNAPSHOT of `key`: its header, and the body when taken.
    func snapshot(_ key: LayoutKey) throws -> (SnapshotOutcome, HeldBody?) {
        let reply = try #require(run(.snapshot(RequestToken(2), SnapshotRequest(key: key)))).1
        guard let header = reply.leadingFrame else {
            return (try #require(SnapshotOutcome(frame: reply.bytes)), nil)
        }
        return (try #require(SnapshotOutcome(frame: header)), HeldBody(reply.bytes))
    }

    func restore(_ header: RestoreHeader, bodies: [HeldBody]) -> RestoreOutcome? {
        run(.restore(RequestToken(3), header, bodies)).flatMap { RestoreOutcome(body: $0.1.bytes) }
    }
}

extension Dictionary where Key == String, Value == Any {
    var ok: Bool { self["ok"] as? Bool ?? false }
}
