// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "layoutd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "layout-bench", targets: ["layout-bench"]),
        .library(name: "LayoutEngine", targets: ["LayoutEngine"]),
    ],
    dependencies: [],
    targets: [
        .systemLibrary(
            name: "CZeroMQ",
            providers: [.apt(["libzmq3-dev"])]
        ),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"]),
        .target(
            name: "LayoutEngine",
            // `rounded()` lowers to libm's floor/ceil/round, which Linux does not link by default.
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
        ),
        .target(name: "LayoutWire", dependencies: ["LayoutEngine"]),
        .executableTarget(name: "layout-bench", dependencies: ["LayoutEngine"]),
        .testTarget(name: "LayoutEngineTests", dependencies: ["LayoutEngine"]),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"]),
        .testTarget(name: "LayoutWireTests", dependencies: ["LayoutWire", "LayoutEngine"]),
    ]
)

// Strict settings for every target of ours, in one place (as swift-log and swift-metrics do).
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
