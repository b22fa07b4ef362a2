import Foundation
import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// The manual page as `man` shows it: plain `groff -man -Tutf8` renders it without a warning,
/// at 80 columns, with the sections a reader looks for, every exit status, and a date.
final class ManualPageTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }

    private func page(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        let result = try TestEnvironment.run(binary, ["help", "--man"], environment: environment)
        XCTAssertEqual(result.status, 0, result.error)
        return result.output
    }

    func testGroffRendersItAt80ColumnsWithoutAWarning() throws {
        let source = folder().appendingPathComponent("tamga.1")
        try Data(page().utf8).write(to: source)
        let rendered = try TestEnvironment.run(
            "/usr/bin/groff", ["-man", "-Tutf8", "-ww", "-rLL=80n", "-P-cbu", source.path])
        XCTAssertEqual(rendered.status, 0)
        XCTAssertEqual(rendered.error, "", "groff warnings")
        let long = rendered.output.split(separator: "\n").filter { $0.count > 80 }
        XCTAssertEqual(long, [], "lines over 80 columns")
        for section in [
            "NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "ENVIRONMENT", "FILES", "EXAMPLES", "EXIT STATUS",
            "SEE ALSO",
        ] {
            XCTAssertTrue(rendered.output.contains("\n\(section)\n"), section)
        }
        XCTAssertTrue(try page().unicodeScalars.allSatisfy(\.isASCII), "non-ASCII text is written as \\[uXXXX]")
    }

    func testTheDateComesFromSourceDateEpochAndEveryExitStatusIsListed() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["SOURCE_DATE_EPOCH"] = "1796047069"
        let text = try page(environment: environment)
        XCTAssertTrue(text.contains(".TH TAMGA 1 \"2026-11-30\""), String(text.prefix(200)))
        let status = text.components(separatedBy: ".SH EXIT STATUS").last?.components(separatedBy: ".SH").first ?? ""
        let listed = Set(status.split(separator: "\n").compactMap { Int32($0.prefix(while: { $0.isNumber })) })
        XCTAssertEqual(listed, Set(ExitCode.allCases.map(\.rawValue)))
        for variable in [
            "TAMGA_PIN", "TAMGA_PIN1", "TAMGA_NEW_PIN", "TAMGA_TSA_URL", "TAMGA_CA_PASSWORD", "TAMGA_CARD_PIN",
            "TAMGA_PKCS11_PIN",
            "TAMGA_THRESHOLD_PIN", "TAMGA_KEY_PASSWORD", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "HOME",
        ] {
            XCTAssertTrue(
                text.contains(".B \(variable)") || text.contains(", \(variable)") || text.contains(".B \(variable),"),
                variable)
        }
    }

    private func folder() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("man-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}
