import Foundation
import Testing
import ZeroMQ
@testable import LayoutServer

/// A cluster of real `layoutd` processes under 16 clients' mixed traffic: a worker killed (-9) or
/// stopped (SIGSTOP), a worker joining, the broker killed and restarted. Afterwards every key answers
/// exactly what a single daemon answers after the same acknowledged changes: same frames, same version.
@Suite(.serialized) struct ClusterFailoverTests {
    /// Runs 16 clients until `during` returns, plus `settle` seconds; checks that no request hung or
    /// was answered twice, and returns the clients.
    private func traffic(on cluster: ProcessCluster, settle: Double = 1.5, during: () throws -> Void) throws -> [TrafficClient] {
        let stop = StopFlag()
        let clients = (0..<16).map { TrafficClient(index: $0) }
        for client in clients { client.start(front: cluster.front, until: stop) }
        Thread.sleep(forTimeInterval: 1.0)
        try during()
        Thread.sleep(forTimeInterval: settle)
        stop.set()
        for client in clients { client.wait() }
        for client in clients {
            #expect(client.hangs == 0, "client \(client.index) waited forever")
            #expect(client.extraReplies == 0, "client \(client.index) got replies it did not ask for")
            #expect(client.failures.isEmpty, "\(client.failures.prefix(3))")
            #expect(client.requests > 10)
        }
        return clients
    }

    /// Every key answers, at its last acknowledged version, with the bytes a single daemon answers
    /// after replaying exactly the acknowledged changes.
    private func expectNothingLost(_ clients: [TrafficClient], in cluster: ProcessCluster) throws {
        let reference = try TestDaemon(.single)
        let dealer = try cluster.dealer()
        let referenceDealer = try reference.dealer()
        for client in clients {
            for key in client.keys {
                for body in client.acknowledged[key] ?? [] {
                    #expect(try reference.call(body, on: referenceDealer).ok)
                }
                let query = TrafficClient.queryBody(key, id: "final")
                let answer = try cluster.callBytes(query, on: dealer)
                let object = try TestDaemon.object(answer)
                #expect(object.ok, "\(key): \(object.errorCode ?? "")")
                #expect(object.result["version"] as? Int == client.lastVersion[key], "\(key) lost or repeated a version")
                _ = try referenceDealer.send(multipart: [[], Array(query.utf8)])
                let expected = try #require(try referenceDealer.receiveMultipart()).last
                #expect(answer == expected, "\(key): frames differ from the single daemon's")
            }
        }
    }

    @Test func killingOneOfThreeWorkersLosesNothingAcknowledged() throws {
        let cluster = try ProcessCluster(workers: 3)
        let clients = try traffic(on: cluster) {
            cluster.signal(worker: "worker-1", SIGKILL)
        }
        let states = try cluster.workerStates()
        #expect(states.first { $0.name == "worker-1" }?.state == "dead")
        #expect(states.filter { $0.state == "alive" }.map(\.keys).reduce(0, +) == 32)
        let routing = try #require((try cluster.brokerStats()["cluster"] as? [String: Any])?["routing"] as? [String: Int])
        // At least the killed one (a loaded machine may also starve another past its liveness).
        #expect((routing["workersDied"] ?? 0) >= 1)
        #expect((routing["restores"] ?? 0) > 0, "the dead worker's keys were rebuilt elsewhere")
        try expectNothingLost(clients, in: cluster)
    }

    @Test func aFourthWorkerJoiningUnderLoadTakesAboutAQuarterOfTheKeys() throws {
        let cluster = try ProcessCluster(workers: 3)
        let clients = try traffic(on: cluster) {
            try cluster.startWorker("worker-3")
            try cluster.waitForWorkers(alive: 4)
        }
        let states = try cluster.workerStates()
        let newcomer = try #require(states.first { $0.name == "worker-3" })
        // 32 keys: a quarter is 8; rendezvous hashing puts it within a few.
        #expect(newcomer.keys >= 3 && newcomer.keys <= 14, "worker-3 took \(newcomer.keys) of 32 keys")
        #expect(states.map(\.keys).reduce(0, +) == 32)
        try expectNothingLost(clients, in: cluster)
    }

    @Test func aRestartedBrokerRelearnsTheKeysFromItsWorkers() throws {
        let cluster = try ProcessCluster(workers: 3)
        let keys = (0..<12).map { "restart-\($0)" }
        var before: [String: [UInt8]] = [:]
        let dealer = try cluster.dealer()
        for key in keys {
            #expect(try cluster.call(TrafficClient.prepareBody(key, id: "p"), on: dealer).ok)
            before[key] = try cluster.callBytes(TrafficClient.queryBody(key, id: "q"), on: dealer)
        }
        cluster.killBroker()
        try cluster.startBroker()
        try cluster.waitForWorkers(alive: 3)
        let after = try cluster.dealer()
        for key in keys {
            #expect(try cluster.callBytes(TrafficClient.queryBody(key, id: "q"), on: after) == before[key], "\(key) after the restart")
        }
        #expect(try cluster.workerStates().map(\.keys).reduce(0, +) == 12)
    }

    @Test func aStoppedWorkerIsDeclaredDeadWithinItsLivenessAndItsKeysMove() throws {
        let cluster = try ProcessCluster(workers: 3)
        let keys = (0..<12).map { "stop-\($0)" }
        var before: [String: [UInt8]] = [:]
        let dealer = try cluster.dealer()
        for key in keys {
            #expect(try cluster.call(TrafficClient.prepareBody(key, id: "p"), on: dealer).ok)
            before[key] = try cluster.callBytes(TrafficClient.queryBody(key, id: "q"), on: dealer)
        }
        let stopped = try #require(try cluster.workerStates().first { $0.keys > 0 }?.name)
        cluster.signal(worker: stopped, SIGSTOP)
        let start = Date()
        var dead = false
        // Liveness is 3 heartbeats of 1 s; allow as much again for a loaded machine.
        while !dead, Date().timeIntervalSince(start) < 6 {
            dead = try cluster.workerStates().contains { $0.name == stopped && $0.state == "dead" }
            if !dead { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(dead, "\(stopped) was not declared dead within 6 s")
        for key in keys {
            #expect(try cluster.callBytes(TrafficClient.queryBody(key, id: "q"), on: dealer) == before[key], "\(key) from its new owner")
        }
        // Resumed, it joins again; its stale copies are released and nothing changes for clients.
        cluster.signal(worker: stopped, SIGCONT)
        try cluster.waitForWorkers(alive: 3)
        for key in keys {
            #expect(try cluster.callBytes(TrafficClient.queryBody(key, id: "q"), on: dealer) == before[key])
        }
    }
}
