// swift-tools-version:6.1
import PackageDescription

/// Debug builds (the tests, `swift run`) optimise the targets whose per-sample loops the tests run by the million:
/// the DSP, the decoders' sample conversion, the clustering and the synthesis of the test signals. Unoptimised,
/// they made the suite run 12 minutes on 2 cores instead of 5½ (bounds and overflow checks stay on with -O).
/// The other targets stay at -Onone, for the debugger.
let optimisedInDebug = SwiftSetting.unsafeFlags(["-O"], .when(configuration: .debug))

let package = Package(
    name: "Spindle",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "spindle", targets: ["spindle"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // `spindle serve`: HTTP on SwiftNIO, metrics in Prometheus' text format. Hummingbird's default traits
        // (swift-configuration, full Foundation) are not used here and cost build time.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // Already in the graph through Hummingbird; named because the server imports them itself.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // System libraries (Debian -dev packages).
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CMpg123", pkgConfig: "libmpg123", providers: [.apt(["libmpg123-dev"])]),
        .systemLibrary(name: "CFLAC", pkgConfig: "flac", providers: [.apt(["libflac-dev"])]),
        .systemLibrary(name: "CXattr"),
        .systemLibrary(name: "CFFTW", pkgConfig: "fftw3f", providers: [.apt(["libfftw3-dev"])]),
        .systemLibrary(name: "CBLAS", providers: [.apt(["libopenblas-dev"])]),
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat",
                       providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswresample-dev", "libavutil-dev"])]),
        // TagLib 1.13 behind a plain C header, so no Swift target needs C++ interop.
        .target(name: "CTagLib",
                cxxSettings: [.unsafeFlags(["-I/usr/include/taglib"])],
                linkerSettings: [.linkedLibrary("tag"), .linkedLibrary("stdc++")]),

        // Byte layouts of containers (ID3v2 headers, Ogg pages) that both decoding and the scan's audio key read.
        .target(name: "ContainerLayout"),
        .target(name: "AudioDecoding", dependencies: ["CSndfile", "CMpg123", "CFLAC", "CFFmpeg", "ContainerLayout"],
                swiftSettings: [optimisedInDebug]),
        // Exclusivity checks cost more than the DSP in the per-sample loops; the module holds no shared state.
        .target(name: "Analysis", dependencies: ["CFFTW", "CBLAS"],
                swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"]), optimisedInDebug]),
        .target(name: "Store", dependencies: [.product(name: "GRDB", package: "GRDB.swift"),
                                              .product(name: "GRDBSQLite", package: "GRDB.swift")]),
        .target(name: "Library", dependencies: ["Store", "ContainerLayout", .product(name: "GRDB", package: "GRDB.swift")]),
        .target(name: "Tagging", dependencies: ["CTagLib", "CXattr", "CFFmpeg"]),
        // Hand-edited text: TOML read safely, artist credits. Config and genres both read it, neither the other.
        .target(name: "TextFormats", dependencies: [.product(name: "TOMLKit", package: "TOMLKit")]),
        // The sonic space, neighbours, mixes and clusters' geometry. Reads Analysis' value types only (MusicalKey).
        .target(name: "Similarity", dependencies: ["Analysis", "TextFormats"], swiftSettings: [optimisedInDebug]),
        // Composite genres: rules, taxonomy, naming, building.
        .target(name: "Genres", dependencies: ["Similarity", "TextFormats", "Analysis", .product(name: "TOMLKit", package: "TOMLKit")],
                swiftSettings: [optimisedInDebug]),
        .target(name: "Reports", dependencies: ["Genres"]),
        // Navidrome import and the Subsonic client (rescan).
        .target(name: "Navidrome", dependencies: ["Store", "Library"]),
        // Jellyfin import: its items read through its HTTP API (the HTTP call and secret files are Navidrome's).
        .target(name: "Jellyfin", dependencies: ["Store", "Library", "Navidrome"]),
        .target(name: "Pipeline", dependencies: [
            "Store", "Library", "AudioDecoding", "Analysis", "Tagging", "Genres", "Similarity", "TextFormats", "Reports", "Navidrome",
            "Jellyfin",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "TOMLKit", package: "TOMLKit"),
        ]),
        // The players' read API: a read-only view of the database over HTTP.
        .target(name: "Server", dependencies: [
            "Pipeline", "Store", "Library", "Similarity",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
        .executableTarget(name: "spindle", dependencies: [
            "Pipeline", "Navidrome", "Jellyfin", "Reports", "Server",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // Test support: synthesizes audio with libsndfile (no binary fixtures).
        .target(name: "TestSupport", dependencies: ["CSndfile", "Similarity", "AudioDecoding", "Analysis"], path: "Tests/TestSupport",
                swiftSettings: [optimisedInDebug]),
        .testTarget(name: "AudioDecodingTests", dependencies: ["AudioDecoding", "TestSupport"]),
        .testTarget(name: "AnalysisTests", dependencies: ["Analysis", "AudioDecoding", "TestSupport"]),
        .testTarget(name: "StoreTests", dependencies: ["Store"]),
        .testTarget(name: "LibraryTests", dependencies: ["Library", "Store", "TestSupport"]),
        .testTarget(name: "TaggingTests", dependencies: ["Tagging", "TestSupport"]),
        .testTarget(name: "PipelineTests", dependencies: ["Pipeline", "Navidrome", "Jellyfin", "Analysis", "Store", "Library", "Tagging", "AudioDecoding", "CXattr",
                                                         "Genres", "Similarity", "TextFormats", "TestSupport"]),
        .testTarget(name: "GenresTests", dependencies: ["Genres", "Similarity", "Analysis"]),
        .testTarget(name: "ReportsTests", dependencies: ["Reports", "Genres"]),
        .testTarget(name: "ServerTests", dependencies: ["Server", "Pipeline", "Store", "TestSupport",
                                                       .product(name: "GRDB", package: "GRDB.swift")]),
    ]
)
