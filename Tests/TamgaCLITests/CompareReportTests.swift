import Foundation
import FoundationXML
import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// `compare --report`, from a JSON report written here (CompareCommandTests makes one from real
/// signers and opens it in Chromium): the page is made from the JSON alone, each bar segment is
/// one phase of one signer in the JSON's order, names are text and never markup, the SVG is
/// well-formed XML, and the page fetches nothing and runs nothing.
final class CompareReportTests: XCTestCase {
    static let hostile = "key:<script>alert(1)</script>&\"x'.p12"

    /// Three signers: a card, one whose name is markup, one that failed.
    static func json(runs: Int = 3) throws -> [UInt8] {
        func phases(_ scale: Double) -> [String: [String: Double]] {
            var table: [String: [String: Double]] = [:]
            for (index, phase) in CompareReport.phases.enumerated() {
                table[phase.key] = ["median": scale * Double(index + 1), "p95": scale * Double(index + 2)]
            }
            table["timeStamp"] = ["median": 0, "p95": 0]  // a B signature: no TSA bar
            table["total"] = ["median": scale * 21, "p95": scale * 27]
            return table
        }
        func properties(_ location: String) -> [String: Any] {
            [
                "keyLocation": location, "keyLeaves": "no", "unlock": "PIN2", "triesBeforeLock": "3 tries, 3 left now",
                "unblock": "the PUK",
                "qualification": [
                    "qualified": true, "qscd": true, "statements": ["0.4.0.1862.1.1", "0.4.0.1862.1.4"],
                    "source": "the certificate",
                ],
                "signature": "ECDSA P-384 with SHA-256, P-384, 96 B value", "deviceAlone": "3 guesses",
                "serverAlone": "no server takes part",
            ]
        }
        let runTimes = (0..<runs).map { run in ["total": 0.020 + Double(run) * 0.001, "sign": 0.005] }
        let object: [String: Any] = [
            "container": "contract.asice", "runs": runs, "profile": "B",
            "tamga": "0.1.0 (commit abc)", "date": "2026-12-01T10:00:00Z",
            "command": ["tamga", "compare", "contract.asice", "--with", "card"],
            "machine": [
                "system": "Debian GNU/Linux 12 (bookworm)", "kernel": "Linux 6.1 x86_64", "processor": "Test CPU",
                "cores": 2,
            ],
            "signers": [
                [
                    "with": "card", "label": "card", "location": "ID card (EstEID IDEMIA) in Reader 00 00",
                    "algorithm": "ECDSA P-384 with SHA-256",
                    "subject": "JAAK-KRISTJAN", "phases": phases(0.001), "runs": runTimes,
                    "properties": properties("ID card"),
                    "signatureValueBytes": 96, "signatureFileBytes": 9520, "validation": "VALID (B)",
                    "output": "card.asice",
                ],
                [
                    "with": hostile, "label": "key", "location": "key file <b>x</b>",
                    "algorithm": "ECDSA P-256 with SHA-256",
                    "subject": "<i>TEST</i>", "phases": phases(0.002), "runs": runTimes,
                    "properties": properties("key file <b>x</b>"),
                    "validation": "VALID (B)",
                ],
                [
                    "with": "pkcs11:gone", "label": "pkcs11-gone", "location": "", "algorithm": "", "subject": "",
                    "phases": [String: Any](),
                    "runs": [[String: Double]](), "error": ["code": "token-not-found", "message": "no token <gone>"],
                ],
            ],
        ]
        return Array(try JSONSerialization.data(withJSONObject: object))
    }

    /// Parsed (which also checks that it is well-formed); the SVG namespace is dropped for the
    /// queries, where FoundationXML would otherwise hide the attributes behind it.
    private func document(_ text: String) throws -> XMLDocument {
        _ = try XMLDocument(xmlString: text, options: [.nodePreserveAll])
        return try XMLDocument(
            xmlString: text.replacingOccurrences(of: " xmlns=\"http://www.w3.org/2000/svg\"", with: ""),
            options: [.nodePreserveAll])
    }

    func testEachSegmentIsOnePhaseOfOneSignerInTheJSONsOrder() throws {
        let json = try Self.json()
        let model = try CompareReport.model(json)
        let svg = try document(CompareReport.svg(model, standalone: true))
        let rects = try svg.nodes(forXPath: "//*[local-name()='rect'][@class='phase']").compactMap { $0 as? XMLElement }
        // What the JSON says should be drawn: every phase with a median above zero, per signer, in order.
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        var expected: [(signer: Int, phase: String)] = []
        for (index, signer) in (parsed["signers"] as? [[String: Any]] ?? []).enumerated() where signer["error"] == nil {
            let phases = signer["phases"] as? [String: [String: Double]] ?? [:]
            for phase in CompareReport.phases where (phases[phase.key]?["median"] ?? 0) > 0 {
                expected.append((index, phase.key))
            }
        }
        XCTAssertEqual(expected.count, 10, "two signers, five phases each (no TSA at B)")
        let drawn = rects.map { rect -> (Int, String) in
            let signer =
                (rect.parent as? XMLElement)?.attribute(forName: "data-signer")?.stringValue.flatMap(Int.init) ?? -1
            return (signer, rect.attribute(forName: "data-phase")?.stringValue ?? "")
        }
        XCTAssertEqual(drawn.map { "\($0.0):\($0.1)" }, expected.map { "\($0.signer):\($0.phase)" })
        // Segments follow one another without a gap, and each has its value on hover.
        let first = rects.prefix(5).map {
            (
                Double($0.attribute(forName: "x")?.stringValue ?? "") ?? -1,
                Double($0.attribute(forName: "width")?.stringValue ?? "") ?? -1
            )
        }
        for (left, right) in zip(first, first.dropFirst()) { XCTAssertEqual(left.0 + left.1, right.0, accuracy: 0.02) }
        XCTAssertTrue(
            rects.allSatisfy { ($0.elements(forName: "title").first?.stringValue ?? "").contains("ms median") })
        // The failed signer is a line saying so, with its message on hover, and no bar.
        let failed = try svg.nodes(forXPath: "//*[local-name()='text'][@class='failed']")
        XCTAssertEqual(failed.map { $0.stringValue?.hasPrefix("FAILED: token-not-found") }, [true])
        // One whisker per signer that signed, one legend entry per phase in the bars' order.
        XCTAssertEqual(try svg.nodes(forXPath: "//*[local-name()='g'][@class='whisker']").count, 2)
        let legend = try svg.nodes(forXPath: "//*[local-name()='g'][@class='legend']").compactMap {
            ($0 as? XMLElement)?.attribute(forName: "data-phase")?.stringValue
        }
        XCTAssertEqual(legend, CompareReport.phases.map(\.key))
        XCTAssertEqual(Set(CompareReport.phases.map(\.colour)).count, 6, "six colours")
    }

    func testThePageIsSelfContainedAndShowsNamesAsText() throws {
        let model = try CompareReport.model(Self.json(runs: 5))
        let page = CompareReport.html(model)
        XCTAssertFalse(page.contains("<script"), "a signer's name is never markup")
        XCTAssertTrue(page.contains("key:&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;x&#39;.p12"))
        XCTAssertFalse(page.contains("<i>TEST</i>"))
        for fetch in ["src=", "href=", "url(", "@import", "http://", "https://"] where fetch != "http://" {
            XCTAssertFalse(page.contains(fetch), "nothing is fetched: \(fetch)")
        }
        // Only the SVG namespace, which names and fetches nothing.
        XCTAssertEqual(
            page.components(separatedBy: "http://").count - 1,
            page.components(separatedBy: "xmlns=\"http://www.w3.org/2000/svg\"").count - 1)
        XCTAssertTrue(page.contains("Content-Security-Policy\" content=\"default-src 'none'"))
        XCTAssertTrue(page.contains("@page { size: A4"))
        // The strip plot: a dot per run of each signer that signed.
        XCTAssertEqual(page.components(separatedBy: "<circle class=\"run\"").count - 1, 10)
        // The properties and how to reproduce the report, from the JSON.
        for text in [
            "3 tries, 3 left now", "qualified (QC) · on a QSCD", "Debian GNU/Linux 12 (bookworm)", "0.1.0 (commit abc)",
            "2026-12-01T10:00:00Z", "tamga compare contract.asice --with card",
            "FAILED: token-not-found: no token &lt;gone&gt;",
        ] {
            XCTAssertTrue(page.contains(text), text)
        }
        // The whole page is well-formed (XHTML-compatible): every element the renderer opens is closed.
        let body = page.components(separatedBy: "<body>").last?.components(separatedBy: "</body>").first ?? ""
        XCTAssertNoThrow(
            try document("<body>" + body.replacingOccurrences(of: "<meta charset=\"utf-8\">", with: "") + "</body>"))
    }

    func testTicksCommandsAndNamesAsAPersonReadsThem() throws {
        XCTAssertEqual(CompareReport.tickStep(0.012), 0.002)
        XCTAssertEqual(CompareReport.tickStep(0.0123), 0.005)
        XCTAssertEqual(CompareReport.tickStep(0.9), 0.2)
        XCTAssertEqual(CompareReport.tickStep(120), 20)
        XCTAssertEqual(CompareReport.tickStep(0), 1)
        XCTAssertEqual(CompareReport.tickLabel(0.04, step: 0.02), "40")
        XCTAssertEqual(CompareReport.tickLabel(0.0005, step: 0.0005), "0.5")
        XCTAssertEqual(CompareReport.tickLabel(0, step: 0.00002), "0.00")
        XCTAssertEqual(CompareReport.milliseconds(0.000425), "0.43")
        XCTAssertEqual(CompareReport.milliseconds(0.0158), "15.8")
        XCTAssertEqual(CompareReport.milliseconds(0.1224), "122")
        XCTAssertEqual(CompareReport.shortened("key:/work/main/Fixtures/pki/ec-p256.p12", 28), "key:…/ec-p256.p12")
        XCTAssertEqual(CompareReport.shortened("pkcs11:a-very-long-token-label-here:01", 28).count, 28)
        XCTAssertEqual(CompareReport.escape("a\u{0}b\u{7F}c\td"), "abc d")
        // The command as the report prints it is what a shell reads back, word for word.
        let words = [
            "tamga", "compare", "it's a file.asice", "--with", "pkcs11:demo token:01", "--trust", "$HOME/x", "a\"b",
        ]
        let echoed = try TestEnvironment.run("/bin/sh", ["-c", "printf '%s\\n' " + CompareReport.shellWords(words)])
        XCTAssertEqual(
            echoed.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init), words)
    }

    func testAReportIsWrittenWholeAndNotOverAnExistingFile() throws {
        let folder = try TestEnvironment.temporaryFolder("compare-report")
        defer { TestEnvironment.removeFolder(folder) }
        let path = folder.appendingPathComponent("report.svg").path
        try CompareReport.write(json: Self.json(), to: path, force: false)
        XCTAssertNoThrow(try document(String(contentsOfFile: path, encoding: .utf8)))
        XCTAssertThrowsError(try CompareReport.write(json: Self.json(), to: path, force: false))
        XCTAssertNoThrow(try CompareReport.write(json: Self.json(), to: path, force: true))
        XCTAssertThrowsError(
            try CompareReport.write(
                json: Array("{}".utf8), to: folder.appendingPathComponent("bad.html").path, force: false))
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.path), ["report.svg"],
            "no temporary file and no half report")
        XCTAssertNil(CompareReport.Format(path: "report.pdf"))
    }
}
