import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// The DDOC trust set (`DDOCTrustSet`, docs/ddoc-trust.md): every PEM is one certificate whose
/// computed fingerprints are the listed ones and the documented ones, roles agree with the
/// certificates themselves, every responder is bound to a CA of the set, and nothing of SK's test
/// services or of 2016 and later slipped in.
final class DDOCTrustSetTests: XCTestCase {
    private static func hex(_ digest: Digest) -> String { Hex.encode(digest.bytes, uppercase: true) }

    private static func documentation() throws -> String {
        try String(contentsOf: TestEnvironment.repository.appendingPathComponent("docs/ddoc-trust.md"), encoding: .utf8)
    }

    func testEveryPEMIsExactlyOneCertificate() throws {
        for entry in DDOCTrustSet.entries {
            let certificates = try Certificate.parseAll(pem: Data(entry.pem.utf8))
            XCTAssertEqual(certificates.count, 1, "\(entry.name) \(entry.sha256)")
            XCTAssertEqual(certificates.first?.commonName, entry.name, entry.sha256)
        }
        XCTAssertEqual(DDOCTrustSet.certificates.count, DDOCTrustSet.entries.count, "a PEM did not parse")
        XCTAssertEqual(
            Set(DDOCTrustSet.fingerprints).count, DDOCTrustSet.entries.count, "a certificate is listed twice")
    }

    func testTheCountsAreTheDocumentedOnes() throws {
        XCTAssertEqual(DDOCTrustSet.entries.count, 26)
        XCTAssertEqual(DDOCTrustSet.roots.count, 2)
        XCTAssertEqual(DDOCTrustSet.cas.count, 10)
        XCTAssertEqual(DDOCTrustSet.responders.count, 14)
        let sentence =
            "\(DDOCTrustSet.certificates.count) certificates: \(DDOCTrustSet.roots.count) roots, "
            + "\(DDOCTrustSet.cas.count) CAs and \(DDOCTrustSet.responders.count) OCSP responder certificates"
        XCTAssertTrue(try Self.documentation().contains(sentence), "docs/ddoc-trust.md should say \"\(sentence)\"")
    }

    func testTheListedFingerprintsAreTheComputedOnes() {
        XCTAssertEqual(DDOCTrustSet.certificates.map { Self.hex($0.sha256Fingerprint) }, DDOCTrustSet.fingerprints)
        XCTAssertEqual(DDOCTrustSet.fingerprints, DDOCTrustSet.entries.map(\.sha256))
        XCTAssertEqual(
            DDOCTrustSet.fingerprints.first, "ECC3E9C3407503BEE091AA952F41348FF88BAA863B2264BEFAC807901574E939",
            "Juur-SK")
        for certificate in DDOCTrustSet.certificates {
            XCTAssertEqual(DDOCTrustSet.entry(for: certificate)?.sha256, Self.hex(certificate.sha256Fingerprint))
        }
    }

    /// Each certificate's SHA-256 and SHA-1 are on one row of the document, and its tables name
    /// no other full fingerprint (a stale row after a change of the set).
    func testTheDocumentationListsExactlyTheseFingerprints() throws {
        let text = try Self.documentation()
        let rows = text.split(separator: "\n").map(String.init)
        var sha256s: Set<String> = []
        var sha1s: Set<String> = []
        for certificate in DDOCTrustSet.certificates {
            let sha256 = Self.hex(certificate.sha256Fingerprint)
            let sha1 = Self.hex(certificate.fingerprint(.sha1))
            sha256s.insert(sha256)
            sha1s.insert(sha1)
            XCTAssertEqual(
                rows.filter { $0.contains(sha256) && $0.contains(sha1) }.count, 1,
                "docs/ddoc-trust.md should have one row with \(certificate.commonName ?? "?")'s SHA-256 \(sha256) and SHA-1 \(sha1)"
            )
        }
        // Upper-case hex words of a fingerprint's length in the tables (the prose names an upper-case
        // hex file name of esig/dss).
        let words = rows.filter { $0.hasPrefix("|") }.joined(separator: "\n")
            .split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }.map(String.init)
        let hex = words.filter { $0.allSatisfy { "0123456789ABCDEF".contains($0) } }
        XCTAssertEqual(
            Set(hex.filter { $0.count == 64 }), sha256s, "the SHA-256 fingerprints of docs/ddoc-trust.md's tables")
        XCTAssertEqual(
            Set(hex.filter { $0.count == 40 }), sha1s, "the SHA-1 fingerprints of docs/ddoc-trust.md's tables")
    }

    /// Roots are self-issued CAs, CAs are issued by a root of the set, responders are no CAs and
    /// are issued by a CA or root of the set (SK OCSP RESPONDER 2011 by EECCRCA).
    func testRolesAgreeWithTheCertificates() {
        let issuers = DDOCTrustSet.roots + DDOCTrustSet.cas
        for root in DDOCTrustSet.roots {
            XCTAssertTrue(root.isCA, root.subject)
            XCTAssertTrue(root.isSelfIssued, root.subject)
            XCTAssertTrue(root.isIssuer(of: root), root.subject)
        }
        for ca in DDOCTrustSet.cas {
            XCTAssertTrue(ca.isCA, ca.subject)
            XCTAssertFalse(ca.isSelfIssued, ca.subject)
            XCTAssertTrue(
                DDOCTrustSet.roots.contains { $0.isIssuer(of: ca) }, "\(ca.subject) is issued by no root of the set")
        }
        for responder in DDOCTrustSet.responders {
            XCTAssertFalse(responder.isCA, responder.subject)
            XCTAssertTrue(
                issuers.contains { $0.isIssuer(of: responder) }, "\(responder.subject) is issued by no CA of the set")
        }
        for entry in DDOCTrustSet.entries {
            XCTAssertEqual(
                DDOCTrustSet.parsed.first { $0.entry.sha256 == entry.sha256 }?.certificate.isCA,
                entry.role != .ocspResponder, entry.name)
        }
    }

    func testEveryResponderIsPairedWithACAAndEveryCAWithAResponder() {
        let roles = Dictionary(DDOCTrustSet.entries.map { ($0.sha256, $0.role) }) { first, _ in first }
        for pairing in DDOCTrustSet.pairings {
            XCTAssertEqual(roles[pairing.ca], .ca, "pairing key \(pairing.ca) is not a CA of the set")
            XCTAssertFalse(pairing.responders.isEmpty, pairing.ca)
            for responder in pairing.responders {
                XCTAssertEqual(roles[responder], .ocspResponder, "\(responder) is not a responder of the set")
            }
        }
        XCTAssertEqual(Set(DDOCTrustSet.pairings.map(\.ca)).count, DDOCTrustSet.pairings.count, "a CA is paired twice")
        for responder in DDOCTrustSet.responders {
            XCTAssertFalse(
                DDOCTrustSet.cas(forResponder: responder).isEmpty, "\(responder.subject) is paired with no CA")
        }
        for ca in DDOCTrustSet.cas {
            XCTAssertFalse(DDOCTrustSet.responders(forIssuer: ca).isEmpty, "\(ca.subject) has no responder")
        }
        for fingerprint in DDOCTrustSet.notOnDigiDoc4jTimeMarkList {
            XCTAssertEqual(roles[fingerprint], .ocspResponder, fingerprint)
        }
    }

    /// The pairing table of docs/ddoc-trust.md ("| 3 ESTEID-SK | 13 …, 16 … | basis |", by the
    /// numbers of its first table) is `pairings`.
    func testTheDocumentedPairingIsTheCodesPairing() throws {
        let rows = try Self.documentation().split(separator: "\n").map(String.init).filter { $0.hasPrefix("| ") }
        let cells = rows.map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        var numbered: [Int: String] = [:]
        for row in cells where row.count > 6 {
            if let number = Int(row[0]), let sha256 = row.first(where: { $0.count == 66 && $0.hasPrefix("`") }) {
                numbered[number] = String(sha256.dropFirst().dropLast())
            }
        }
        XCTAssertEqual(numbered.count, DDOCTrustSet.entries.count, "the numbered table of docs/ddoc-trust.md")
        XCTAssertEqual(
            numbered.sorted { $0.key < $1.key }.map(\.value), DDOCTrustSet.fingerprints,
            "numbered in the order of entries")
        func number(_ cell: Substring) -> Int? { cell.split(separator: " ").first.flatMap { Int($0) } }
        var documented: [String: Set<String>] = [:]
        for row in cells where row.count == 3 {
            guard let ca = number(Substring(row[0])), row[0].contains(" "), let key = numbered[ca] else { continue }
            documented[key] = Set(
                row[1].split(separator: ",").compactMap { number(Substring($0.trimmingCharacters(in: .whitespaces))) }
                    .compactMap { numbered[$0] })
        }
        XCTAssertEqual(
            documented, Dictionary(DDOCTrustSet.pairings.map { ($0.ca, Set($0.responders)) }) { first, _ in first })
    }

    /// The pairing is by certificate: both KLASS3-SK 2010 certificates (one CA, one key) give the
    /// same responders, and a certificate outside the set gives none even with a set CA's name.
    func testThePairingIsByCertificateNotByName() throws {
        let klass3 = DDOCTrustSet.cas.filter { $0.commonName == "KLASS3-SK 2010" }
        XCTAssertEqual(klass3.count, 2)
        XCTAssertEqual(DDOCTrustSet.responders(forIssuer: klass3[0]), DDOCTrustSet.responders(forIssuer: klass3[1]))
        XCTAssertEqual(
            Set(DDOCTrustSet.responders(forIssuer: klass3[0]).compactMap(\.commonName)),
            ["KLASS3-SK 2010 OCSP RESPONDER", "SK OCSP RESPONDER 2011"])
        let esteid2011 = try XCTUnwrap(DDOCTrustSet.cas.first { $0.commonName == "ESTEID-SK 2011" })
        XCTAssertEqual(
            DDOCTrustSet.responders(forIssuer: esteid2011).compactMap(\.commonName), ["SK OCSP RESPONDER 2011"])
        let other = try Certificate(derOrPEM: TestEnvironment.bytes(TestEnvironment.pki("issuing-ca.cert.pem")))
        XCTAssertTrue(DDOCTrustSet.responders(forIssuer: other).isEmpty)
        XCTAssertNil(DDOCTrustSet.entry(for: other))
        XCTAssertTrue(DDOCTrustSet.responders(forIssuer: DDOCTrustSet.roots[0]).isEmpty, "a root is no pairing key")
    }

    /// No certificate of SK's test or demo services, and nothing issued in 2016 or later: the
    /// CAs of 2016 are deliberately left out (not in DigiDoc4j's DDOC configuration).
    func testNoTestCertificateAndNothingFrom2016On() {
        let january2016 = Date(timeIntervalSince1970: 1_451_606_400)
        for certificate in DDOCTrustSet.certificates {
            for name in [certificate.subject, certificate.issuer] {
                XCTAssertFalse(name.lowercased().contains("test"), name)
                XCTAssertFalse(name.lowercased().contains("demo"), name)
            }
            XCTAssertLessThan(certificate.notBefore, january2016, certificate.subject)
        }
        for entry in DDOCTrustSet.entries { XCTAssertFalse(entry.name.lowercased().contains("test"), entry.name) }
    }
}
