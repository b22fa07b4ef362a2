import Foundation
import TamgaTestSupport
import XCTest

@testable import CoSigner
@testable import TamgaCLI

/// docs/cli.md's table of error codes is what `TamgaCommandLine.classify` does: every code an
/// error can carry is documented with the exit code it gives, and the table names nothing else.
final class ErrorCodeTests: XCTestCase {
    /// Errors of the command line itself, beside every case of the modules' error types.
    static var examples: [Error] {
        ErrorExamples.all + [
            CommandLineError.folderNotWritable(path: "/x", holds: "x", reason: "x", remedy: "x"),
            CommandLineError.configurationMalformed(file: "/x", key: "x", problem: "x"),
            SecretInput.Failure.cancelled, SecretInput.Failure.noTerminal, SecretInput.Failure.unreadable("x"),
            SecretInput.Failure.mismatch,
            DatabaseError(code: 8, message: "x"), DatabaseError(code: 0, message: "x", kind: .unavailable),
            DatabaseError(code: 0, message: "x", kind: .schemaNewer), CocoaError(.fileWriteVolumeReadOnly),
            NSError(domain: "x", code: 1),
        ]
    }

    /// code → the exit codes it gives, as classify maps the examples.
    static var classified: [String: Set<Int32>] {
        var table: [String: Set<Int32>] = [:]
        for error in examples {
            let (code, exit) = TamgaCommandLine.classify(error)
            table[code, default: []].insert(exit.rawValue)
        }
        return table
    }

    /// The rows `| \`code\` | exit | … |` of docs/cli.md's "Error codes" table.
    static func documented() throws -> [String: Set<Int32>] {
        let text = try String(
            contentsOf: TestEnvironment.repository.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        guard let start = text.range(of: "\n### Error codes\n") else { return [:] }
        let section = text[start.upperBound...].prefix { _ in true }.components(separatedBy: "\n### ").first ?? ""
        var table: [String: Set<Int32>] = [:]
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2 else { continue }
            let code = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            table[code] = Set(
                cells[1].split(separator: ",").compactMap { Int32($0.trimmingCharacters(in: .whitespaces)) })
        }
        return table
    }

    func testEveryErrorCodeIsDocumentedWithItsExitCode() throws {
        let classified = Self.classified
        let documented = try Self.documented()
        if classified != documented {
            // What the table should say, to paste into docs/cli.md (meanings kept by hand).
            var sources: [String: Set<String>] = [:]
            for error in Self.examples {
                sources[TamgaCommandLine.classify(error).0, default: []].insert(String(describing: type(of: error)))
            }
            let rows = classified.keys.sorted().map {
                "| `\($0)` | \(classified[$0]!.sorted().map(String.init).joined(separator: ", ")) | \(sources[$0, default: []].sorted().joined(separator: ", ")) |"
            }
            print("expected rows:\n" + rows.joined(separator: "\n"))
        }
        for code in Set(classified.keys).union(documented.keys).sorted() {
            XCTAssertEqual(
                documented[code], classified[code],
                "error code \(code): docs/cli.md says exit \(documented[code].map { "\($0.sorted())" } ?? "nothing"), classify gives \(classified[code].map { "\($0.sorted())" } ?? "nothing")"
            )
        }
    }

    /// Each error enum's source has as many cases as ErrorExamples has values of it: a new case
    /// (and with it perhaps a new code) cannot be left out of the table unnoticed.
    func testTheExamplesCoverEveryCaseOfEveryErrorType() throws {
        let sources = [
            "ContainerError": "ASiC/ContainerError.swift", "CoreError": "TamgaCore/CoreError.swift",
            "TrustedListError": "ASiC/TrustedLists/TrustedListError.swift",
            "TrustCacheError": "ASiC/TrustedLists/TrustCacheError.swift",
            "PCSCError": "PCSC/PCSCError.swift", "CardError": "IDCard/CardError.swift",
            "ThresholdError": "Threshold/ThresholdError.swift",
            "PKCS11Error": "PKCS11/PKCS11Error.swift", "MobileIDError": "MobileID/MobileIDError.swift",
            "RemoteSigningError": "RemoteSigning/RemoteSigningError.swift",
            "HTTPServerError": "HTTPService/HTTPServerError.swift",
        ]
        var examples: [String: Int] = [:]
        for error in ErrorExamples.all { examples[String(describing: type(of: error)), default: 0] += 1 }
        for (type, path) in sources {
            let text = try String(
                contentsOf: TestEnvironment.repository.appendingPathComponent("Sources/\(path)"), encoding: .utf8)
            // The enum's own cases: lines "    case name…" before its first member that is not a case.
            let body = try XCTUnwrap(text.components(separatedBy: "enum \(type)").dropFirst().first)
            let cases = body.split(separator: "\n").prefix {
                !$0.hasPrefix("    public var") && !$0.hasPrefix("    var") && !$0.hasPrefix("    public static")
                    && !$0.hasPrefix("    static") && !$0.hasPrefix("    init") && !$0.hasPrefix("    public init")
                    && !$0.hasPrefix("}")
            }
            .filter { $0.hasPrefix("    case ") }
            XCTAssertEqual(
                examples[type], cases.count,
                "\(type) has \(cases.count) cases; ErrorExamples.swift has \(examples[type] ?? 0)")
        }
    }

    /// The binary passes classify's exit code through, and --json carries the same code.
    func testTheBinaryExitsWithTheDocumentedCode() throws {
        let binary = TestEnvironment.productsDirectory.appendingPathComponent("tamga").path
        let documented = try Self.documented()
        for (arguments, code) in [
            (["verify", "/nonexistent/x.asice", "--json"], "file-not-found"),
            (["tokens", "--module", "/nonexistent/lib.so", "--json"], "pkcs11-module-not-found"),
            (["mobileid", "decode", "%%%", "--json"], nil),
        ] as [([String], String?)] {
            let result = try TestEnvironment.run(binary, arguments)
            let object = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], result.output)
            let said = try XCTUnwrap((object["error"] as? [String: Any])?["code"] as? String)
            if let code { XCTAssertEqual(said, code) }
            XCTAssertEqual(documented[said], [result.status], "\(arguments): \(said)")
        }
    }
}
