import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// Hostile and broken containers made by `scripts/make-hostile-containers.py` (Python, lxml,
/// cryptography: no tamga code) from a container tamga signed. Each must give its own clear
/// error or finding, and opening or verifying it must not change a byte of it.
final class HostileContainerTests: ContainerTestCase {
    enum Expectation {
        case refusedAtOpen(String)
        case invalid(Set<String>)
        case warning(String)
    }

    static let expectations: [String: Expectation] = [
        "dotdot-entry": .refusedAtOpen("unsafe-entry-name"),
        "absolute-entry": .refusedAtOpen("unsafe-entry-name"),
        "backslash-entry": .refusedAtOpen("unsafe-entry-name"),
        "dot-segment": .refusedAtOpen("unsafe-entry-name"),
        "empty-segment": .refusedAtOpen("unsafe-entry-name"),
        "duplicate-entry": .refusedAtOpen("duplicate-entry"),
        "mimetype-missing": .refusedAtOpen("mimetype-missing"),
        "mimetype-not-first": .refusedAtOpen("mimetype-not-first"),
        "mimetype-wrong-value": .refusedAtOpen("mimetype-wrong"),
        // The reference opens these; tamga does too, and reports the EN 319 162-1 deviation.
        "mimetype-deflated": .warning("container-structure"),
        "mimetype-extra-field": .warning("container-structure"),
        "manifest-lists-missing-file": .refusedAtOpen("manifest-mismatch"),
        "zip-has-unlisted-file": .refusedAtOpen("manifest-mismatch"),
        "reference-not-in-manifest": .refusedAtOpen("manifest-mismatch"),
        "manifest-entity-bomb": .refusedAtOpen("malformed-manifest"),
        "manifest-entity-bomb-attribute": .refusedAtOpen("malformed-manifest"),
        "manifest-xxe": .refusedAtOpen("malformed-manifest"),
        "signature-xxe": .refusedAtOpen("malformed-xml"),
        "truncated-zip": .refusedAtOpen("malformed-zip"),
        "truncated-central-directory": .refusedAtOpen("malformed-zip"),
        // The reference refuses at open; tamga opens (the data stays extractable) and rejects the signature.
        "unsupported-counter-signature": .invalid(["unsupported-element"]),
        "extra-reference-to-absent-file": .invalid(["reference-file-missing"]),
        "reference-not-in-manifest-meta-inf": .invalid(["reference-not-in-manifest"]),
        "tampered-data-file": .invalid(["data-file-digest"]),
        "swapped-keyinfo-cert": .invalid([
            "signature-value", "signing-certificate-digest", "signing-certificate-issuer-serial",
        ]),
        "tampered-signed-properties": .invalid(["signed-properties-digest"]),
        "ecdsa-der-signature-value": .invalid(["signature-value"]),
    ]

    private func makeCases() async throws -> URL {
        let base = try await signedContainer("ec-p256")
        let out = folder.appendingPathComponent("hostile")
        let result = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                TestEnvironment.script("make-hostile-containers.py"), base.path, TestEnvironment.pki("ec-p256.key.pem"),
                TestEnvironment.pki("ec-p256.cert.pem"), TestEnvironment.pki("other-ec-p256.cert.pem"), out.path,
            ])
        XCTAssertEqual(result.status, 0, result.error)
        return out
    }

    func testEveryHostileCaseGivesItsOwnVerdictAndChangesNothing() async throws {
        let out = try await makeCases()
        let listed =
            try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("cases.json")))
            as! [String: Any]
        XCTAssertEqual(Set(listed.keys), Set(Self.expectations.keys), "every generated case has an expectation here")
        for (name, expectation) in Self.expectations.sorted(by: { $0.key < $1.key }) {
            let file = out.appendingPathComponent("\(name).asice").path
            let before = try TestEnvironment.bytes(file)
            switch expectation {
            case .refusedAtOpen(let code):
                XCTAssertThrowsError(try Container(openingAt: file), name) { error in
                    XCTAssertEqual((error as? ContainerError)?.code, code, "\(name): \(error)")
                    XCTAssertFalse("\(error)".isEmpty)
                }
            case .invalid(let expected):
                let report = try validate(Container(openingAt: file))
                XCTAssertEqual(report.status, .invalid, name)
                // Exactly these reasons: a case broken in some other way must not pass by accident.
                XCTAssertEqual(Set(report.signatures.flatMap(\.findings).map(\.code)), expected, name)
            case .warning(let code):
                let report = try validate(Container(openingAt: file))
                XCTAssertEqual(report.status, .warning, name)
                XCTAssertEqual(report.findings.map(\.code), [code], name)
            }
            XCTAssertEqual(try TestEnvironment.bytes(file), before, "\(name) was modified")
        }
    }

    func testControlsStayValid() async throws {
        let out = try await makeCases()
        for control in ["control-rezipped", "control-resigned"] {
            XCTAssertEqual(
                try validate(Container(openingAt: out.appendingPathComponent("\(control).asice").path)).status, .valid,
                control)
        }
    }

    func testLocalHeaderThatDisagreesWithTheDirectoryIsRefusedAtOpen() throws {
        let container = try makeContainer()
        var bytes = [UInt8](try TestEnvironment.bytes(container.path))
        // The first data entry's local header starts right after mimetype (30 + 8 + 31 bytes).
        let local = 69
        XCTAssertEqual(Array(bytes[local..<local + 4]), [0x50, 0x4B, 0x03, 0x04])
        bytes[local + 14] ^= 0xFF  // its CRC-32
        let file = path("disagree.asice")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        XCTAssertThrowsError(try Container(openingAt: file)) {
            XCTAssertEqual(($0 as? ContainerError)?.code, "malformed-zip")
        }
    }

    func testZipBombEntryIsRefusedWhileStreaming() throws {
        // A data entry that claims 10 bytes but inflates to 50 MB: stopped at the declared size.
        let file = path("bomb.asice")
        let script = """
            import sys, zipfile, zlib, struct
            manifest = b'<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.etsi.asic-e+zip"/><manifest:file-entry manifest:full-path="a.txt" manifest:media-type="text/plain"/></manifest:manifest>'
            z = zipfile.ZipFile(sys.argv[1], "w")
            z.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.etsi.asic-e+zip")
            z.writestr("a.txt", b"\\0" * 50_000_000, compress_type=zipfile.ZIP_DEFLATED)
            z.writestr("META-INF/manifest.xml", manifest)
            z.close()
            data = bytearray(open(sys.argv[1], "rb").read())
            # Patch the uncompressed size of a.txt to 10 in the central directory.
            cd = data.find(b"PK\\x01\\x02")
            while data[cd + 46:cd + 51] != b"a.txt":
                cd = data.find(b"PK\\x01\\x02", cd + 4)
            struct.pack_into("<I", data, cd + 24, 10)
            # ...and in the local header, so both agree and only inflating reveals the lie.
            local = data.find(b"PK\\x03\\x04")
            while data[local + 30:local + 35] != b"a.txt":
                local = data.find(b"PK\\x03\\x04", local + 4)
            struct.pack_into("<I", data, local + 22, 10)
            open(sys.argv[1], "wb").write(data)
            """
        XCTAssertEqual(try TestEnvironment.run("/usr/bin/python3", ["-c", script, file]).status, 0)
        let container = try Container(openingAt: file)
        XCTAssertThrowsError(try container.digest(of: container.dataFiles[0], .sha256)) {
            XCTAssertEqual(($0 as? ContainerError)?.code, "corrupt-entry")
        }
    }
}
