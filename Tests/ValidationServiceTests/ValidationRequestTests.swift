import ASiC
import Foundation
import HTTPService
import TamgaSupport
import XCTest

@testable import ValidationService

/// POST /validate's request checks, each as SiVa answers it (docs/siva.md §Errors): the key, the
/// message word for word, every violated constraint at once, and 400 (never 500) for anything
/// a client can send.
final class ValidationRequestTests: XCTestCase {
    private func errors(_ body: String) -> [RequestError] {
        switch ValidationRequest.parse(Array(body.utf8)) {
        case .success: return []
        case .failure(let errors): return errors.errors
        }
    }

    private func pairs(_ body: String) -> [String] { errors(body).map { "\($0.key): \($0.message)" } }

    func testAGoodRequestIsReadWithSiVasDefaults() throws {
        guard
            case .success(let request) = ValidationRequest.parse(
                Array(#"{"document":"QUJD","filename":"x.asice","ExtraOne":1}"#.utf8))
        else {
            return XCTFail("refused")
        }
        XCTAssertEqual(request.policy, .polv4, "POLv4 is the default")
        XCTAssertEqual(request.reportType, .simple)
        XCTAssertEqual(request.decodedDocument(), Data("ABC".utf8))
        XCTAssertEqual(request.fileExtension, "asice")
        guard
            case .success(let named) = ValidationRequest.parse(
                Array(
                    #"{"document":"QUJD","filename":"X.DDOC","signaturePolicy":"polv3","reportType":"DETAILED"}"#.utf8))
        else {
            return XCTFail("refused")
        }
        XCTAssertEqual(named.policy, .polv3, "policy names are matched case-insensitively")
        XCTAssertEqual(named.reportType, .detailed)
        XCTAssertEqual(named.fileExtension, "ddoc")
    }

    func testEachFieldsConstraintsAreAllReported() {
        XCTAssertEqual(
            pairs(#"{"filename":"x.asice"}"#),
            ["document: must not be blank", "document: Document is not encoded in a valid base64 string"])
        XCTAssertEqual(
            pairs(#"{"document":"Q*JD","filename":"x.asice"}"#),
            ["document: Document is not encoded in a valid base64 string"])
        XCTAssertEqual(pairs(#"{"document":"QUJD"}"#), ["filename: must not be empty", "filename: Invalid filename"])
        XCTAssertEqual(
            pairs(#"{"document":"QUJD","filename":""}"#),
            ["filename: must not be empty", "filename: size must be between 1 and 260"])
        XCTAssertEqual(
            pairs(#"{"document":"QUJD","filename":"\#(String(repeating: "a", count: 261))"}"#),
            ["filename: size must be between 1 and 260"])
        XCTAssertEqual(
            pairs(#"{"document":"QUJD","filename":"\#(String(repeating: "a", count: 255)).ddoc"}"#), [],
            "260 characters pass, as in SiVa")
        for hostile in ["../x.asice", "a/b.asice", #"a\\b.asice"#, "a\\u0000.asice", "a\\n.asice", ".."] {
            XCTAssertEqual(
                pairs(#"{"document":"QUJD","filename":"\#(hostile)"}"#), ["filename: Invalid filename"], hostile)
        }
        XCTAssertEqual(
            pairs(#"{"document":"QUJD","filename":"x.asice","signaturePolicy":""}"#),
            ["signaturePolicy: size must be between 1 and 100"])
        XCTAssertEqual(
            pairs(#"{"document":"QUJD","filename":"x.asice","signaturePolicy":"POL;v4"}"#),
            ["signaturePolicy: Invalid signature policy"])
        XCTAssertEqual(
            pairs(#"{"document":"QUJD","filename":"x.asice","signaturePolicy":"POLv9"}"#),
            ["signaturePolicy: Invalid signature policy: POLv9; Available abstractPolicies: [POLv3, POLv4]"])
        XCTAssertEqual(
            pairs(#"{"document":"QUJD","filename":"x.asice","reportType":"Full"}"#), ["reportType: Invalid report type"]
        )
        XCTAssertEqual(
            pairs(#"{"document":"QUJD","filename":"x.asice","documentType":"BDOC"}"#),
            ["documentType: documentType is not a valid request parameter"])
        // Several fields at once: all of them, in the order SiVa's checks meet them.
        XCTAssertEqual(
            pairs(#"{"document":"","reportType":"x"}"#),
            [
                "document: must not be blank", "document: Document is not encoded in a valid base64 string",
                "filename: must not be empty", "filename: Invalid filename", "reportType: Invalid report type",
            ])
    }

    func testBodiesThatAreNotOneReadableObjectAreRefusedAsSiVaRefusesThem() {
        let unreadable = ["requestBodyNotReadable: Request body is malformed and cannot be read"]
        XCTAssertEqual(pairs(""), unreadable)
        XCTAssertEqual(pairs("[1]"), unreadable)
        XCTAssertEqual(pairs(#"{"document":"QUJD","filename":"x.asice""#), unreadable)
        XCTAssertEqual(pairs(#"{"document":1,"filename":"x.asice"}"#), unreadable, "a number where text belongs")
        // Two readers of one body must not disagree about what it says.
        XCTAssertEqual(pairs(#"{"document":"QUJD","filename":"a.ddoc","filename":"b.asice"}"#), unreadable)
        XCTAssertEqual(pairs(String(repeating: "[", count: 300) + String(repeating: "]", count: 300)), unreadable)
        XCTAssertEqual(
            pairs(
                #"{"document":"QUJD","filename":"x.asice","x":\#(String(repeating: "[", count: 300) + String(repeating: "]", count: 300))}"#
            ), unreadable)
    }

    func testBase64WithAGoodAlphabetButABadFormIsNotADocument() throws {
        for text in ["QUJ", "QU=D", "QUJD=", "QUJDRA==="] {
            guard
                case .success(let request) = ValidationRequest.parse(
                    Array(#"{"document":"\#(text)","filename":"x.asice"}"#.utf8))
            else {
                return XCTFail("refused by the alphabet check: \(text)")
            }
            XCTAssertNil(request.decodedDocument(), text)
        }
        guard
            case .success(let wrapped) = ValidationRequest.parse(
                Array(#"{"document":"QUJD\nRA==","filename":"x.asice"}"#.utf8))
        else {
            return XCTFail("line breaks refused")
        }
        XCTAssertEqual(wrapped.decodedDocument(), Data("ABCD".utf8), "MIME-style line breaks are base64 too")
    }

    /// The service's routes without the network: methods, media types, unknown paths, bodies.
    func testTheRoutesAnswerSiVasStatusesAndShapes() throws {
        let service = try SiVaService(version: "test") { ValidationOptions() }
        func answer(
            _ method: String, _ path: String, _ body: String = "", type: String? = "application/json;charset=UTF-8"
        ) -> (Int, [String: Any]) {
            let response = service.handle(
                HTTPRequest(
                    method: method, path: path, headers: type.map { ["content-type": $0] } ?? [:],
                    body: Array(body.utf8)))
            XCTAssertEqual(response.headers["Content-Type"], "application/json", "\(method) \(path)")
            return (
                response.status, (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
            )
        }
        func firstError(_ json: [String: Any]) -> String {
            guard let first = (json["requestErrors"] as? [[String: Any]])?.first else { return "none" }
            return "\(first["key"] ?? ""): \(first["message"] ?? "")"
        }
        var (status, json) = answer("GET", "/validate")
        XCTAssertEqual(status, 405)
        XCTAssertEqual(firstError(json), "methodNotAllowed: Only the following request methods are supported: POST")
        (status, json) = answer("POST", "/validate", #"{"document":"QUJD","filename":"x.asice"}"#, type: "text/plain")
        XCTAssertEqual(status, 415)
        XCTAssertEqual(
            firstError(json),
            "contentTypeNotSupported: Only the following content types are supported: application/json")
        (status, json) = answer("POST", "/validate", #"{"document":"QUJD","filename":"x.asice"}"#, type: nil)
        XCTAssertEqual(status, 415)
        (status, json) = answer("POST", "/nothing")
        XCTAssertEqual(status, 404)
        XCTAssertEqual(firstError(json), "endpointNotFound: Endpoint not found")
        (status, json) = answer("POST", "/validate", #"{"document":"JVBERi0xLjQK","filename":"x.pdf"}"#)
        XCTAssertEqual(status, 400)
        XCTAssertTrue(firstError(json).hasPrefix("document: Document type not supported: .pdf"), firstError(json))
        (status, json) = answer("POST", "/validate", #"{"document":"QUJD","filename":"x.asice"}"#)
        XCTAssertEqual(status, 400, "three bytes are no container")
        XCTAssertEqual(firstError(json), "document: Document malformed or not matching documentType")
        (status, json) = answer("POST", "/validate", #"{"document":"QUJ","filename":"x.ddoc"}"#)
        XCTAssertEqual(status, 400)
        XCTAssertEqual(firstError(json), "document: Document malformed or not matching documentType")
        (status, json) = answer("GET", "/monitoring/health")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["status"] as? String, "UP")
        XCTAssertEqual(
            ((json["components"] as? [String: Any])?["health"] as? [String: Any])?["status"] as? String, "UP")
        (status, json) = answer("GET", "/monitoring/heartbeat")
        XCTAssertEqual(json["status"] as? String, "UP")
        (status, json) = answer("GET", "/monitoring/version")
        XCTAssertEqual(json["version"] as? String, "test")
    }

    /// A document over the limit is answered 413 after decoding; a body over the HTTP bound is
    /// answered 413 by the server before the handler runs (`SiVaService.requestTooLarge`).
    func testADocumentOverTheLimitIs413() throws {
        let service = try SiVaService(maximumDocumentSize: 4, version: "test") { ValidationOptions() }
        let response = service.handle(
            HTTPRequest(
                method: "POST", path: "/validate", headers: ["content-type": "application/json"],
                body: Array(#"{"document":"QUJDREVG","filename":"x.asice"}"#.utf8)))
        XCTAssertEqual(response.status, 413)
        let tooLarge = SiVaService.requestTooLarge(100)
        XCTAssertEqual(tooLarge.status, 413)
        XCTAssertEqual(
            String(decoding: tooLarge.body, as: UTF8.self),
            #"{"requestErrors":[{"key":"request","message":"Request body length exceeds request size limit (100 bytes)"}]}"#
        )
        XCTAssertGreaterThanOrEqual(SiVaService.maximumBody(forDocumentSize: 10 << 20), (10 << 20) / 3 * 4)
    }
}
