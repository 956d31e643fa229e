import LayoutTestKit
import Foundation
import Testing
import ZeroMQ
@testable import LayoutServer

/// Seeded mutations of valid requests: every one gets exactly one typed reply and the daemon keeps serving.
/// Bounded in count (400 bodies) and time (each reply within the socket's timeout).
@Suite(.serialized) struct FaultToleranceTests {
    private static let validBodies = [
        mosaicJob(op: "layout", key: nil, count: 12),
        #"{"v":1,"id":"p","op":"prepare","layout":"f","bounds":{"width":300,"height":500},"spec":{"type":"flow","rowTransform":"fill"},"decorations":{"sectionBackground":true},"sections":[{"items":[{"width":50,"height":20},{"span":true,"height":10},{"width":80,"height":20}],"header":12,"params":{"interitemSpacing":4}}]}"#,
        #"{"v":1,"id":"q","op":"query","layout":"f","rect":{"x":0,"y":0,"width":300,"height":100}}"#,
        #"{"v":1,"id":"u","op":"update","layout":"f","updates":[{"insert":[0,1],"item":{"width":30,"height":20}},{"move":[[0,0],[0,2]]}]}"#,
        #"{"v":1,"id":"d","op":"diff","layout":"f","sections":[{"ids":["a","b"],"heights":[3,4]}]}"#,
        #"{"v":1,"id":"b","op":"bounds","layout":"f","bounds":{"width":320,"height":500}}"#,
        #"{"v":1,"id":"c","op":"layout","bounds":{"width":400,"height":500},"spec":{"type":"columns","placement":"shortestFirst","sectionInsets":{"left":4}},"sections":[{"aspectRatios":[1,2,0.5],"heights":[1,null,3]}]}"#,
    ]
    private static let replacements: [[UInt8]] = ["-1", "1e309", "null", "\"\"", "[]", "{}", "99999999999999999999", "\"\\ud800\"", "true", "-0", "1e18", "\"x\""].map { Array($0.utf8) }
    private static let knownCodes: Set<String> = ["invalid_json", "invalid_request", "unknown_op", "unknown_layout", "invalid_update", "version_conflict", "too_large"]

    private static func mutate(_ body: [UInt8], _ rng: inout SeededGenerator) -> [UInt8] {
        var bytes = body
        guard !bytes.isEmpty else { return bytes }
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: bytes.remove(at: Int.random(in: 0..<bytes.count, using: &rng))
        case 1: bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
        case 2: bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &rng)))
        default:
            // Replace one value after a colon with something hostile.
            let colons = bytes.indices.filter { bytes[$0] == UInt8(ascii: ":") }
            guard let colon = colons.randomElement(using: &rng) else { return bytes }
            var end = colon + 1
            while end < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")].contains(bytes[end]) { end += 1 }
            bytes.replaceSubrange((colon + 1)..<end, with: replacements.randomElement(using: &rng) ?? [])
        }
        return bytes
    }

    @Test(arguments: Topology.all) func mutatedRequestsEachGetOneTypedReplyAndTheDaemonServesOn(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        let dealer = try daemon.dealer()
        var rng = SeededGenerator(seed: 20261121)
        for round in 0..<400 {
            let base = Array(Self.validBodies[round % Self.validBodies.count].utf8)
            var body = base
            for _ in 0..<Int.random(in: 1...3, using: &rng) { body = Self.mutate(body, &rng) }
            _ = try dealer.send(multipart: [[], body])
            let frames = try #require(try dealer.receiveMultipart(), "no reply to \(String(decoding: body, as: UTF8.self))")
            let reply = try TestDaemon.object(frames[frames.count - 1])
            if !reply.ok {
                let code = try #require(reply.errorCode)
                #expect(Self.knownCodes.contains(code), "unexpected code \(code)")
            }
        }
        // Nothing extra is waiting, and the daemon still answers.
        try dealer.set(.receiveTimeout, 100)
        #expect(try dealer.receiveMultipart() == nil)
        try dealer.set(.receiveTimeout, 10_000)
        #expect(try daemon.call(#"{"v":1,"id":"alive","op":"ping"}"#, on: dealer).ok)
    }
}
