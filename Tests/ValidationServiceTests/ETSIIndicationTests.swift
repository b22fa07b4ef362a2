import ASiC
import Foundation
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ValidationService

/// tamga's verdicts in ETSI's words (`ETSIIndication`), and SiVa's level and name forms: never
/// more favourable than tamga's verdict, and as docs/siva.md's table says.
final class ETSIIndicationTests: XCTestCase {
    private func finding(_ code: String, _ severity: ValidationReport.Status) -> ValidationReport.Finding {
        // Findings are made by the validators; a report decoded from JSON gives test ones.
        let json = #"{"code":"\#(code)","severity":"\#(severity.rawValue)","message":"m"}"#
        return try! JSONDecoder().decode(ValidationReport.Finding.self, from: Data(json.utf8))
    }

    func testTheDocumentedTableIsTheMapping() throws {
        let text = try String(
            contentsOf: TestEnvironment.repository.appendingPathComponent("docs/siva.md"), encoding: .utf8)
        let section = try XCTUnwrap(text.components(separatedBy: "<!-- sub-indications:").dropFirst().first)
        var rows = 0
        for line in section.split(separator: "\n").dropFirst(3) {
            guard line.hasPrefix("| `") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
            XCTAssertEqual(ETSIIndication.subIndication(forFailed: cells[0]), cells[1], cells[0])
            XCTAssertEqual(
                ETSIIndication.subIndication(forFailed: cells[0] + "-at-issue"), cells[1], cells[0] + "-at-issue")
            rows += 1
        }
        XCTAssertGreaterThan(rows, 30)
        XCTAssertEqual(ETSIIndication.subIndication(forFailed: "something-new"), "FORMAT_FAILURE")
    }

    func testTheIndicationFollowsTamgasVerdict() {
        XCTAssertEqual(
            ETSIIndication(status: .valid, findings: []), .init(indication: .totalPassed, subIndication: nil))
        XCTAssertEqual(
            ETSIIndication(status: .nonQSCD, findings: [finding("not-qualified", .nonQSCD)]).indication, .totalPassed)
        XCTAssertEqual(
            ETSIIndication(
                status: .unknown,
                findings: [finding("weak-digest", .warning), finding("trust-not-established", .unknown)]),
            .init(indication: .indeterminate, subIndication: "NO_CERTIFICATE_CHAIN_FOUND"))
        // A final failure anywhere makes it TOTAL-FAILED, whatever came first.
        XCTAssertEqual(
            ETSIIndication(
                status: .invalid,
                findings: [finding("no-non-repudiation", .invalid), finding("reference-digest", .invalid)]),
            .init(indication: .totalFailed, subIndication: "HASH_FAILURE"))
        // Only a broken constraint: INDETERMINATE, still not passed.
        XCTAssertEqual(
            ETSIIndication(status: .invalid, findings: [finding("no-non-repudiation", .invalid)]),
            .init(indication: .indeterminate, subIndication: "CHAIN_CONSTRAINTS_FAILURE"))
        XCTAssertEqual(
            ETSIIndication(status: .invalid, findings: []),
            .init(indication: .indeterminate, subIndication: "NO_CERTIFICATE_CHAIN_FOUND"))
    }

    func testLevelsAndNamesInSiVasForms() throws {
        let qes = ValidationReport.SignerQualification(qualified: true, qscd: true, seal: false)
        let qcOnly = ValidationReport.SignerQualification(qualified: true, qscd: false, seal: false)
        let seal = ValidationReport.SignerQualification(qualified: true, qscd: false, seal: true)
        let none = ValidationReport.SignerQualification(qualified: false, qscd: false, seal: false)
        XCTAssertEqual(ConclusionBuilder.signatureLevel(qes, .totalPassed), "QESIG")
        XCTAssertEqual(ConclusionBuilder.signatureLevel(qcOnly, .totalPassed), "ADESIG_QC")
        XCTAssertEqual(ConclusionBuilder.signatureLevel(seal, .totalPassed), "ADESEAL_QC")
        XCTAssertEqual(ConclusionBuilder.signatureLevel(none, .totalPassed), "ADESIG")
        XCTAssertEqual(ConclusionBuilder.signatureLevel(qes, .indeterminate), "INDETERMINATE_QESIG")
        XCTAssertEqual(ConclusionBuilder.signatureLevel(qes, .totalFailed), "NOT_ADES_QC_QSCD")
        XCTAssertEqual(ConclusionBuilder.signatureLevel(none, .totalFailed), "NOT_ADES")
        XCTAssertEqual(ConclusionBuilder.signatureLevel(nil, .totalPassed), "NA")
        XCTAssertEqual(SiVaPolicy.polv4.judge(level: "QESIG").passes, true)
        XCTAssertEqual(
            SiVaPolicy.polv4.judge(level: "ADESIG_QC").warning,
            "The signature is not in the Qualified Electronic Signature level")
        XCTAssertEqual(SiVaPolicy.polv4.judge(level: "ADESIG").passes, false)
        XCTAssertEqual(SiVaPolicy.polv4.judge(level: "NA").passes, false)
        XCTAssertEqual(SiVaPolicy.polv3.judge(level: "NA").passes, true)
        XCTAssertEqual(SiVaPolicy.polv4.judge(level: nil).passes, true, "DDOC: no level, not judged by it")

        let person = try DistinguishedName(
            rfc4514:
                #"CN=JÕEORG\,JAAK-KRISTJAN\,38001085718,SN=JÕEORG,GN=JAAK-KRISTJAN,serialNumber=PNOEE-38001085718,C=EE"#
        )
        XCTAssertEqual(ConclusionBuilder.signedBy(person), "JÕEORG,JAAK-KRISTJAN,38001085718")
        let subject = ConclusionBuilder.subjectName(person)
        XCTAssertEqual(subject.serialNumber, "PNOEE-38001085718")
        XCTAssertEqual(subject.commonName, "JÕEORG,JAAK-KRISTJAN,38001085718")
        let company = try DistinguishedName(rfc4514: "CN=Example Seal,O=Example AS,C=EE")
        XCTAssertEqual(ConclusionBuilder.signedBy(company), "Example Seal")
        XCTAssertEqual(ConclusionBuilder.sivaTime("2026-01-02T03:04:05.678+02:00"), "2026-01-02T01:04:05Z")
    }
}
