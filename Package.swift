// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "mitmsim",
    products: [
        .executable(name: "mitmsim", targets: ["mitmsim"]),
        // For other packages' tests: load a lesson, run it headlessly, read its report.
        .library(name: "MitmSimKit", targets: ["MitmSimKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
    ],
    targets: [
        // Only `PKI` and `LoopbackTLS` may import OpenSSL; C types never leave those modules.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(name: "PKI", dependencies: ["COpenSSL"]),
        .target(name: "Policies", dependencies: ["PKI"]),
        // HTTP framing is NIOHTTP1's (llhttp), run synchronously over blocking sockets through NIOEmbedded.
        .target(
            name: "LoopbackTLS",
            dependencies: [
                "PKI", "COpenSSL", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .target(name: "Simulation", dependencies: ["PKI", "Policies", "LoopbackTLS", "ScenarioFiles", .product(name: "Yams", package: "Yams")]),
        // The lessons: Scenarios/*.yaml compiled into code by a build-tool plugin, so a copied binary carries them.
        .target(name: "ScenarioFiles", path: "Scenarios", plugins: ["EmbedScenarios"]),
        .executableTarget(name: "EmbedScenariosTool"),
        .plugin(name: "EmbedScenarios", capability: .buildTool(), dependencies: ["EmbedScenariosTool"]),
        .target(name: "MitmSimKit", dependencies: ["Simulation"]),
        // No pkgConfig: SwiftPM would drop the -D flags that enable the wide API; the shim defines it.
        .systemLibrary(name: "CNcurses", providers: [.apt(["libncurses-dev"])]),
        // The console lays out what the engine words: it sees the engine only through `Simulation`.
        .target(name: "Console", dependencies: ["Simulation", "CNcurses"]),
        // The `bench` measurements drive the engine directly; only the executable's `bench` commands use them.
        .target(name: "Benchmarks", dependencies: ["PKI", "Policies", "LoopbackTLS", "Simulation", "Console"]),
        .executableTarget(
            name: "mitmsim",
            dependencies: [
                "PKI",
                "Policies",
                "LoopbackTLS",
                "Simulation",
                "Console",
                "Benchmarks",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // libFuzzer over every input mitmsim reads from outside (Docs/fuzzing.md). Built with `-DFUZZING` it
        // runs libFuzzer's driver; otherwise it replays saved inputs, so the normal build keeps compiling it.
        .systemLibrary(name: "CLibFuzzer"),
        .executableTarget(name: "MitmSimFuzz", dependencies: ["PKI", "Policies", "LoopbackTLS", "Simulation", "CLibFuzzer"]),
        // Helpers for tests only (golden files, fuzz inputs, the lessons read once); a library because test targets cannot depend on one another.
        .target(name: "TestSupport", dependencies: ["Simulation"], path: "Tests/TestSupport"),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"]),
        .testTarget(name: "PKITests", dependencies: ["PKI", "TestSupport"]),
        .testTarget(name: "PoliciesTests", dependencies: ["Policies", "PKI"]),
        .testTarget(name: "LoopbackTLSTests", dependencies: ["LoopbackTLS", "Policies", "PKI", "TestSupport"]),
        .testTarget(name: "SimulationTests", dependencies: ["Simulation", "LoopbackTLS", "Policies", "PKI", "TestSupport"], exclude: ["Golden"]),
        .testTarget(name: "MitmSimKitTests", dependencies: ["MitmSimKit"]),
        .testTarget(name: "ConsoleTests", dependencies: ["Console", "Simulation", "TestSupport"], exclude: ["Golden"]),
        // Depends on the executable so `swift test` builds the binary the CLI tests run.
        .testTarget(name: "mitmsimTests", dependencies: ["mitmsim", "PKI", "LoopbackTLS", "Simulation", "TestSupport"]),
    ]
)
