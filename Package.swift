// swift-tools-version:6.0
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "swift-wif",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WIFSigV4", targets: ["WIFSigV4"]),
        .library(name: "WIFCredentials", targets: ["WIFCredentials"]),
        .library(name: "PolicyEngine", targets: ["PolicyEngine"]),
        .library(name: "AccessRules", targets: ["AccessRules"]),
        .library(name: "S3Partition", targets: ["S3Partition"]),
        .library(name: "WIFLocal", targets: ["WIFLocal"]),
        .library(name: "WIFEngines", targets: ["WIFEngines"]),
        .library(name: "WIFFileStore", targets: ["WIFFileStore"]),
        .library(name: "WIFAPIServer", targets: ["WIFAPIServer"]),
        .library(name: "WIFAPIClient", targets: ["WIFAPIClient"]),
        .executable(name: "wif-tool", targets: ["wif-tool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.24.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.15.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/GraphQLSwift/GraphQL.git", from: "4.3.0"),
    ],
    targets: [
        // The one foundation of the package's own mechanisms (XML, JSON, AWS dates, percent-encoding,
        // retries, refresh promises): package access only, no dependencies, no public API.
        .target(
            name: "WIFFoundation",
            swiftSettings: swiftSettings
        ),
        // The HTTP seam of the package's clients: one transport protocol, its AsyncHTTPClient
        // implementation, and the no-op logger that library calls default to.
        .target(
            name: "WIFHTTP",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // SigV4 signing, presigning and the canonical request, with the credentials type: swift-crypto
        // and the foundation only, so a program that only signs pulls in no HTTP client.
        .target(
            name: "WIFSigV4",
            dependencies: [
                "WIFFoundation",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WIFCredentials",
            dependencies: [
                "WIFFoundation",
                "WIFHTTP",
                "WIFSigV4",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PolicyEngine",
            dependencies: ["WIFFoundation"],
            swiftSettings: swiftSettings
        ),
        // Amplify's access-rule vocabulary (`@auth` on GraphQL types and fields) read from SDL or JSON and
        // evaluated on records: pure, no networking; GraphQL only parses the schema text.
        .target(
            name: "AccessRules",
            dependencies: [
                "WIFFoundation",
                "PolicyEngine",
                .product(name: "GraphQL", package: "GraphQL"),
            ],
            swiftSettings: swiftSettings
        ),
        // The server side of Amplify's API authorization modes: API keys, user pool and OIDC tokens, SigV4
        // (through a verifier the server supplies), function tokens, and Hummingbird middleware.
        .target(
            name: "WIFAPIServer",
            dependencies: [
                "WIFFoundation",
                "WIFHTTP",
                "WIFCredentials",
                "AccessRules",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The client side of Amplify's API authorization modes: configuration files, a request authorizer
        // per mode, interceptors, and multi-auth in Amplify's priority order.
        .target(
            name: "WIFAPIClient",
            dependencies: [
                "WIFFoundation",
                "WIFHTTP",
                "WIFSigV4",
                "WIFCredentials",
                "AccessRules",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "S3Partition",
            dependencies: [
                "WIFHTTP",
                "WIFFoundation",
                "WIFCredentials",
                "PolicyEngine",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WIFLocal",
            dependencies: [
                "WIFHTTP",
                "WIFFoundation",
                "WIFCredentials",
                "PolicyEngine",
                "AccessRules",
                "WIFAPIServer",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            swiftSettings: swiftSettings
        ),
        // Engine administration: federation and per-user folders set up on Ceph RGW (its IAM API)
        // and SeaweedFS (its IAM config file), with the policy documents built by PolicyEngine.
        .target(
            name: "WIFEngines",
            dependencies: [
                "WIFHTTP",
                "WIFFoundation",
                "WIFCredentials",
                "PolicyEngine",
                "S3Partition",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The personal file store behind wif-tool: settings, the encrypted sign-in store, sign-in flows,
        // federation of web-identity tokens into per-user folders, and the runtime of file commands.
        .target(
            name: "WIFFileStore",
            dependencies: [
                "WIFFoundation",
                "WIFHTTP",
                "WIFCredentials",
                "WIFAPIClient",
                "AccessRules",
                "S3Partition",
                "WIFLocal",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // What only a terminal program needs and its tests check without running one: the progress bar and
        // text for a person with every value escaped.
        .target(
            name: "WIFTerminal",
            dependencies: ["WIFFoundation"],
            swiftSettings: swiftSettings
        ),
        .target(name: "CWIFMemory"),
        .executableTarget(
            name: "wif-tool",
            dependencies: [
                "WIFHTTP",
                "WIFFoundation",
                "CWIFMemory",
                "WIFTerminal",
                "WIFFileStore",
                "WIFCredentials",
                "PolicyEngine",
                "AccessRules",
                "WIFAPIClient",
                "S3Partition",
                "WIFEngines",
                "WIFLocal",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // What every test target shares: the one moto launcher, its loopback helpers, clocks, log
        // recorders and the seeded generator of randomized tests.
        .target(
            name: "WIFTestSupport",
            dependencies: [
                "WIFCredentials",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/WIFTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WIFFoundationTests",
            dependencies: [
                "WIFFoundation", "WIFHTTP", "WIFTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WIFSigV4Tests",
            dependencies: [
                "WIFTestSupport",
                "WIFSigV4",
                "WIFFoundation",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WIFCredentialsTests",
            dependencies: [
                "WIFTestSupport",
                "WIFFoundation", "WIFHTTP",
                "WIFCredentials",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PolicyEngineTests",
            dependencies: ["PolicyEngine", "WIFFoundation", "WIFTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AccessRulesTests",
            dependencies: ["AccessRules", "PolicyEngine"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "S3PartitionTests",
            dependencies: [
                "WIFTestSupport",
                "WIFFoundation", "WIFHTTP",
                "S3Partition",
                "WIFCredentials",
                "PolicyEngine",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WIFEnginesTests",
            dependencies: [
                "WIFFoundation", "WIFHTTP",
                "WIFEngines",
                "S3Partition",
                "WIFCredentials",
                "PolicyEngine",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WIFLocalTests",
            dependencies: [
                "WIFTestSupport",
                "WIFFoundation", "WIFHTTP",
                "WIFLocal",
                "WIFAPIServer",
                "WIFAPIClient",
                "AccessRules",
                "WIFCredentials",
                "PolicyEngine",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            exclude: ["ThirdParty/Scripts"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WIFFileStoreTests",
            dependencies: [
                "WIFTestSupport",
                "WIFHTTP",
                "WIFFileStore",
                "WIFCredentials",
                "S3Partition",
                "WIFLocal",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WIFAPIServerTests",
            dependencies: [
                "WIFTestSupport",
                "WIFAPIServer",
                "WIFCredentials",
                "AccessRules",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WIFAPIClientTests",
            dependencies: [
                "WIFAPIClient",
                "WIFFoundation",
                "WIFHTTP",
                "WIFTestSupport",
                "WIFSigV4",
                "WIFCredentials",
                "AccessRules",
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WIFTerminalTests",
            dependencies: ["WIFTerminal"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WIFToolTests",
            dependencies: ["wif-tool", "WIFCredentials", "WIFEngines", "WIFFoundation", "WIFHTTP", "WIFTestSupport"],
            swiftSettings: swiftSettings
        ),
        // samples/ServerApp: built with the package so that CI checks it without a second dependency build.
        .target(
            name: "ServerApp",
            dependencies: [
                "WIFFoundation", "WIFHTTP",
                "WIFCredentials",
                "S3Partition",
                "WIFFileStore",
                "WIFAPIServer",
                "AccessRules",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "samples/ServerApp/Sources/ServerApp",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "server-app",
            dependencies: [
                "ServerApp",
                "S3Partition",
                "WIFLocal",
                "WIFAPIServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "samples/ServerApp/Sources/server-app",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ServerAppTests",
            dependencies: [
                "WIFTestSupport",
                "WIFFoundation", "WIFHTTP",
                "ServerApp",
                "WIFAPIServer",
                "WIFCredentials",
                "S3Partition",
                "WIFLocal",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "samples/ServerApp/Tests/ServerAppTests",
            swiftSettings: swiftSettings
        ),
    ]
)
