import Foundation
import LayoutTestKit
import ZeroMQ

/// Many small layouts in a `layoutd` process of its own (docs/BENCHMARKS.md, Many small layouts): the
/// prepare rate, the RSS each key costs against what the store accounts for it (`stats` `layouts.bytes`),
/// random reads over every key, and, with the SQLite journal, a restart: time to serving, the first
/// read, and a read of every key with 256 in flight (`busy` answers counted).
struct KeysBench {
    /// One run: `keys` list layouts of `items` items with `journal`.
    struct Scenario {
        var keys: Int
        var items: Int
        var journal: Bool
    }

    let scenarios: [Scenario]
    let workers: Int
    let context: Context

    static let clients = 4
    /// 4 × 64: the daemon's default queue, which a client keeping this many in flight never overflows.
    static let window = 64

    static func scenarios(quick: Bool, keys: Int?, items: Int?) -> [Scenario] {
        if keys != nil || items != nil {
            let (keys, items) = (keys ?? (quick ? 10_000 : 1_000_000), items ?? 20)
            return [Scenario(keys: keys, items: items, journal: false), Scenario(keys: keys, items: items, journal: true)]
        }
        let small = quick ? 10_000 : 1_000_000
        return [
            Scenario(keys: small, items: 20, journal: false),
            Scenario(keys: small, items: 20, journal: true),
            Scenario(keys: quick ? 100 : 1_000, items: 2_000, journal: false),
            Scenario(keys: 1, items: quick ? 100_000 : 1_000_000, journal: false),
        ]
    }

    func run() throws {
        for scenario in scenarios { try run(scenario) }
    }

    private func run(_ scenario: Scenario) throws {
        let folder = try ScratchFolder(prefix: "layoutd-keys")
        defer { folder.remove() }
        let journal = scenario.journal ? "sqlite:" + folder.file("keys.db") : "none"
        let heights = (0..<scenario.items).map { String(40 + ($0 * 37) % 160) }.joined(separator: ",")
        let prepare = { (number: Int) in
            Array(#"{"v":1,"id":\#(number),"op":"prepare","layout":"k/\#(number)","bounds":{"width":375,"height":812},"spec":{"type":"list"},"sections":[{"heights":[\#(heights)]}]}"#.utf8)
        }
        let query = { (id: Int, key: Int) in
            Array(#"{"v":1,"id":\#(id),"op":"query","layout":"k/\#(key)","rect":{"x":0,"y":0,"width":375,"height":812}}"#.utf8)
        }
        let clock = ContinuousClock()
        var line: [(String, BenchValue)] = [
            ("bench", "keys"), ("journal", .string(scenario.journal ? "sqlite async" : "none")),
            ("keys", .int(scenario.keys)), ("itemsPerKey", .int(scenario.items)),
        ]

        var daemon = try KeysDaemon(journal: journal, maxBytes: 1 << 40, workers: workers, context: context)
        defer { daemon.stop() }
        try daemon.awaitServing(context: context)
        let idle = daemon.residentBytes
        var traffic = try KeysTraffic(endpoint: daemon.frontEndpoint, clients: Self.clients, window: Self.window, context: context)
        var started = clock.now
        let cpuBefore = daemon.cpuSeconds
        try traffic.run(count: scenario.keys, body: prepare)
        let prepareSeconds = started.duration(to: clock.now).seconds
        let prepareCPU = daemon.cpuSeconds - cpuBefore
        let loaded = daemon.residentBytes
        let accounted = try daemon.accounted(context: context)
        let growth = Double(loaded - idle)
        line += [
            ("preparesPerSecond", .figure(Double(scenario.keys) / prepareSeconds)),
            ("daemonCPUMicrosPerPrepare", .figure(prepareCPU * 1e6 / Double(scenario.keys))),
            ("idleRSSBytes", .int(idle)),
            ("rssBytesPerKey", .figure(growth / Double(scenario.keys))),
            ("accountedBytesPerKey", .figure(Double(accounted.bytes) / Double(scenario.keys))),
            ("accountedOverRSSGrowth", .figure(Double(accounted.bytes) / growth)),
        ]

        let reads = min(200_000, max(10_000, 2 * scenario.keys))
        var random = SplitMix(seed: 36)
        let targets = (0..<reads).map { _ in Int(random.next() % UInt64(scenario.keys)) }
        started = clock.now
        try traffic.run(count: reads) { query($0, targets[$0]) }
        line.append(("randomReadsPerSecond", .figure(Double(reads) / started.duration(to: clock.now).seconds)))
        traffic.close()

        if scenario.journal {
            daemon.stop()
            started = clock.now
            daemon = try KeysDaemon(journal: journal, maxBytes: 1 << 40, workers: workers, context: context)
            try daemon.awaitServing(context: context)
            let serving = started.duration(to: clock.now).seconds
            let servingCPU = daemon.cpuSeconds
            let first = try BenchDealer(endpoint: daemon.frontEndpoint, context: context)
            let asked = clock.now
            try first.send(query(0, scenario.keys / 2))
            guard let reply = try first.receive(), reply.isSuccessReply else { throw BenchFailure("the first read after the restart failed") }
            let firstRead = asked.duration(to: clock.now).seconds
            first.close()
            var readAll = try KeysTraffic(endpoint: daemon.frontEndpoint, clients: Self.clients, window: Self.window, context: context)
            defer { readAll.close() }
            started = clock.now
            try readAll.run(count: scenario.keys) { query($0, $0) }
            line += [
                ("restartToServingMilliseconds", .figure(serving * 1000)),
                ("restartToServingCPUMilliseconds", .figure(servingCPU * 1000)),
                ("firstReadAfterRestartMilliseconds", .figure(firstRead * 1000)),
                ("readEveryKeyAfterRestartSeconds", .figure(started.duration(to: clock.now).seconds)),
                ("busyWhileReadingEveryKey", .int(readAll.busy)),
                ("rssBytesPerKeyAfterRestart", .figure(Double(daemon.residentBytes - idle) / Double(scenario.keys))),
            ]
        }
        emit(line)
    }
}

/// A small deterministic generator (splitmix64) for the keys a run reads.
struct SplitMix {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
