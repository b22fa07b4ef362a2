import Foundation
import TamgaCore
import TamgaSupport
import TamgaTestSupport
import XCTest

@testable import RemoteSigning

/// What Smart-ID v3 sends, made hostile: other scripts' digits, numbers of other types and sizes,
/// huge arrays, every truncation. Each is refused (or bounded) without a crash.
final class SmartIDHostileReplyTests: XCTestCase {
    private func signer() throws -> SmartIDSigner {
        let configuration = RemoteServiceConfiguration(
            url: URL(string: "https://sid.demo.sk.ee/smart-id-rp/v3")!,
            relyingPartyUUID: "00000000-0000-4000-8000-000000000000", relyingPartyName: "DEMO")
        let client = try RemoteServiceClient(
            service: "Smart-ID", configuration: configuration, statusMeaning: SmartIDEndResult.meaning)
        let certificate = try Certificate(
            derOrPEM: Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("smart-id/rsa-6144.cert.pem"))))
        return try SmartIDSigner(
            country: "EE", identityCode: "40504040001", documentNumber: "PNOEE-40504040001-DEM0-Q",
            certificate: certificate,
            client: client, apiVersion: .v3, showVerificationCode: { _ in })
    }

    private func parsed(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSON.parse(Array(text.utf8)) as? [String: Any])
    }

    func testOnlyFourASCIIDigitsAreAVerificationCode() throws {
        XCTAssertEqual(
            try SmartIDSigner.serviceVerificationCode(parsed(#"{"vc":{"type":"numeric4","value":"0427"}}"#)), "0427")
        for hostile in [
            #""٤٩٢٧""#, #""４９２７""#, #""१२३४""#, #""12345""#, #""123""#, #""""#, #"4927"#, #""12\u00004""#, #"null"#,
            #""1 23""#,
        ] {
            XCTAssertThrowsError(
                try SmartIDSigner.serviceVerificationCode(parsed(#"{"vc":{"type":"numeric4","value":\#(hostile)}}"#)),
                hostile)
        }
        XCTAssertThrowsError(
            try SmartIDSigner.serviceVerificationCode(parsed(#"{"vc":{"type":"alphaNumeric4","value":"4927"}}"#)))
        XCTAssertThrowsError(try SmartIDSigner.serviceVerificationCode(parsed(#"{"vc":"4927"}"#)))
        XCTAssertThrowsError(try SmartIDSigner.serviceVerificationCode([:]))
    }

    func testTheSaltLengthMustBeTheIntegerHashLength() throws {
        let smartID = try signer()
        // A number JSON cannot hold (1e400) is refused by the parser already: refused all the same.
        func reply(salt: String) throws -> [String: Any] {
            try JSON.parse(
                Array(
                    """
                    {"signatureProtocol":"RAW_DIGEST_SIGNATURE","interactionTypeUsed":"displayTextAndPIN",
                     "signature":{"flowType":"Notification","signatureAlgorithm":"rsassa-pss","signatureAlgorithmParameters":{"hashAlgorithm":"SHA-256",
                     "maskGenAlgorithm":{"algorithm":"id-mgf1","parameters":{"hashAlgorithm":"SHA-256"}},"saltLength":\(salt),"trailerField":"0xbc"}}}
                    """.utf8)) as? [String: Any] ?? [:]
        }
        XCTAssertNoThrow(
            try smartID.checkV3Reply(reply(salt: "32"), hashName: "SHA-256", size: 32, offered: ["displayTextAndPIN"]))
        for hostile in [
            "\"32\"", "\"٣٢\"", "32.5", "1e400", "-32", "99999999999999999999999", "true", "null", "[32]", "0",
        ] {
            XCTAssertThrowsError(
                try smartID.checkV3Reply(
                    reply(salt: hostile), hashName: "SHA-256", size: 32, offered: ["displayTextAndPIN"]), hostile)
        }
    }

    func testEveryTruncationOfARealReplyIsRefusedWithoutACrash() throws {
        let smartID = try signer()
        let full =
            #"{"state":"COMPLETE","result":{"endResult":"OK","documentNumber":"PNOEE-40504040001-DEM0-Q"},"signatureProtocol":"RAW_DIGEST_SIGNATURE","signature":{"value":"AAEC","flowType":"Notification","signatureAlgorithm":"rsassa-pss","signatureAlgorithmParameters":{"hashAlgorithm":"SHA-256","maskGenAlgorithm":{"algorithm":"id-mgf1","parameters":{"hashAlgorithm":"SHA-256"}},"saltLength":32,"trailerField":"0xbc"}},"cert":{"value":"MIIB","certificateLevel":"QUALIFIED"},"interactionTypeUsed":"displayTextAndPIN"}"#
        let bytes = Array(full.utf8)
        for count in 0..<bytes.count {
            // A cut document does not parse; where it does (never, for this one), the checks refuse it.
            if let object = (try? JSON.parse(Array(bytes.prefix(count)))) as? [String: Any] {
                XCTAssertThrowsError(
                    try smartID.checkReturnedCertificate((object["cert"] as? [String: Any])?["value"], required: true))
            }
        }
        XCTAssertThrowsError(
            try smartID.checkReturnedCertificate(
                (try parsed(full)["cert"] as? [String: Any])?["value"], required: true),
            "MIIB is not the chosen certificate")
    }

    func testProblemBodiesAreBoundedWhateverTheirSize() throws {
        let many =
            "{\"title\":\"Bad Request\",\"errors\":["
            + Array(repeating: #"{"code":"C","paramName":"p"}"#, count: 100_000).joined(separator: ",") + "]}"
        XCTAssertNil(ProblemDetails(Data(many.utf8)), "a body over 64 KiB is not read")
        let fewer =
            "{\"title\":\"Bad Request\",\"errors\":["
            + Array(repeating: #"{"code":"C","paramName":"p"}"#, count: 2_000).joined(separator: ",") + "]}"
        let problem = try XCTUnwrap(ProblemDetails(Data(fewer.utf8)))
        XCTAssertEqual(problem.codes.count, 8, "at most eight errors are kept")
        XCTAssertLessThan(problem.said.count, 400)
        let body = Array(
            #"{"type":"about:blank","title":"Not Found","status":404,"detail":"x","errors":[{"code":"NO_SUITABLE_ACCOUNT_FOUND"}]}"#
                .utf8)
        for count in 0..<body.count { XCTAssertNil(ProblemDetails(Data(body.prefix(count))), "cut at \(count)") }
        XCTAssertNil(
            ProblemDetails(Data(#"{"title":7,"detail":["x"]}"#.utf8)), "fields of other types are no problem body")
    }

    func testTextFittingIsBoundedByTheLimitNotTheInput() {
        let huge = String(repeating: "a\u{301}", count: 1_000_000)
        XCTAssertEqual(TextLimits.fitted(huge, utf16Units: 60).utf16.count, 60)
        XCTAssertEqual(TextLimits.quoted(huge).count, 43)
        XCTAssertEqual(TextLimits.printable(String(repeating: "\u{1B}", count: 100_000) + "ok", limit: 10), "ok")
    }
}
