import Foundation
import LayoutCluster
import Logging
import Testing
import ZeroMQ
@testable import LayoutServer

/// A worker told to stop (SIGTERM) leaves: it sends DISCONNECT, answers what it admitted, and answers
/// `busy` (not run) what the broker sent before the DISCONNECT reached it, instead of leaving it unread on
/// a socket about to close, where the broker would answer it `unavailable` (outcome unknown) once it saw the
/// connection drop. Driven by a fake broker over the real worker protocol.
@Suite(.serialized) struct WorkerLeavingTests {
    @Test func requestsArrivingAfterItsDisconnectAreAnsweredBusyAndWhatItAdmittedIsAnswered() throws {
        let context = try Context()
        defer { context.terminate() }
        var fake = try FakeBrokerSockets(in: context, backReceiveTimeout: 100)
        let back = fake.back
        // Heartbeats every 20 ms carry its load; the fake broker sends none, and must not be given up on.
        fake.cluster.heartbeatMilliseconds = 20
        fake.cluster.liveness = 1_000
        var logger = Logger(label: "leaving-test")
        logger.logLevel = .critical
        let worker = try ClusterWorker(configuration: fake.configuration, cluster: fake.cluster, logger: logger).start()
        defer { worker.stop() }

        func receive(_ wanted: ([[UInt8]]) -> Bool) throws -> [[UInt8]] { try fake.receive(where: wanted) }
        func token(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
        func request(_ value: UInt64, _ body: String, to identity: [UInt8]) throws {
            _ = try back.send(multipart: [identity, [], Array("MDPW01".utf8), [0x02], token(value), [], Array(body.utf8)])
        }
        func reply(_ value: UInt64, from frames: [[UInt8]]) -> [String: Any]? {
            guard frames.count == 7, frames[3] == [0x03], frames[4] == token(value) else { return nil }
            return try? TestDaemon.object(frames[6])
        }

        let ready = try receive { $0.count == 6 && $0[3] == [0x01] }
        let identity = ready[0]
        // Admitted before the stop: a prepare long enough to still run when the stop comes.
        try request(1, #"{"id":1,"op":"prepare","layout":"k","bounds":{"width":375,"height":800},"spec":{"type":"mosaic"},"sections":[{"count":2000000}]}"#, to: identity)
        // Once a heartbeat shows it running (admitted), the stop.
        _ = try receive { frames in
            guard frames.count == 5, frames[3] == [0x04], let load = try? TestDaemon.object(frames[4]) else { return false }
            return load["busy"] as? Int == 1
        }
        worker.requestStop()
        _ = try receive { $0.count == 4 && $0[3] == [0x05] }
        // Sent before the broker saw the DISCONNECT: not run, answered busy.
        try request(2, #"{"id":2,"op":"update","layout":"k","updates":[{"insert":[0,0],"item":{"aspectRatio":1}}]}"#, to: identity)
        var answers: [UInt64: [String: Any]] = [:]
        while answers.count < 2 {
            let frames = try receive { reply(1, from: $0) != nil || reply(2, from: $0) != nil }
            if let first = reply(1, from: frames) { answers[1] = first }
            if let second = reply(2, from: frames) { answers[2] = second }
        }
        #expect(answers[1]?.result["version"] as? Int == 1, "the admitted prepare is answered: \(answers[1] ?? [:])")
        let refused = answers[2]?["error"] as? [String: Any]
        #expect(refused?["code"] as? String == "busy", "\(answers[2] ?? [:])")
        #expect((refused?["message"] as? String)?.contains("shutting down") == true)
    }
}
