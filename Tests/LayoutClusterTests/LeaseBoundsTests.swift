import Configuration
import Foundation
import LayoutServer
import Testing
@testable import LayoutCluster

#if canImport(Glibc)
import Glibc
#endif

/// Issue 32, findings 1 and 5: what bounds a lease. A broker's settings cannot let a restarted broker
/// change keys while a worker of its predecessor may still answer direct reads; the serving window ends
/// a lease's length after the renewal was sent, less the drift margin; leases run on a clock that
/// counts a suspension.
@Suite struct LeaseBoundsTests {
    private static func read(_ values: [AbsoluteConfigKey: ConfigValue]) throws -> ClusterConfiguration {
        try ClusterConfiguration.read(ConfigReader(provider: InMemoryProvider(values: values)))
    }

    @Test func aBrokersRejoinWaitBelowTheReadLeaseIsAConfigurationError() throws {
        // The read lease is heartbeat × (liveness − 1): 2000 ms by default, 400 ms here.
        #expect(throws: ConfigurationError.self) { try Self.read(["role": "broker", "cluster.rejoinMillis": 1999]) }
        #expect(throws: ConfigurationError.self) { try Self.read(["role": "broker", "cluster.rejoinMillis": 1]) }
        #expect(throws: ConfigurationError.self) {
            try Self.read(["role": "broker", "cluster.heartbeatMillis": 200, "cluster.liveness": 3, "cluster.rejoinMillis": 399])
        }
        #expect(try Self.read(["role": "broker", "cluster.rejoinMillis": 2000]).resolvedRejoinMilliseconds == 2000)
        #expect(try Self.read(["role": "broker", "cluster.heartbeatMillis": 200, "cluster.rejoinMillis": 400]).readLeaseMilliseconds == 400)
        // 0: a cluster started fresh, with no wait at all (a broker taking a PostgreSQL lease waits anyway).
        #expect(try Self.read(["role": "broker", "cluster.rejoinMillis": 0]).resolvedRejoinMilliseconds == 0)
        // No read lease with a liveness of 1; and the wait is a broker's alone.
        #expect(try Self.read(["role": "broker", "cluster.liveness": 1, "cluster.rejoinMillis": 0]).resolvedRejoinMilliseconds == 0)
        #expect(try Self.read(["role": "worker", "cluster.join": "tcp://b:5560", "cluster.rejoinMillis": 0]).rejoinMilliseconds == 0)
        // The default wait is above the read lease.
        let defaults = try Self.read(["role": "broker"])
        #expect(defaults.resolvedRejoinMilliseconds >= defaults.readLeaseMilliseconds)
    }

    @Test func aBrokerTakingTheLeaseWaitsOutTheLongestReadLeaseBeforeChangingKeys() {
        var cluster = ClusterConfiguration()
        cluster.heartbeatMilliseconds = 200
        cluster.liveness = 3
        cluster.rejoinMilliseconds = 400
        #expect(ClusterBroker.takingOver(cluster, leased: true).resolvedRejoinMilliseconds == 600)
        #expect(ClusterBroker.takingOver(cluster, leased: false).resolvedRejoinMilliseconds == 400)
        cluster.rejoinMilliseconds = 900
        #expect(ClusterBroker.takingOver(cluster, leased: true).resolvedRejoinMilliseconds == 900)
    }

    @Test func theServingWindowEndsALeaseAfterTheRenewalWasSentLessTheDriftMargin() {
        let sent: UInt64 = 5_000_000_000
        let window = ServingWindow(endingAt: ServingWindow.end(sentAt: sent, leaseMillis: 1000))
        // 1000 ms less 5 %.
        #expect(window.end == sent + 950_000_000)
        #expect(window.isOpen(at: sent + 949_999_999))
        #expect(!window.isOpen(at: sent + 950_000_000))
        // A renewal sent later moves it on; an earlier one's end never moves it back.
        window.renewed(sentAt: sent + 300_000_000, leaseMillis: 1000)
        #expect(window.end == sent + 1_250_000_000)
        window.renewed(sentAt: sent + 100_000_000, leaseMillis: 1000)
        #expect(window.end == sent + 1_250_000_000)
        // Closed (the lease taken by another broker): for good.
        window.close()
        #expect(!window.isOpen(at: sent))
        window.renewed(sentAt: sent + 400_000_000, leaseMillis: 1000)
        #expect(!window.isOpen(at: sent + 400_000_000))
        #expect(ServingWindow.unbounded.isOpen)
    }

    @Test func leasesAreTimedOnTheClockThatCountsSuspension() {
        #if os(Linux)
        var before = timespec(), after = timespec()
        clock_gettime(CLOCK_BOOTTIME, &before)
        let lease = LeaseClock.now()
        let readLease = ReadLease()
        readLease.extend(until: lease + 60_000_000_000)
        clock_gettime(CLOCK_BOOTTIME, &after)
        let low = UInt64(before.tv_sec) * 1_000_000_000 + UInt64(before.tv_nsec)
        let high = UInt64(after.tv_sec) * 1_000_000_000 + UInt64(after.tv_nsec)
        #expect(low <= lease && lease <= high)
        #expect(readLease.holdsNow)
        #endif
    }
}
