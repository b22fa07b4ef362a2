import TamgaCore
import TamgaTestSupport
import XCTest

/// Certificate fields checked against what the openssl command line prints for the same file.
final class CertificateTests: XCTestCase {
    private func openssl(_ args: [String]) throws -> String {
        let result = try TestEnvironment.run("/usr/bin/openssl", args)
        XCTAssertEqual(result.status, 0, result.error)
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testPEMAndDERParseToTheSameCertificate() throws {
        let pem = try Certificate(derOrPEM: TestEnvironment.bytes(TestEnvironment.pki("ec-p256.cert.pem")))
        let der = try Certificate(der: TestEnvironment.bytes(TestEnvironment.pki("ec-p256.cert.der")))
        XCTAssertEqual(pem, der)
        XCTAssertEqual(pem.der, try TestEnvironment.bytes(TestEnvironment.pki("ec-p256.cert.der")))
    }

    func testFieldsMatchOpenSSL() throws {
        for name in ["ec-p256", "ec-p384", "rsa-2048"] {
            let path = TestEnvironment.pki("\(name).cert.pem")
            let cert = try TestEnvironment.certificate(name)
            let subject = try openssl(["x509", "-in", path, "-noout", "-subject", "-nameopt", "RFC2253"])
            XCTAssertEqual("subject=" + cert.subject, subject, name)
            let issuer = try openssl(["x509", "-in", path, "-noout", "-issuer", "-nameopt", "RFC2253"])
            XCTAssertEqual("issuer=" + cert.issuer, issuer, name)
            let serialHex = try openssl(["x509", "-in", path, "-noout", "-serial"]).replacingOccurrences(
                of: "serial=", with: "")
            let decimal = try TestEnvironment.run("/usr/bin/python3", ["-c", "print(int('\(serialHex)', 16))"]).output
            XCTAssertEqual(cert.serialNumber, decimal.trimmingCharacters(in: .whitespacesAndNewlines), name)
            let fingerprint = try openssl(["x509", "-in", path, "-noout", "-fingerprint", "-sha256"])
                .components(separatedBy: "=").last!.replacingOccurrences(of: ":", with: "").lowercased()
            XCTAssertEqual(cert.sha256Fingerprint.hex, fingerprint, name)
            let endDate = try openssl(["x509", "-in", path, "-noout", "-enddate", "-dateopt", "iso_8601"])
            XCTAssertTrue(
                endDate.contains(ISO8601DateFormatter().string(from: cert.notAfter).prefix(10)), "\(name): \(endDate)")
            XCTAssertEqual(cert.ocspURLs, ["http://127.0.0.1:8788/ocsp"], name)
            XCTAssertTrue(cert.keyUsage?.contains(.nonRepudiation) ?? false, name)
            XCTAssertFalse(cert.isCA, name)
        }
    }

    func testKeyTypesAndSizes() throws {
        XCTAssertEqual(try TestEnvironment.certificate("ec-p256").publicKey.type, .ec(.p256))
        XCTAssertEqual(try TestEnvironment.certificate("ec-p384").publicKey.type, .ec(.p384))
        XCTAssertEqual(try TestEnvironment.certificate("rsa-2048").publicKey.type, .rsa(bits: 2048))
        XCTAssertEqual(try TestEnvironment.certificate("ec-p384").publicKey.defaultAlgorithm, .ecdsaP384SHA384)
    }

    func testKeyUsageWithoutNonRepudiation() throws {
        let cert = try TestEnvironment.certificate("nonrep-missing")
        XCTAssertEqual(cert.keyUsage, .digitalSignature)
        XCTAssertFalse(cert.keyUsage!.contains(.nonRepudiation))
        XCTAssertTrue(try TestEnvironment.certificate("root").isCA)
    }

    func testGarbageIsRefusedWithACode() {
        XCTAssertThrowsError(try Certificate(derOrPEM: Data("not a certificate".utf8))) { error in
            XCTAssertEqual((error as? CoreError)?.code, "malformed-certificate")
        }
        XCTAssertThrowsError(try Certificate(der: Data([0x30, 0x03, 0x02, 0x01, 0x01])))
    }

    func testPEMBundleKeepsOrder() throws {
        let bundle = try Certificate.parseAll(pem: TestEnvironment.bytes(TestEnvironment.pki("chain.pem")))
        XCTAssertGreaterThanOrEqual(bundle.count, 2)
        XCTAssertTrue(bundle.contains(try TestEnvironment.certificate("root")))
        XCTAssertTrue(bundle.contains(try TestEnvironment.certificate("issuing-ca")))
    }
}
