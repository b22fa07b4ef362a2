import Foundation
import TamgaTestSupport
import XCTest

/// Package.swift declares, for each target, the modules its files import and nothing else
/// (scripts/check-package-dependencies.py): an undeclared import builds only by luck of another
/// dependency, and an unused declaration links a library for nothing.
final class PackageManifestTests: XCTestCase {
    private var script: String { TestEnvironment.script("check-package-dependencies.py") }

    func testEachTargetDeclaresWhatItImportsAndNothingElse() throws {
        let result = try TestEnvironment.run("/usr/bin/python3", [script, TestEnvironment.repository.path])
        XCTAssertEqual(result.status, 0, result.output + result.error)
        XCTAssertTrue(
            result.output.hasSuffix("targets: each declares what it imports, and nothing else\n"), result.output)
        let count = Int(result.output.prefix { $0.isNumber }) ?? 0
        XCTAssertGreaterThanOrEqual(count, 30, "every target was read: \(result.output)")
    }

    /// The check itself fails on a manifest that differs, both ways.
    func testTheCheckFindsAnUndeclaredAndAnUnusedDependency() throws {
        let folder = try TestEnvironment.temporaryFolder("package-manifest")
        defer { TestEnvironment.removeFolder(folder) }
        let manifest = """
            let package = Package(name: "x", targets: [
                .target(name: "A", dependencies: ["B"]),
                .target(name: "B"),
                .target(name: "C"),
            ])
            """
        try TestEnvironment.write(manifest, named: "Package.swift", in: folder)
        for (target, source) in [("A", "import C\n"), ("B", "import Foundation\n"), ("C", "")] {
            let sources = folder.appendingPathComponent("Sources/\(target)")
            try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
            try TestEnvironment.write(source, named: "\(target).swift", in: sources)
        }
        let result = try TestEnvironment.run("/usr/bin/python3", [script, folder.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.output, "A imports C but does not declare it\nA declares B but never imports it\n")
    }
}
