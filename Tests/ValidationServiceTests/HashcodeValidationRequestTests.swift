import ASiC
import Foundation
import HTTPService
import TamgaSupport
import XCTest

@testable import ValidationService

/// POST /validateHashcode's request checks (docs/siva.md): each field's path and message, every
/// violated constraint at once, 400 for anything a client can send, and the bounds tamga adds.
final class HashcodeValidationRequestTests: XCTestCase {
    private let hash = Data(repeating: 7, count: 32).base64EncodedString()

    private func pairs(_ body: String) -> [String] {
        switch HashcodeValidationRequest.parse(Array(body.utf8)) {
        case .success: return []
        case .failure(let errors): return errors.errors.map { "\($0.key): \($0.message)" }
        }
    }

    func testAGoodRequestIsRead() throws {
        let body =
            #"{"signatureFiles":[{"signature":"PGE+","datafiles":[{"filename":"a.txt","hashAlgo":"sha256","hash":"\#(hash)"}]},{"signature":"PGE+"}],"signaturePolicy":"POLv3"}"#
        guard case .success(let request) = HashcodeValidationRequest.parse(Array(body.utf8)) else {
            return XCTFail("refused: \(pairs(body))")
        }
        XCTAssertEqual(request.policy, .polv3)
        XCTAssertEqual(request.reportType, .simple)
        XCTAssertEqual(request.signatureFiles.count, 2)
        let file = try XCTUnwrap(request.signatureFiles[0].dataFiles?.first)
        XCTAssertEqual(file.name, "a.txt")
        XCTAssertEqual(file.algorithmName, "SHA256", "DSS's name, matched case-insensitively")
        XCTAssertEqual(file.algorithm, .sha256)
        XCTAssertEqual(file.digest, Data(repeating: 7, count: 32))
        XCTAssertNil(request.signatureFiles[1].dataFiles, "no datafiles: the signature's own digests are listed")
        // An algorithm DSS names and tamga does not check is accepted; it cannot match a reference.
        guard
            case .success(let other) = HashcodeValidationRequest.parse(
                Array(
                    #"{"signatureFiles":[{"signature":"PGE+","datafiles":[{"filename":"a","hashAlgo":"SHA3_256","hash":"\#(hash)"}]}]}"#
                        .utf8))
        else {
            return XCTFail("SHA3_256 refused")
        }
        XCTAssertEqual(other.policy, .polv4)
        XCTAssertNil(other.signatureFiles[0].dataFiles?.first?.algorithm)
    }

    func testEachFieldsConstraintsAreReportedUnderItsPath() {
        XCTAssertEqual(pairs("{}"), ["signatureFiles: must not be null", "signatureFiles: must not be empty"])
        XCTAssertEqual(pairs(#"{"signatureFiles":[]}"#), ["signatureFiles: must not be empty"])
        XCTAssertEqual(
            pairs(#"{"signatureFiles":[{}]}"#),
            ["signatureFiles[0].signature: Signature file is not valid base64 encoded string"])
        XCTAssertEqual(
            pairs(#"{"signatureFiles":[{"signature":"P*E+"}]}"#),
            ["signatureFiles[0].signature: Signature file is not valid base64 encoded string"])
        XCTAssertEqual(
            pairs(#"{"signatureFiles":[{"signature":"PGE+","datafiles":[]}]}"#),
            ["signatureFiles[0].datafiles: must be null or not empty"])
        XCTAssertEqual(
            pairs(
                #"{"signatureFiles":[{"signature":"PGE+","datafiles":[{"filename":"../a","hashAlgo":"SHA256","hash":"\#(hash)"}]}]}"#
            ),
            ["signatureFiles[0].datafiles[0].filename: Invalid filename"])
        XCTAssertEqual(
            pairs(
                #"{"signatureFiles":[{"signature":"PGE+","datafiles":[{"filename":"a","hashAlgo":"SHA257","hash":"\#(hash)"}]}]}"#
            ),
            ["signatureFiles[0].datafiles[0].hashAlgo: Invalid hash algorithm"])
        XCTAssertEqual(
            pairs(#"{"signatureFiles":[{"signature":"PGE+","datafiles":[{"filename":"a","hash":"\#(hash)"}]}]}"#),
            ["signatureFiles[0].datafiles[0].hashAlgo: Invalid hash algorithm"],
            "tamga says so at once; SiVa fails later")
        XCTAssertEqual(
            pairs(
                #"{"signatureFiles":[{"signature":"PGE+","datafiles":[{"filename":"a","hashAlgo":"SHA256","hash":""}]}]}"#
            ),
            [
                "signatureFiles[0].datafiles[0].hash: size must be between 1 and 1000",
                "signatureFiles[0].datafiles[0].hash: Document is not encoded in a valid base64 string",
            ])
        XCTAssertEqual(
            pairs(
                #"{"signatureFiles":[{"signature":"PGE+","datafiles":[{"filename":"a","hashAlgo":"SHA256","hash":"QU*D"}]}]}"#
            ),
            ["signatureFiles[0].datafiles[0].hash: Document is not encoded in a valid base64 string"])
        XCTAssertEqual(
            pairs(
                #"{"signatureFiles":[{"signature":"PGE+","datafiles":[{"filename":"a","hashAlgo":"SHA256","hash":"QUJ"}]}]}"#
            ),
            ["signatureFiles[0].datafiles[0].hash: Document is not encoded in a valid base64 string"],
            "a good alphabet in a bad form")
        // Several at once, each under its own path, with the policy's and report type's.
        XCTAssertEqual(
            pairs(
                #"{"signatureFiles":[{"signature":"PGE+"},{"signature":"","datafiles":[{"filename":"","hashAlgo":"x","hash":"\#(hash)"}]}],"signaturePolicy":"POL;","reportType":"x"}"#
            ),
            [
                "signatureFiles[1].signature: Signature file is not valid base64 encoded string",
                "signatureFiles[1].datafiles[0].filename: must not be empty",
                "signatureFiles[1].datafiles[0].filename: size must be between 1 and 260",
                "signatureFiles[1].datafiles[0].hashAlgo: Invalid hash algorithm",
                "signaturePolicy: Invalid signature policy", "reportType: Invalid report type",
            ])
        XCTAssertEqual(
            pairs(#"{"signatureFiles":[{"signature":"PGE+"}],"signaturePolicy":"POLv9"}"#),
            ["signaturePolicy: Invalid signature policy: POLv9; Available abstractPolicies: [POLv3, POLv4]"])
    }

    func testUnreadableBodiesAndTheBounds() {
        let unreadable = ["requestBodyNotReadable: Request body is malformed and cannot be read"]
        for body in [
            "", "[]", #"{"signatureFiles":{}}"#, #"{"signatureFiles":[1]}"#, #"{"signatureFiles":[{"signature":1}]}"#,
            #"{"signatureFiles":[{"signature":"PGE+","datafiles":{}}]}"#,
            #"{"signatureFiles":[{"signature":"PGE+","datafiles":[{"hash":5}]}]}"#,
            #"{"signatureFiles":[{"signature":"PGE+"}],"signaturePolicy":3}"#,
            #"{"signatureFiles":[{"signature":"PGE+","signature":"PGI+"}]}"#,
        ] {
            XCTAssertEqual(pairs(body), unreadable, body)
        }
        let many = Array(
            repeating: #"{"signature":"PGE+"}"#, count: HashcodeValidationRequest.maximumSignatureFiles + 1
        ).joined(separator: ",")
        XCTAssertEqual(pairs(#"{"signatureFiles":[\#(many)]}"#).first?.hasPrefix("signatureFiles: at most"), true)
        let files = Array(
            repeating: #"{"filename":"a","hashAlgo":"SHA256","hash":"\#(hash)"}"#,
            count: HashcodeValidationRequest.maximumDataFiles + 1
        ).joined(separator: ",")
        XCTAssertEqual(
            pairs(#"{"signatureFiles":[{"signature":"PGE+","datafiles":[\#(files)]}]}"#).first?.hasPrefix(
                "signatureFiles[0].datafiles: at most"), true)
    }

    /// The route without the network: what is not a detached XAdES signature file is SiVa's 400
    /// "Signature file malformed"; a detached one with no data file it can check fails, not 500.
    func testTheRouteAnswersMalformedSignatureFilesWith400() throws {
        let service = try SiVaService(version: "test") { ValidationOptions() }
        func answer(_ body: String, method: String = "POST") -> (Int, String) {
            let response = service.handle(
                HTTPRequest(
                    method: method, path: "/validateHashcode", headers: ["content-type": "application/json"],
                    body: Array(body.utf8)))
            return (response.status, String(decoding: response.body, as: UTF8.self))
        }
        XCTAssertEqual(answer("", method: "GET").0, 405)
        for xml in [
            "not xml", "<a/>", #"<asic:XAdESSignatures xmlns:asic="http://uri.etsi.org/02918/v1.2.1#"/>"#,
            #"<asic:XAdESSignatures xmlns:asic="http://uri.etsi.org/02918/v1.2.1#"><x/></asic:XAdESSignatures>"#,
        ] {
            let (status, body) = answer(
                #"{"signatureFiles":[{"signature":"\#(Data(xml.utf8).base64EncodedString())"}]}"#)
            XCTAssertEqual(status, 400, xml)
            XCTAssertEqual(
                body, #"{"requestErrors":[{"key":"signatureFiles.signature","message":"Signature file malformed"}]}"#,
                xml)
        }
        let empty =
            #"<asic:XAdESSignatures xmlns:asic="http://uri.etsi.org/02918/v1.2.1#"><ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#" Id="S0"/></asic:XAdESSignatures>"#
        let (status, body) = answer(
            #"{"signatureFiles":[{"signature":"\#(Data(empty.utf8).base64EncodedString())","datafiles":[{"filename":"a","hashAlgo":"SHA256","hash":"\#(hash)"}]}]}"#
        )
        XCTAssertEqual(status, 200, body)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let conclusion = (json["validationReport"] as? [String: Any])?["validationConclusion"] as? [String: Any] ?? [:]
        XCTAssertEqual(conclusion["validSignaturesCount"] as? Int, 0)
        XCTAssertNil(conclusion["signatureForm"], "no document, no form")
        XCTAssertNil(conclusion["validatedDocument"])
    }
}
