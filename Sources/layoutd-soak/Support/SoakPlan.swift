/// The counts of a run: the full one (docs/BENCHMARKS.md) or `--small` for CI.
struct SoakPlan: Sendable {
    // mixed
    var mixedClients: Int
    var mixedRequestsPerClient: Int
    var mixedLayoutItems: Int
    // slow-subscriber
    var events: Int
    // overload
    var overloadClients: Int
    var overloadRequestsPerClient: Int
    var overloadItems: Int
    // sigterm
    var sigtermClients: Int
    var sigtermPrepareItems: Int
    // mutations
    var mutatedBodies: Int
    // connections, subscriptions, stats-garbage
    var connections: Int
    var subscriberSockets: Int
    var statsGarbageMessages: Int
    // http-gateway: seconds of the HTTP fuzzer, split between its read-only and read-write daemons
    var httpSeconds: Int

    static let full = SoakPlan(
        mixedClients: 64, mixedRequestsPerClient: 2_000, mixedLayoutItems: 100_000,
        events: 100_000,
        overloadClients: 8, overloadRequestsPerClient: 8, overloadItems: 1_000_000,
        sigtermClients: 8, sigtermPrepareItems: 4_000_000,
        mutatedBodies: 100_000,
        connections: 1_000, subscriberSockets: 200, statsGarbageMessages: 2_000,
        httpSeconds: 120
    )

    static let small = SoakPlan(
        mixedClients: 16, mixedRequestsPerClient: 200, mixedLayoutItems: 100_000,
        events: 20_000,
        overloadClients: 4, overloadRequestsPerClient: 4, overloadItems: 1_000_000,
        sigtermClients: 8, sigtermPrepareItems: 4_000_000,
        mutatedBodies: 5_000,
        connections: 200, subscriberSockets: 50, statsGarbageMessages: 300,
        httpSeconds: 16
    )
}
