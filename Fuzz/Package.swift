// swift-tools-version:5.9
// libFuzzer targets for every decoder of outside bytes (make fuzz; make test runs each briefly).
// A separate package so that the main build never links them: each target has no `main`
// (libFuzzer brings it), so it builds only with `-sanitize=fuzzer` (scripts/fuzz.sh).
import PackageDescription

let library: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

func fuzzTarget(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: name, dependencies: ["FuzzSupport"] + products.map { .product(name: $0, package: "tamga") },
        path: "Sources/\(name)", swiftSettings: library)
}

let package = Package(
    name: "tamga-fuzz",
    dependencies: [.package(name: "tamga", path: "..")],
    targets: [
        .target(name: "CFuzzer", path: "Sources/CFuzzer"),
        .target(
            name: "FuzzSupport", dependencies: ["CFuzzer", .product(name: "TamgaCore", package: "tamga")],
            path: "Sources/FuzzSupport"),
        fuzzTarget("FuzzZip", ["ASiC"]),
        fuzzTarget("FuzzDDOC", ["ASiC"]),
        fuzzTarget("FuzzDDOCStartTag", ["ASiC"]),
        fuzzTarget("FuzzManifest", ["ASiC"]),
        fuzzTarget("FuzzSignatureXML", ["ASiC", "TamgaCore"]),
        fuzzTarget("FuzzTrustedList", ["ASiC", "TamgaCore"]),
        fuzzTarget("FuzzOCSP", ["TamgaCore"]),
        fuzzTarget("FuzzTimeStamp", ["TamgaCore"]),
        fuzzTarget("FuzzBERTLV", ["PCSC"]),
        fuzzTarget("FuzzWireMessages", ["Threshold"]),
        fuzzTarget("FuzzPINMessages", ["Threshold"]),
        fuzzTarget("FuzzCoSignerRouter", ["CoSigner", "HTTPService", "Threshold", "TamgaCore"]),
        fuzzTarget("FuzzRemoteMessages", ["RemoteSigning", "TamgaCore", "TamgaSupport"]),
        fuzzTarget("FuzzKoreanMobileID", ["MobileID"]),
        fuzzTarget("FuzzTextCodecs", ["TamgaCore"]),
        fuzzTarget("FuzzJSON", ["TamgaSupport"]),
        fuzzTarget("FuzzDistinguishedName", ["TamgaCore"]),
        fuzzTarget("FuzzArchiveManifest", ["ASiC", "TamgaCore"]),
        fuzzTarget("FuzzCommandLineInput", ["TamgaCLI", "TamgaCore"]),
        fuzzTarget("FuzzDatabaseRows", ["CoSigner"]),
        fuzzTarget("FuzzProxyHeader", ["HTTPService"]),
        fuzzTarget("FuzzValidationService", ["ValidationService", "HTTPService", "ASiC", "TamgaCore", "TamgaSupport"]),
    ]
)
