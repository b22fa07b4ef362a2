import TamgaCore
import TamgaTestSupport
import XCTest

@_spi(Testing) @testable import ASiC

/// Hostile DigiDoc files are refused at open (`malformed-ddoc`, the file untouched), and what
/// tamga accepts, independent tools accept too: xmlsec1 the 1.3 signatures (with the `Id`
/// attributes declared), `openssl ocsp` the notary's response.
final class DDOCHostileInputTests: DDOCTestCase {
    private func assertRefused(_ file: String, mentioning words: String, line: UInt = #line) throws {
        let before = try TestEnvironment.bytes(file)
        XCTAssertThrowsError(try Container(openingAt: file), line: line) { error in
            XCTAssertEqual((error as? ContainerError)?.code, "malformed-ddoc", "\(error)", line: line)
            XCTAssertTrue("\(error)".contains(words), "\(error)", line: line)
        }
        XCTAssertEqual(try TestEnvironment.bytes(file), before, line: line)
    }

    func testEntitiesDTDsAndCommentsAreRefusedBeforeAnythingIsExpandedOrFetched() throws {
        try assertRefused(try ddoc("1.3", ["--entity-bomb"]), mentioning: "DOCTYPE or entity declaration")
        // A SYSTEM entity pointing at a loopback URL that counts its requests: never asked.
        let canary = services.url("canary/ddoc-external-entity").absoluteString
        try assertRefused(try ddoc("1.3", ["--external-entity", canary]), mentioning: "DOCTYPE or entity declaration")
        for place in ["root", "datafile", "signedinfo", "signedproperties"] {
            try assertRefused(try ddoc("1.3", ["--comment", place]), mentioning: "comment")
        }
    }

    func testBrokenStructureIsRefusedWithItsReason() throws {
        let good = try TestEnvironment.bytes(try ddoc())
        let text = String(decoding: good, as: UTF8.self)
        let cases: [(String, String, String)] = [
            ("truncated", String(text.prefix(text.count / 2)), "the file ends"),
            ("another root", text.replacingOccurrences(of: "<SignedDoc ", with: "<SignedDocument "), "not SignedDoc"),
            (
                "version 1.4", text.replacingOccurrences(of: "version=\"1.3\"", with: "version=\"1.4\""),
                "version \"1.4\""
            ),
            (
                "base64 with a stray character", text.replacingOccurrences(of: "dGFtZ2Eg", with: "dGF*Z2Eg"),
                "not base64"
            ),
            ("markup inside base64", text.replacingOccurrences(of: "dGFtZ2Eg", with: "<x/>dGFtZ2Eg"), "holds markup"),
            ("a detached data file", text.replacingOccurrences(of: "EMBEDDED_BASE64", with: "DETATCHED"), "DETATCHED"),
            (
                "a path in the file name",
                text.replacingOccurrences(of: "Filename=\"test.txt\"", with: "Filename=\"../test.txt\""), ""
            ),
            ("text after the document", text + "garbage", "after </SignedDoc>"),
            ("UTF-16", "<?xml version=\"1.0\" encoding=\"UTF-16\"?>" + text.drop { $0 != "\n" }, "UTF-16"),
        ]
        for (name, content, words) in cases {
            let file = path("broken-\(name.replacingOccurrences(of: " ", with: "-")).ddoc")
            try Data(content.utf8).write(to: URL(fileURLWithPath: file))
            XCTAssertThrowsError(try Container(openingAt: file), name) { error in
                let code = (error as? ContainerError)?.code
                XCTAssertTrue(
                    code == "malformed-ddoc" || (name.hasPrefix("a path") && code == "unsafe-entry-name"),
                    "\(name): \(error)")
                if !words.isEmpty { XCTAssertTrue("\(error)".contains(words), "\(name): \(error)") }
            }
        }
    }

    /// Found by FuzzDDOC: an EMBEDDED DataFile written as one empty-element tag has no end tag to
    /// measure its content from, and the reader once crashed on it (a range that ended before it
    /// began). It is refused, in every version. And an EMBEDDED DataFile whose end tag carries
    /// white space (`</DataFile >`, well-formed XML) ends its content where that end tag starts:
    /// the same content, the same digest, the same verdict as the plain spelling.
    func testAnEmptyEmbeddedDataFileIsRefusedAndAnEndTagWithSpaceEndsTheContentWhereItStarts() throws {
        for version in ["1.3", "1.2", "1.1", "1.0"] {
            let original = try ddoc(version, ["--embedded"])
            let text = String(decoding: try TestEnvironment.bytes(original), as: UTF8.self)
            let start = try XCTUnwrap(text.range(of: "<DataFile "), version)
            let startTagEnd = try XCTUnwrap(text[start.upperBound...].firstIndex(of: ">"), version)
            let close = try XCTUnwrap(text.range(of: "</DataFile>", range: startTagEnd..<text.endIndex), version)
            let empty = path("empty-embedded-\(version).ddoc")
            try Data((text[..<startTagEnd] + "/>" + text[close.upperBound...]).utf8).write(
                to: URL(fileURLWithPath: empty))
            try assertRefused(empty, mentioning: "DataFile D0 is empty")

            let spaced = path("spaced-end-tag-\(version).ddoc")
            try Data(text.replacingCharacters(in: close, with: "</DataFile  >").utf8).write(
                to: URL(fileURLWithPath: spaced))
            let plain = try Container(openingAt: original), other = try Container(openingAt: spaced)
            XCTAssertEqual(other.dataFiles.map(\.size), plain.dataFiles.map(\.size), version)
            var read = Data(), expected = Data()
            try other.read(other.dataFiles[0]) { read.append(contentsOf: $0) }
            try plain.read(plain.dataFiles[0]) { expected.append(contentsOf: $0) }
            XCTAssertEqual(read, expected, version)
            let options = ValidationOptions(trust: try TestEnvironment.testTrust())
            XCTAssertEqual(
                other.validate(options).signatures.map(\.findings).map { $0.map(\.code) },
                plain.validate(options).signatures.map(\.findings).map { $0.map(\.code) }, version)
        }
    }

    func testAStrayByteDeepInALargeDataFileIsRefusedWhereverItFalls() throws {
        // 150 KB of content: the 64-byte blocks go through the vectorised census, so a stray byte
        // at each place of a block, in the first, a middle and the last chunk, must stop it.
        let saved = Container.ddocChunkSize
        defer { Container.ddocChunkSize = saved }
        let source = folder.appendingPathComponent("large.bin")
        try Data((0..<110_000).map { UInt8(truncatingIfNeeded: ($0 &* 131) ^ ($0 >> 5)) }).write(to: source)
        let good = try TestEnvironment.bytes(
            try ddoc("1.3", ["--file", "large.bin=\(source.path)", "--mime", "application/octet-stream"]))
        guard let tag = good.firstRange(of: Data("<DataFile".utf8)),
            let start = good[tag.upperBound...].firstIndex(of: UInt8(ascii: ">")),
            let end = good[start...].firstRange(of: Data("</DataFile>".utf8))?.lowerBound
        else { return XCTFail("no DataFile") }
        let content = start + 1..<end
        XCTAssertGreaterThan(content.count, 140_000)
        for chunk in [1_024, 256 << 10] {
            Container.ddocChunkSize = chunk
            for offset in [70, 64 * 900 + 17, 64 * 1_500 + 63, content.count - 200] {
                var position = content.lowerBound + offset
                while good[position] == 0x0A || good[position] == 0x0D { position += 1 }
                for stray: UInt8 in [UInt8(ascii: "*"), UInt8(ascii: "="), UInt8(ascii: "-"), 0x00, 0xC3] {
                    var bytes = good
                    bytes[position] = stray
                    let file = path("stray-\(chunk)-\(offset)-\(stray).ddoc")
                    try bytes.write(to: URL(fileURLWithPath: file))
                    try assertRefused(file, mentioning: "not base64")
                }
            }
            XCTAssertEqual(
                try Container(openingAt: try write(good, "large-\(chunk).ddoc")).dataFiles.first?.size, 110_000)
        }
    }

    private func write(_ bytes: Data, _ name: String) throws -> String {
        let file = path(name)
        try bytes.write(to: URL(fileURLWithPath: file))
        return file
    }

    func testSignaturesAndElementsPastTheBoundsAreRefused() throws {
        let text = String(decoding: try TestEnvironment.bytes(try ddoc()), as: UTF8.self)
        // A 5 MB Signature element (a real one is a few KB).
        let huge = text.replacingOccurrences(
            of: "<SignaturePolicyIdentifier>",
            with: "<X>" + String(repeating: "a", count: 5 << 20) + "</X><SignaturePolicyIdentifier>")
        let file = path("huge.ddoc")
        try Data(huge.utf8).write(to: URL(fileURLWithPath: file))
        try assertRefused(file, mentioning: "longer than 4 MB")
        // 100 levels of nesting inside a signature.
        let deep = text.replacingOccurrences(
            of: "<SignaturePolicyIdentifier>",
            with: String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100)
                + "<SignaturePolicyIdentifier>")
        let deepFile = path("deep.ddoc")
        try Data(deep.utf8).write(to: URL(fileURLWithPath: deepFile))
        try assertRefused(deepFile, mentioning: "nested")
    }

    // MARK: - Independent checks

    func testXMLSecAcceptsTamgasValidFilesAndRefusesTheTamperedOnes() throws {
        func xmlsec(_ file: String) throws -> Int32 {
            try TestEnvironment.run(
                "/usr/bin/xmlsec1",
                [
                    "--verify", "--id-attr:Id", "DataFile", "--id-attr:Id", "SignedProperties",
                    "--trusted-pem", TestEnvironment.pki("root.cert.pem"),
                    "--untrusted-pem", TestEnvironment.pki("issuing-ca.cert.pem"),
                    "--enabled-key-data", "x509", file,
                ]
            ).status
        }
        // Also with CR LF line ends in the base64 (a Windows writer's), which the digest reads as LF.
        for arguments in [[], ["--crlf"]] {
            let good = try ddoc("1.3", arguments)
            XCTAssertEqual(
                try Container(openingAt: good).validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
                    .signatures[0].status,
                .valid, "\(arguments)")
            XCTAssertEqual(try xmlsec(good), 0, "xmlsec1 accepts what tamga accepts \(arguments)")
        }
        for tampering in ["--tamper-data", "--tamper-signature-value", "--tamper-signed-properties"] {
            let bad = try ddoc("1.3", [tampering])
            XCTAssertNotEqual(try xmlsec(bad), 0, "\(tampering): xmlsec1 refuses it")
            XCTAssertEqual(
                try Container(openingAt: bad).validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
                    .signatures[0].status,
                .invalid, tampering)
        }
    }

    func testOpenSSLAcceptsTheNotarysResponseAndItsNonceIsTheSignatureValuesDigest() throws {
        let file = try ddoc()
        let container = try Container(openingAt: file)
        let xml = String(decoding: try XCTUnwrap(container.signatures.first).data, as: UTF8.self)
        func element(_ name: String) -> String? {
            guard let open = xml.range(of: "<\(name)"), let start = xml[open.upperBound...].firstIndex(of: ">"),
                let close = xml.range(of: "</\(name)>", range: start..<xml.endIndex)
            else { return nil }
            return String(xml[xml.index(after: start)..<close.lowerBound])
        }
        let der = try XCTUnwrap(element("EncapsulatedOCSPValue").flatMap { XMLBase64.decode($0) })
        let value = try XCTUnwrap(element("SignatureValue").flatMap { XMLBase64.decode($0) })
        let response = path("notary.der")
        try der.write(to: URL(fileURLWithPath: response))
        let checked = try TestEnvironment.run(
            "/usr/bin/openssl",
            [
                "ocsp", "-respin", response, "-no_nonce", "-resp_text",
                "-CAfile", TestEnvironment.pki("root.cert.pem"),
                "-verify_other", TestEnvironment.pki("issuing-ca.cert.pem"),
                "-issuer", TestEnvironment.pki("issuing-ca.cert.pem"),
                "-cert", TestEnvironment.pki("rsa-2048.cert.pem"),
            ])
        XCTAssertEqual(checked.status, 0, checked.error)
        XCTAssertTrue((checked.output + checked.error).contains("Response verify OK"), checked.output + checked.error)
        XCTAssertTrue(checked.output.contains(": good"), checked.output)
        let nonceHex = Hex.encode(Digest.compute(.sha1, over: value).bytes, uppercase: true)
        let shown = checked.output.replacingOccurrences(of: ":", with: "").replacingOccurrences(of: " ", with: "")
            .replacingOccurrences(of: "\n", with: "")
        XCTAssertTrue(
            shown.uppercased().contains(nonceHex), "the nonce is SHA-1(SignatureValue) \(nonceHex): \(checked.output)")
    }
}
