// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "layoutd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "layoutd", targets: ["layoutd"]),
        .executable(name: "layoutctl", targets: ["layoutctl"]),
        .executable(name: "layout-bench", targets: ["layout-bench"]),
        .executable(name: "layoutd-bench", targets: ["layoutd-bench"]),
        .executable(name: "cluster-bench", targets: ["cluster-bench"]),
        .executable(name: "layoutd-soak", targets: ["layoutd-soak"]),
        .library(name: "LayoutEngine", targets: ["LayoutEngine"]),
        .library(name: "LayoutClient", targets: ["LayoutClient"]),
        // For the fuzzer (Fuzz/), a separate package so that its sanitizer build stays out of this one.
        .library(name: "LayoutWire", targets: ["LayoutWire"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: [.defaults, "YAML"]),
        // FilePath, which swift-configuration's file provider takes (swift-configuration depends on it anyway).
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // The operations HTTP listener (/metrics, /healthz, /readyz) and its Prometheus exposition.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CZeroMQ",
            providers: [.apt(["libzmq3-dev"])]
        ),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"]),
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The journal's PostgreSQL backend (journal.url postgres://…), shared by a cluster's brokers, and
        // their lease: PostgreSQL's own client library, as libzmq and SQLite are reached.
        .systemLibrary(
            name: "CPostgreSQL",
            providers: [.apt(["libpq-dev"])]
        ),
        // The journal of acknowledged changes (docs/DURABILITY.md): it keeps bytes, and knows no layout or
        // wire format; the server above it does.
        .target(
            name: "LayoutJournal",
            dependencies: ["CSQLite", "CPostgreSQL"]
        ),
        .target(name: "CMallocTuning"),
        // Deterministic inputs shared by the test targets and the benchmarks.
        .target(name: "LayoutTestKit"),
        .target(
            name: "LayoutEngine",
            // `rounded()` lowers to libm's floor/ceil/round, which Linux does not link by default.
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
        ),
        .target(name: "LayoutWire", dependencies: ["LayoutEngine"]),
        // Pictures of layouts as SVG (layoutctl render), kept apart from the command so they can be tested.
        .target(
            name: "LayoutRender",
            dependencies: ["LayoutEngine"],
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
        ),
        .target(
            name: "LayoutServer",
            dependencies: [
                "ZeroMQ", "LayoutEngine", "LayoutWire", "LayoutJournal", "CMallocTuning",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // The web console's HTML, CSS and ES modules, compiled in: served with no file to install.
            resources: [.embedInCode("HTTP/Console/Assets")]
        ),
        .target(
            name: "LayoutCluster",
            dependencies: [
                "ZeroMQ", "LayoutEngine", "LayoutWire", "LayoutServer", "LayoutJournal",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // LayoutWire for the one predicate of which ops change a layout (`OperationName.changesLayout`).
        .target(name: "LayoutClient", dependencies: ["ZeroMQ", "LayoutWire"]),
        .executableTarget(
            name: "layoutd",
            dependencies: [
                "LayoutServer", "LayoutCluster",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "layoutctl",
            dependencies: [
                "LayoutClient", "LayoutWire", "LayoutEngine", "LayoutRender", "ZeroMQ",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "layout-bench", dependencies: ["LayoutEngine", "LayoutTestKit"]),
        .executableTarget(
            name: "layoutd-bench",
            dependencies: [
                "LayoutServer", "LayoutJournal", "LayoutClient", "LayoutWire", "LayoutEngine", "ZeroMQ", "LayoutTestKit",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "cluster-bench",
            dependencies: [
                "LayoutCluster", "LayoutJournal", "LayoutServer", "LayoutTestKit", "ZeroMQ",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The load and fault suite (scripts/soak): drives a real layoutd as a child process.
        .executableTarget(name: "layoutd-soak", dependencies: ["LayoutServer", "LayoutTestKit", "ZeroMQ"]),
        .testTarget(
            name: "LayoutEngineTests",
            // LayoutWire reads the fixtures' inputs, which are wire layout inputs (Fixtures/layouts/README.md);
            // the fixtures are read by path, not bundled.
            dependencies: ["LayoutEngine", "LayoutTestKit", "LayoutWire"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "LayoutRenderTests",
            dependencies: [
                "LayoutRender", "LayoutEngine", "LayoutWire", "LayoutServer", "LayoutClient", "layoutctl",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // Job files read by path (#filePath), as the examples are.
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"]),
        .testTarget(name: "LayoutJournalTests", dependencies: ["LayoutJournal", "LayoutTestKit"]),
        .testTarget(name: "LayoutWireTests", dependencies: ["LayoutWire", "LayoutEngine", "LayoutTestKit"]),
        .testTarget(
            name: "LayoutClusterTests",
            dependencies: [
                "LayoutCluster", "LayoutServer", "LayoutWire", "LayoutEngine", "ZeroMQ", "LayoutTestKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),
        .testTarget(
            name: "LayoutServerTests",
            dependencies: [
                "LayoutServer", "LayoutCluster", "LayoutClient", "ZeroMQ", "LayoutWire", "LayoutEngine", "LayoutJournal", "LayoutTestKit",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)

// Strict settings for every target of ours, in one place (as swift-log and swift-metrics do).
for target in package.targets where target.type != .system && target.name != "CMallocTuning" {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
