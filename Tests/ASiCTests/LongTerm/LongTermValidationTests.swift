import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// Evidence that is present but wrong: each gives its own status and reason.
final class LongTermValidationTests: LongTermTestCase {
    /// An OCSP response for `certificate` fetched from `path` with the openssl command line.
    private func fetchOCSP(_ path: String, certificate: String = "ec-p256") throws -> Data {
        let out = folder.appendingPathComponent("resp-\(UUID().uuidString).der").path
        let result = try TestEnvironment.run(
            "/usr/bin/openssl",
            [
                "ocsp", "-issuer", TestEnvironment.pki("issuing-ca.cert.pem"),
                "-cert", TestEnvironment.pki("\(certificate).cert.pem"), "-url", services.url(path).absoluteString,
                "-respout", out, "-noverify",
            ])
        XCTAssertEqual(result.status, 0, result.error)
        return try TestEnvironment.bytes(out)
    }

    /// Removes the first element named `element` (any namespace) from signatures0.xml.
    private func removing(_ element: String, from container: Container) throws -> Container {
        try replacing(element, with: "", in: container, remove: true)
    }

    /// What `editing` does to the first element named `element` (any namespace) in signatures0.xml.
    private enum Edit: String { case replace, remove, addBefore, addAfter }

    /// Replaces the text of the first element named `element` (any namespace) in signatures0.xml,
    /// removes it, or adds a copy holding `text` before or after it.
    private func editing(
        _ element: String, _ edit: Edit, text: String = "", in container: Container
    ) throws -> Container {
        let out = path("edited-\(element)-\(edit.rawValue).asice")
        let script = """
            import copy, sys, zipfile
            from lxml import etree
            src = zipfile.ZipFile(sys.argv[1]); dst = zipfile.ZipFile(sys.argv[2], "w")
            for info in src.infolist():
                data = src.read(info.filename)
                if info.filename == "META-INF/signatures0.xml":
                    tree = etree.fromstring(data)
                    node = tree.xpath("//*[local-name()=$n]", n=sys.argv[3])[0]
                    edit = sys.argv[5]
                    if edit == "remove": node.getparent().remove(node)
                    elif edit == "replace": node.text = sys.argv[4]
                    else:
                        extra = copy.deepcopy(node); extra.text = sys.argv[4]
                        node.addprevious(extra) if edit == "addBefore" else node.addnext(extra)
                    data = etree.tostring(tree, xml_declaration=True, encoding="UTF-8")
                dst.writestr(info, data, compress_type=info.compress_type)
            dst.close()
            """
        let result = try TestEnvironment.run(
            "/usr/bin/python3", ["-c", script, container.path, out, element, text, edit.rawValue])
        XCTAssertEqual(result.status, 0, result.error)
        return try Container(openingAt: out)
    }

    private func replacing(
        _ element: String, with base64: String, in container: Container, remove: Bool = false
    ) throws -> Container {
        try editing(element, remove ? .remove : .replace, text: base64, in: container)
    }

    private func codes(_ container: Container) throws -> (ValidationReport.Status, [String]) {
        let report = container.validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
        return (report.status, report.signatures[0].findings.map(\.code))
    }

    /// A good and a revoked answer for the signer: INVALID whatever their order, and reported.
    func testConflictingAnswersAreInvalidInEitherOrder() async throws {
        let container = try await ltContainer()
        let revoked = try fetchOCSP("ocsp/revoked").base64EncodedString()
        for first in [true, false] {
            let (status, found) = try codes(
                editing("EncapsulatedOCSPValue", first ? .addBefore : .addAfter, text: revoked, in: container))
            XCTAssertEqual(status, .invalid, "revoked \(first ? "first" : "last")")
            XCTAssertEqual(
                found, ["certificate-revoked", "conflicting-revocation"], "revoked \(first ? "first" : "last")")
        }
        // Two good answers are fine.
        let good = try fetchOCSP("ocsp").base64EncodedString()
        let (status, found) = try codes(editing("EncapsulatedOCSPValue", .addAfter, text: good, in: container))
        XCTAssertEqual(status, .valid, "\(found)")
    }

    func testARevokedAnswerMakesTheSignatureInvalid() async throws {
        let container = try await ltContainer()
        let revoked = try fetchOCSP("ocsp/revoked")
        let (status, found) = try codes(
            replacing("EncapsulatedOCSPValue", with: revoked.base64EncodedString(), in: container))
        XCTAssertEqual(status, .invalid)
        XCTAssertEqual(found, ["certificate-revoked"])
    }

    /// The signature time-stamp's genTime, in whole Unix seconds.
    private func genTime(_ container: Container) throws -> Int {
        let report = container.validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
        let text = try XCTUnwrap(report.signatures[0].timeStampTime)
        let date = try XCTUnwrap(XAdESTime.parse(text), text)
        return Int(date.timeIntervalSince1970)
    }

    /// Revoked after the signature time-stamp (the normal case of a certificate revoked after
    /// signing, answered by a responder asked later): not INVALID, a warning with both times.
    /// Revoked at genTime itself: INVALID.
    func testARevocationIsJudgedAgainstTheSignatureTimeStamp() async throws {
        let container = try await ltContainer()
        let stamped = try genTime(container)
        sleep(2)  // producedAt after the revocation, which is after genTime (one-second resolution)
        let later = try fetchOCSP("ocsp/revoked-at/\(stamped + 1)").base64EncodedString()
        let edited = try replacing("EncapsulatedOCSPValue", with: later, in: container)
        let report = edited.validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
        XCTAssertEqual(report.status, .warning, "\(report.signatures[0].findings)")
        XCTAssertEqual(report.signatures[0].findings.map(\.code), ["certificate-revoked-after-signing"])
        let message = try XCTUnwrap(report.signatures[0].findings.first?.message)
        XCTAssertTrue(
            message.contains(XSDDateTime.format(Date(timeIntervalSince1970: TimeInterval(stamped + 1)))), message)
        XCTAssertTrue(message.contains(XSDDateTime.format(Date(timeIntervalSince1970: TimeInterval(stamped)))), message)

        // Beside a good answer it is no conflict.
        let (status, found) = try codes(editing("EncapsulatedOCSPValue", .addAfter, text: later, in: container))
        XCTAssertEqual(status, .warning, "\(found)")
        XCTAssertEqual(found, ["certificate-revoked-after-signing"])

        let atGenTime = try fetchOCSP("ocsp/revoked-at/\(stamped)").base64EncodedString()
        let (atStatus, atFound) = try codes(replacing("EncapsulatedOCSPValue", with: atGenTime, in: container))
        XCTAssertEqual(atStatus, .invalid)
        XCTAssertEqual(atFound, ["certificate-revoked"])
    }

    /// The same signature in two files, one copy carrying a revoked answer: it counts once,
    /// and the copy's INVALID verdict is kept whichever file comes first.
    func testACopyOfASignatureIsJudgedAndTheWorseVerdictKept() async throws {
        let container = try await ltContainer()
        let revoked = try replacing(
            "EncapsulatedOCSPValue", with: try fetchOCSP("ocsp/revoked").base64EncodedString(), in: container)
        for revokedFirst in [false, true] {
            let out = path("copies-\(revokedFirst).asice")
            let script = """
                import sys, zipfile
                good = zipfile.ZipFile(sys.argv[1]); bad = zipfile.ZipFile(sys.argv[2]); dst = zipfile.ZipFile(sys.argv[3], "w")
                first, second = (bad, good) if sys.argv[4] == "1" else (good, bad)
                copy = second.read("META-INF/signatures0.xml")   # before writestr updates good's ZipInfo
                for info in good.infolist():
                    data = first.read(info.filename) if info.filename == "META-INF/signatures0.xml" else good.read(info.filename)
                    dst.writestr(info, data, compress_type=info.compress_type)
                dst.writestr("META-INF/signatures1.xml", copy, compress_type=zipfile.ZIP_DEFLATED)
                dst.close()
                """
            let result = try TestEnvironment.run(
                "/usr/bin/python3", ["-c", script, container.path, revoked.path, out, revokedFirst ? "1" : "0"])
            XCTAssertEqual(result.status, 0, result.error)
            let report = try Container(openingAt: out).validate(
                ValidationOptions(trust: try TestEnvironment.testTrust()))
            XCTAssertEqual(report.signatures.count, 1, "revoked first: \(revokedFirst)")
            XCTAssertEqual(report.status, .invalid, "revoked first: \(revokedFirst)")
            XCTAssertEqual(
                report.signatures.first?.findings.map(\.code), ["certificate-revoked"], "revoked first: \(revokedFirst)"
            )
            XCTAssertEqual(report.findings.map(\.code), ["duplicate-signature"])
        }
    }

    /// 2,000 copies of a response: refused unread, with a short message.
    func testThousandsOfOCSPResponsesAreRefusedUnread() async throws {
        let container = try await ltContainer()
        var xml = String(decoding: container.signatures[0].data, as: UTF8.self)
        guard let start = xml.range(of: "<xades:EncapsulatedOCSPValue"),
            let end = xml.range(of: "</xades:EncapsulatedOCSPValue>", range: start.upperBound..<xml.endIndex)
        else {
            return XCTFail("no EncapsulatedOCSPValue")
        }
        let value = String(xml[start.lowerBound..<end.upperBound])
        xml.replaceSubrange(start.lowerBound..<end.upperBound, with: String(repeating: value, count: 2_000))
        let report = try Container(openingAt: withSignatureXML(xml, base: container, name: "many-ocsp.asice"))
            .validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
        XCTAssertEqual(report.signatures[0].findings.map(\.code), ["too-many-ocsp-responses"])
        XCTAssertLessThan(report.signatures[0].findings.first?.message.count ?? 0, 200)

        // Within the bound, the same unusable response many times is one reason with its count.
        let garbage = String(
            repeating: "<xades:EncapsulatedOCSPValue>AAAA</xades:EncapsulatedOCSPValue>",
            count: LongTermValidator.maximumOCSPResponses)
        xml = String(decoding: container.signatures[0].data, as: UTF8.self).replacingOccurrences(
            of: value, with: garbage)
        let unusable = try Container(openingAt: withSignatureXML(xml, base: container, name: "garbage-ocsp.asice"))
            .validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
        let finding = try XCTUnwrap(unusable.signatures[0].findings.first { $0.code == "ocsp-missing" })
        XCTAssertTrue(
            finding.message.contains("\(LongTermValidator.maximumOCSPResponses) × an unreadable"), finding.message)
        XCTAssertLessThan(finding.message.count, 200, finding.message)
    }

    func testAnUnknownAnswerMakesTheSignatureInvalid() async throws {
        let container = try await ltContainer()
        let unknown = try fetchOCSP("ocsp/unknown")
        let (status, found) = try codes(
            replacing("EncapsulatedOCSPValue", with: unknown.base64EncodedString(), in: container))
        XCTAssertEqual(status, .invalid)
        XCTAssertEqual(found, ["ocsp-status-unknown"])
    }

    func testAnOCSPResponseProducedBeforeTheTimeStampIsInvalid() async throws {
        let early = try fetchOCSP("ocsp")
        sleep(2)  // producedAt and genTime have one-second resolution
        let container = try await ltContainer()
        let (status, found) = try codes(
            replacing("EncapsulatedOCSPValue", with: early.base64EncodedString(), in: container))
        XCTAssertEqual(status, .invalid)
        XCTAssertEqual(found, ["ocsp-before-timestamp"])
    }

    func testAnOCSPResponseFromAnUnauthorisedResponderIsRejected() async throws {
        let container = try await ltContainer()
        let forged = try fetchOCSP("ocsp/wrong-signer")
        let (status, found) = try codes(
            replacing("EncapsulatedOCSPValue", with: forged.base64EncodedString(), in: container))
        XCTAssertNotEqual(status, .valid)
        XCTAssertEqual(found.count, 1)
        XCTAssertTrue(["ocsp-signature", "ocsp-responder-untrusted"].contains(found[0]), "\(found)")
    }

    func testATimeStampOverOtherBytesIsInvalid() async throws {
        let container = try await ltContainer()
        let other = try await TimeStampClient(url: services.url("tsa")).timeStamp(Data("something else".utf8))
        let (status, found) = try codes(
            replacing("EncapsulatedTimeStamp", with: other.der.base64EncodedString(), in: container))
        XCTAssertEqual(status, .invalid)
        XCTAssertEqual(found, ["signature-timestamp"])
    }

    func testAnUntrustedTSAIsUnknownNotInvalid() async throws {
        let container = try await ltContainer()
        // Trust only a root that signed nothing here: nothing chains.
        let report = container.validate(
            ValidationOptions(trust: TrustStore(anchors: [try TestEnvironment.certificate("other-ec-p256")])))
        XCTAssertEqual(report.status, .unknown)
        XCTAssertTrue(report.signatures[0].findings.map(\.code).contains("signature-timestamp-untrusted"))
    }

    func testAnLTSignatureStrippedOfItsTimeStampIsJudgedAsATimeMarkAndFails() async throws {
        // OCSP without a time-stamp is the shape of a BDOC 2.1 time-mark, but this one has no
        // BDOC 2.1 policy and its responder no time-mark policy (TimeMarkTests has real ones).
        let timeMark = try removing("SignatureTimeStamp", from: try await ltContainer())
        let report = timeMark.validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
        XCTAssertEqual(report.signatures[0].profile, "TM")
        XCTAssertEqual(report.status, .invalid)
        XCTAssertEqual(
            Set(report.signatures[0].findings.map(\.code)),
            ["time-mark-policy", "time-mark-policy-spuri", "time-mark-responder-policy"])
    }

    func testAnOCSPResponseProducedLongAfterTheTimeStampIsAWarning() async throws {
        let container = try await ltContainer()
        let later = try TestServices(clockOffset: "+20m")
        defer { later.stop() }
        let out = folder.appendingPathComponent("late.der").path
        let fetched = try TestEnvironment.run(
            "/usr/bin/openssl",
            [
                "ocsp", "-issuer", TestEnvironment.pki("issuing-ca.cert.pem"),
                "-cert", TestEnvironment.pki("ec-p256.cert.pem"), "-url", later.url("ocsp").absoluteString, "-respout",
                out, "-noverify",
            ])
        XCTAssertEqual(fetched.status, 0, fetched.error)
        let (status, found) = try codes(
            replacing(
                "EncapsulatedOCSPValue", with: try TestEnvironment.bytes(out).base64EncodedString(), in: container))
        XCTAssertEqual(status, .warning)
        XCTAssertEqual(found, ["ocsp-produced-late"])
    }

    /// SiVa's revocation freshness rule (its test `asiceOcspAndTsDifferenceOver24H`): an OCSP
    /// response more than 24 hours after the signature time-stamp is INVALID, not a warning.
    func testAnOCSPResponseMoreThanADayAfterTheTimeStampIsInvalid() async throws {
        let container = try await ltContainer()
        for (offset, status, found) in [
            ("+25h", ValidationReport.Status.invalid, "revocation-not-fresh"), ("+23h", .warning, "ocsp-produced-late"),
        ] {
            let later = try TestServices(clockOffset: offset)
            defer { later.stop() }
            let out = folder.appendingPathComponent("late\(offset).der").path
            let fetched = try TestEnvironment.run(
                "/usr/bin/openssl",
                [
                    "ocsp", "-issuer", TestEnvironment.pki("issuing-ca.cert.pem"),
                    "-cert", TestEnvironment.pki("ec-p256.cert.pem"), "-url", later.url("ocsp").absoluteString,
                    "-respout", out, "-noverify",
                ])
            XCTAssertEqual(fetched.status, 0, fetched.error)
            let edited = try replacing(
                "EncapsulatedOCSPValue", with: try TestEnvironment.bytes(out).base64EncodedString(), in: container)
            let report = edited.validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
            XCTAssertEqual(report.status, status, offset)
            XCTAssertEqual(
                report.signatures[0].findings.map(\.code), [found], "\(offset): one finding, not the warning beside it")
            if status == .invalid {
                XCTAssertTrue(
                    report.signatures[0].findings[0].message.contains("25 hours after the signature time-stamp"),
                    report.signatures[0].findings[0].message)
            }
        }
    }

    func testTamperingWithTheSignatureValueBreaksTheTimeStampToo() async throws {
        let container = try await ltContainer()
        var value = Data(count: 64)
        value[0] = 1
        let (status, found) = try codes(replacing("SignatureValue", with: value.base64EncodedString(), in: container))
        XCTAssertEqual(status, .invalid)
        XCTAssertEqual(Set(found), ["signature-value", "signature-timestamp"])
    }
}
