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
        .target(name: "LoopbackTLS", dependencies: ["PKI", "COpenSSL"]),
        .target(name: "Simulation", dependencies: ["PKI", "Policies", "LoopbackTLS", "ScenarioFiles", .product(name: "Yams", package: "Yams")]),
        // The lessons: Scenarios/*.yaml compiled into code by a build-tool plugin, so a copied binary carries them.
        .target(name: "ScenarioFiles", path: "Scenarios", plugins: ["EmbedScenarios"]),
        .executableTarget(name: "EmbedScenariosTool"),
        .plugin(name: "EmbedScenarios", capability: .buildTool(), dependencies: ["EmbedScenariosTool"]),
        .target(name: "MitmSimKit", dependencies: ["Simulation"]),
        // No pkgConfig: SwiftPM would drop the -D flags that enable the wide API; the shim defines it.
        .systemLibrary(name: "CNcurses", providers: [.apt(["libncurses-dev"])]),
        .target(name: "Console", dependencies: ["Simulation", "LoopbackTLS", "Policies", "PKI", "CNcurses"]),
        .executableTarget(
            name: "mitmsim",
            dependencies: [
                "PKI",
                "Policies",
                "LoopbackTLS",
                "Simulation",
                "Console",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "PKITests", dependencies: ["PKI"]),
        .testTarget(name: "PoliciesTests", dependencies: ["Policies", "PKI"]),
        .testTarget(name: "LoopbackTLSTests", dependencies: ["LoopbackTLS", "Policies", "PKI"]),
        .testTarget(name: "SimulationTests", dependencies: ["Simulation", "LoopbackTLS", "Policies", "PKI"], exclude: ["Golden"]),
        .testTarget(name: "MitmSimKitTests", dependencies: ["MitmSimKit"]),
        .testTarget(name: "ConsoleTests", dependencies: ["Console", "Simulation"], exclude: ["Golden"]),
        // Depends on the executable so `swift test` builds the binary the CLI tests run.
        .testTarget(name: "mitmsimTests", dependencies: ["mitmsim", "PKI"]),
    ]
)
