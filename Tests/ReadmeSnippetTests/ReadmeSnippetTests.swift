import Foundation
import TamgaTestSupport
import XCTest

/// README.md's library snippet is the code in ReadmeSnippet.swift, which this target compiles.
final class ReadmeSnippetTests: XCTestCase {
    func testTheReadmeShowsTheCompiledSnippet() throws {
        let readme = try String(
            contentsOf: TestEnvironment.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "ReadmeSnippet.swift"),
            encoding: .utf8)
        let shown = try XCTUnwrap(
            readme.components(separatedBy: "## Use it as a library\n\n```swift\n").dropFirst().first?
                .components(separatedBy: "```").first, "README.md has no library snippet")
        let imports = source.split(separator: "\n", omittingEmptySubsequences: false).filter {
            $0.hasPrefix("import ") && $0 != "import Foundation"
        }
        let body = try XCTUnwrap(
            source.components(separatedBy: "    // README BEGIN\n").dropFirst().first?.components(
                separatedBy: "    // README END"
            ).first)
        let dedented = body.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasPrefix("    ") ? $0.dropFirst(4) : $0
        }
        let compiled = (imports + [""] + dedented).joined(separator: "\n")
        XCTAssertEqual(shown, compiled)
    }
}
