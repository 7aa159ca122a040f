// swift-tools-version:6.1
// Benchmarks for swift-wif, kept out of the main package so `swift test` never builds them.
// Run them with `Benchmarks/run` (which also runs the peer scripts and prints ratios).
import PackageDescription

let package = Package(
    name: "swift-wif-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-wif", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "SigningBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "WIFCredentials", package: "swift-wif"),
            ],
            path: "Benchmarks/SigningBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "CredentialsBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "WIFCredentials", package: "swift-wif"),
                .product(name: "WIFLocal", package: "swift-wif"),
            ],
            path: "Benchmarks/CredentialsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "PolicyBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PolicyEngine", package: "swift-wif"),
            ],
            path: "Benchmarks/PolicyBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "RulesBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "AccessRules", package: "swift-wif"),
                .product(name: "PolicyEngine", package: "swift-wif"),
            ],
            path: "Benchmarks/RulesBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ProverBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PolicyEngine", package: "swift-wif"),
            ],
            path: "Benchmarks/ProverBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
