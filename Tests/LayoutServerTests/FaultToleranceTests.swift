import LayoutTestKit
import Foundation
import Testing
import ZeroMQ
@testable import LayoutServer

/// Seeded mutations of valid requests (every kind `RequestMutator` knows, the soak suite's too): every
/// one gets exactly one typed reply and the daemon keeps serving. Bounded in count (40 bodies per kind)
/// and time (each reply within the socket's timeout).
@Suite(.serialized) struct FaultToleranceTests {
    @Test(arguments: Topology.all) func mutatedRequestsEachGetOneTypedReplyAndTheDaemonServesOn(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        let dealer = try daemon.dealer()
        var rng = SeededGenerator(seed: 20261121)
        let kinds = RequestMutator.Kind.allCases
        for round in 0..<(40 * kinds.count) {
            let kind = kinds[round % kinds.count]
            let base = RequestMutator.body(round / kinds.count, id: round)
            let mutation = RequestMutator.mutate(base, kind: kind, nestingDepth: 100_000, hugeStringBytes: 1 << 18, using: &rng)
            _ = try dealer.send(multipart: (mutation.withDelimiter ? [[]] : []) + mutation.frames)
            let frames = try #require(try dealer.receiveMultipart(), "no reply to a \(kind) mutation: \(String(decoding: mutation.frames.last?.prefix(300) ?? [], as: UTF8.self))")
            let reply = try TestDaemon.object(frames[frames.count - 1])
            if !reply.ok {
                let code = try #require(reply.errorCode)
                #expect(RequestMutator.expectedCodes.contains(code), "unexpected code \(code) for a \(kind) mutation")
            }
        }
        // Nothing extra is waiting, and the daemon still answers.
        try dealer.set(.receiveTimeout, 100)
        #expect(try dealer.receiveMultipart() == nil)
        try dealer.set(.receiveTimeout, 10_000)
        #expect(try daemon.call(#"{"v":1,"id":"alive","op":"ping"}"#, on: dealer).ok)
    }
}
