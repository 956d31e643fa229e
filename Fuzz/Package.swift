// swift-tools-version: 6.1
// The libFuzzer target of layoutd, in a package of its own so that the main build (and CI's) never
// compiles it or its sanitizer flags. Built and run by `scripts/fuzz` (docs/FUZZING.md).
import PackageDescription

let package = Package(
    name: "layoutd-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "layoutd", path: "..")],
    targets: [
        .target(name: "CFuzzerDriver"),
        .executableTarget(
            name: "layoutd-fuzz",
            dependencies: [
                "CFuzzerDriver",
                .product(name: "LayoutWire", package: "layoutd"),
                .product(name: "LayoutEngine", package: "layoutd"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny")],
            // gold fails (an internal error) on the executable that SwiftPM's `--defsym main=…` and
            // libFuzzer's own main make; lld, shipped with the Swift toolchain, links it.
            linkerSettings: [.unsafeFlags(["-use-ld=lld"])]
        ),
    ]
)
