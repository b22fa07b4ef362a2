import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// Builds ASiC-S containers by hand: tokens from `openssl ts -reply` with the test TSA key (no
/// service needed), ZIPs with tamga's writer or with python's zipfile, archive manifests as the
/// reference writes them (docs/design/asics-tm-names.md §1.3).
class SimpleContainerTestCase: ContainerTestCase {
    private var tsaConfig: String!
    private var counter = 0

    override func setUpWithError() throws {
        try super.setUpWithError()
        tsaConfig = path("tsa.cnf")
        let config = """
            [ tsa ]
            default_tsa = tsa1
            [ tsa1 ]
            serial = \(path("tsaserial"))
            signer_cert = \(TestEnvironment.pki("tsa.cert.pem"))
            signer_key = \(TestEnvironment.pki("tsa.key.pem"))
            certs = \(TestEnvironment.pki("issuing-ca.cert.pem"))
            signer_digest = sha256
            digests = sha1, sha256, sha384, sha512
            default_policy = 1.2.3.4.1
            accuracy = secs:1
            ordering = yes
            tsa_name = yes
            ess_cert_id_alg = sha256

            """
        try Data(config.utf8).write(to: URL(fileURLWithPath: tsaConfig))
    }

    private func scratch(_ suffix: String) -> String {
        counter += 1
        return path("scratch-\(counter).\(suffix)")
    }

    /// A DER TimeStampToken (or, with `response`, the whole TimeStampResp) over `data`,
    /// made by `openssl ts`.
    func opensslToken(over data: Data, digest: String = "sha256", response: Bool = false) throws -> Data {
        let input = scratch("bin"), query = scratch("tsq"), output = scratch("tst")
        try data.write(to: URL(fileURLWithPath: input))
        let q = try TestEnvironment.run(
            "/usr/bin/openssl", ["ts", "-query", "-data", input, "-\(digest)", "-cert", "-out", query])
        XCTAssertEqual(q.status, 0, q.error)
        let r = try TestEnvironment.run(
            "/usr/bin/openssl",
            ["ts", "-reply", "-config", tsaConfig, "-queryfile", query, "-out", output]
                + (response ? [] : ["-token_out"]))
        XCTAssertEqual(r.status, 0, r.error)
        return try TestEnvironment.bytes(output)
    }

    /// A ZIP written by tamga's writer, entries in the order given.
    @discardableResult
    func writeZip(_ name: String, _ entries: [(String, Data, ZipEntry.Method)]) throws -> String {
        let output = try AtomicOutputFile(replacing: path(name))
        let writer = ZipWriter(output: output)
        for (entryName, data, method) in entries {
            try writer.add(name: entryName, data: data, method: method, modified: Date())
        }
        try writer.finish()
        try output.commit()
        return path(name)
    }

    /// A ZIP written by python's zipfile (an independent writer).
    @discardableResult
    func pythonZip(_ name: String, _ entries: [(String, Data, deflate: Bool)]) throws -> String {
        var arguments = [
            "-c",
            """
            import sys, zipfile
            out, rest = sys.argv[1], sys.argv[2:]
            with zipfile.ZipFile(out, "w") as z:
                for i in range(0, len(rest), 3):
                    method = zipfile.ZIP_DEFLATED if rest[i + 2] == "1" else zipfile.ZIP_STORED
                    z.write(rest[i + 1], rest[i], compress_type=method)
            """, path(name),
        ]
        for (entryName, data, deflate) in entries {
            let source = scratch("src")
            try data.write(to: URL(fileURLWithPath: source))
            arguments += [entryName, source, deflate ? "1" : "0"]
        }
        let result = try TestEnvironment.run("/usr/bin/python3", arguments)
        XCTAssertEqual(result.status, 0, result.error)
        return path(name)
    }

    static let mimetype = Data("application/vnd.etsi.asic-s+zip".utf8)
    static let content = Data("time-stamped content\n".utf8)

    /// `mimetype`, `a.txt`, `META-INF/timestamp.tst` over a.txt, plus `extra` entries.
    @discardableResult
    func tokenContainer(
        _ name: String = "t.asics", data: Data = content, token: Data? = nil,
        extra: [(String, Data, ZipEntry.Method)] = []
    ) throws -> String {
        let token = try token ?? opensslToken(over: data)
        return try writeZip(
            name,
            [
                ("mimetype", Self.mimetype, .stored), ("a.txt", data, .deflated),
                ("META-INF/timestamp.tst", token, .stored),
            ] + extra)
    }

    /// An ASiCArchiveManifest as the reference writes it: SigReference, then references with
    /// SHA-256 digests of the given bytes.
    func archiveManifest(
        sigReference: String, references: [(uri: String, data: Data, rootfile: Bool)],
        sigMimeType: String = "application/vnd.etsi.timestamp-token"
    ) -> Data {
        var xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="no"?>
            <asic:ASiCManifest xmlns:asic="http://uri.etsi.org/02918/v1.2.1#">
              <asic:SigReference MimeType="\(sigMimeType)" URI="\(sigReference)"/>

            """
        for reference in references {
            let digest = Digest.compute(.sha256, over: reference.data).bytes.base64EncodedString()
            xml += """
                  <asic:DataObjectReference MimeType="\(reference.rootfile ? "text/xml" : "application/octet-stream")" URI="\(reference.uri)"\(reference.rootfile ? " Rootfile=\"true\"" : "")>
                    <ds:DigestMethod xmlns:ds="http://www.w3.org/2000/09/xmldsig#" Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>
                    <ds:DigestValue xmlns:ds="http://www.w3.org/2000/09/xmldsig#">\(digest)</ds:DigestValue>
                  </asic:DataObjectReference>

                """
        }
        return Data((xml + "</asic:ASiCManifest>\n").utf8)
    }

    var trusted: ValidationOptions {
        get throws { ValidationOptions(trust: try TestEnvironment.testTrust(), minimumProfile: .B) }
    }

    func assertCode(
        _ report: ValidationReport, _ code: String, _ status: ValidationReport.Status, contains text: String? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let findings = report.signatures.flatMap(\.findings) + report.findings
        XCTAssertEqual(report.status, status, "\(findings)", file: file, line: line)
        guard let finding = findings.first(where: { $0.code == code }) else {
            return XCTFail("no \(code) finding in \(findings)", file: file, line: line)
        }
        if let text { XCTAssertTrue(finding.message.contains(text), finding.message, file: file, line: line) }
    }

    func assertRefused(_ path: String, _ expected: ContainerError, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try Container(openingAt: path), file: file, line: line) { error in
            XCTAssertEqual(error as? ContainerError, expected, file: file, line: line)
        }
    }
}
