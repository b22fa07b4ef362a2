// swift-tools-version:6.0
// tamga — ASiC-E signing with smart cards, PKCS#11 tokens and a 2-of-2 threshold key.
// No SwiftPM package dependencies: every dependency is a Debian C library behind a
// `.systemLibrary` target (the registries SwiftPM uses are unreachable here).
import PackageDescription

let package = Package(
    name: "tamga",
    products: [
        .executable(name: "tamga", targets: ["tamga"]),
        .library(name: "TamgaCore", targets: ["TamgaCore"]),
        .library(name: "ASiC", targets: ["ASiC"]),
        .library(name: "PCSC", targets: ["PCSC"]),
        .library(name: "IDCard", targets: ["IDCard"]),
        .library(name: "PKCS11", targets: ["PKCS11"]),
        .library(name: "RemoteSigning", targets: ["RemoteSigning"]),
        .library(name: "MobileID", targets: ["MobileID"]),
        .library(name: "Threshold", targets: ["Threshold"]),
        .library(name: "CoSigner", targets: ["CoSigner"]),
        // The commands as a library: the fuzz targets reach the command line's own decoders.
        .library(name: "TamgaCLI", targets: ["TamgaCLI"]),
    ],
    targets: [
        // C shims: a module map and a header each, no code.
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibXML2", path: "Sources/CLibXML2", pkgConfig: "libxml-2.0",
                       providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CPCSC", path: "Sources/CPCSC", pkgConfig: "libpcsclite",
                       providers: [.apt(["libpcsclite-dev"])]),
        .systemLibrary(name: "CPosix", path: "Sources/CPosix"),   // Linux-only calls (copy_file_range)
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),

        // Layers (see ../shared/design/ARCHITECTURE.md).
        .target(name: "TamgaCore", dependencies: ["COpenSSL"]),
        .target(name: "ASiC", dependencies: ["TamgaCore", "CLibXML2", "CZlib", "CPosix"]),
        .target(name: "PCSC", dependencies: ["CPCSC"]),
        .target(name: "IDCard", dependencies: ["PCSC", "TamgaCore"]),
        .systemLibrary(name: "CP11Kit", path: "Sources/CP11Kit", pkgConfig: "p11-kit-1", providers: [.apt(["libp11-kit-dev"])]),
        .target(name: "PKCS11", dependencies: ["CP11Kit", "TamgaCore", "PCSC"]),
        .systemLibrary(name: "CGMP", path: "Sources/CGMP", pkgConfig: "gmp", providers: [.apt(["libgmp-dev"])]),
        .target(name: "Threshold", dependencies: ["CGMP", "COpenSSL", "TamgaCore", "PKCS11"]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // libmicrohttpd and libpq (PostgreSQL beside SQLite for several co-signer instances, the
        // client library only): headers only, not linked. CDeferredLibraries loads them when the
        // co-signer first needs them, so the other commands do not pay for them at start-up.
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", providers: [.apt(["libpq-dev"])]),
        .target(name: "CDeferredLibraries", path: "Sources/CDeferredLibraries"),
        .target(name: "CoSigner", dependencies: ["CSQLite", "CLibPQ", "CMicroHTTPD", "CDeferredLibraries", "Threshold", "TamgaCore"]),
        .target(name: "RemoteSigning", dependencies: ["TamgaCore"]),
        .target(name: "MobileID", dependencies: ["TamgaCore"]),
        // The C modules too, for the library versions `tamga --version` prints; EmbedCommit
        // writes the source commit it prints (scripts/build-commit.sh).
        .target(name: "TamgaCLI", dependencies: ["TamgaCore", "ASiC", "PCSC", "IDCard", "PKCS11", "Threshold", "CoSigner", "RemoteSigning", "MobileID",
                                                 "COpenSSL", "CLibXML2", "CPCSC"],
                plugins: ["EmbedCommit"]),
        .plugin(name: "EmbedCommit", capability: .buildTool(), path: "Plugins/EmbedCommit"),
        .executableTarget(name: "tamga", dependencies: ["TamgaCLI"]),
        // The virtual card that tests and the demo put into pcscd's vpcd reader.
        .executableTarget(name: "tamga-bench", dependencies: ["IDCard", "PKCS11", "TamgaCore", "Threshold", "CoSigner"], path: "Sources/tamga-bench"),
        .executableTarget(name: "tamga-vcard", dependencies: ["TamgaCore"], path: "Sources/tamga-vcard"),

        .target(name: "TamgaTestSupport", dependencies: ["TamgaCore"], path: "Tests/TamgaTestSupport"),
        .testTarget(name: "TamgaCoreTests", dependencies: ["TamgaCore", "TamgaTestSupport"]),
        .testTarget(name: "ASiCTests", dependencies: ["ASiC", "TamgaCore", "TamgaTestSupport"]),
        .testTarget(name: "PCSCTests", dependencies: ["PCSC", "TamgaTestSupport"]),
        .testTarget(name: "CoSignerTests", dependencies: ["CoSigner", "Threshold", "TamgaCore", "ASiC", "TamgaTestSupport", "PKCS11"]),
        .testTarget(name: "ThresholdTests", dependencies: ["Threshold", "TamgaCore", "PKCS11", "TamgaTestSupport"]),
        .testTarget(name: "PKCS11Tests", dependencies: ["PKCS11", "TamgaCore", "ASiC", "TamgaTestSupport"]),
        .testTarget(name: "IDCardTests", dependencies: ["IDCard", "PCSC", "TamgaCore", "ASiC", "TamgaTestSupport"]),
        .testTarget(name: "MobileIDTests", dependencies: ["MobileID", "TamgaTestSupport"]),
        .testTarget(name: "RemoteSigningTests", dependencies: ["RemoteSigning", "TamgaCore", "ASiC", "TamgaTestSupport"]),
        // README.md's library snippet, compiled (and compared with the README) by the tests.
        .testTarget(name: "ReadmeSnippetTests", dependencies: ["ASiC", "TamgaCore", "TamgaTestSupport"]),
        .testTarget(name: "TamgaCLITests", dependencies: ["TamgaCLI", "ASiC", "TamgaCore", "Threshold", "CoSigner", "TamgaTestSupport",
                                                      "PCSC", "IDCard", "PKCS11", "MobileID", "RemoteSigning"]),
    ]
)
