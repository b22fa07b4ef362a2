import Foundation
import MobileID
import XCTest

/// The Korean mobile-ID App2App codec from the seed's own examples (the iOS App2App guide) and a
/// 2022 public universal link, plus what an SP must refuse.
final class AppToAppTests: XCTestCase {
    /// The guide's M200, field for field (its profile is cut in the guide; a short one stands in).
    let guideM200: [String: Any] = [
        "ci": false, "cmd": "200", "host": "https://sp.example/apis",
        "image": "https://www.mobileid.go.kr/resources/images/main/mdl_ico_homepage.ico",
        "mode": "indirect", "profile": "eyJlbmNvZGluZyI6IlVURi04In0", "telno": false,
        "trxcode": "20240813025840401CBEAB157",
        "type": "mip", "version": "1.0.0",
    ]

    func testTheGuidesM200RoundTripsAndItsFragmentsDecode() throws {
        let m200 = try M200(object: guideM200)
        XCTAssertEqual(m200.transactionCode, "20240813025840401CBEAB157")
        XCTAssertEqual(m200.mode, .indirect)
        XCTAssertFalse(m200.ci)
        XCTAssertFalse(m200.telno)
        XCTAssertEqual(m200.version, "1.0.0")
        XCTAssertEqual(try M200(base64: m200.base64), m200, "encode then decode")
        XCTAssertFalse(
            m200.base64.contains("=") || m200.base64.contains("+") || m200.base64.contains("/"), "unpadded base64url")
        // The guide's fragments (cut with "…" there; decoded up to the last whole 4-character group):
        // the response data is a T530, the profile UTF-8 JSON, m200Base64 an M200.
        func fragment(_ text: String) throws -> String {
            String(
                decoding: try Base64URL.decode(String(text.prefix(text.count / 4 * 4)), field: "fragment"),
                as: UTF8.self)
        }
        XCTAssertTrue(try fragment("eyJjbWQiOiI1MzAiLCJtb2RlIjoiZGly").hasPrefix(#"{"cmd":"530","mode":"dir"#))
        XCTAssertTrue(try fragment("eyJlbmNvZGluZyI6IlVURi04IiwiaW").hasPrefix(#"{"encoding":"UTF-8","#))
        XCTAssertTrue(try fragment("eyJ0eXBlIjoibWlwIiwidmVyc2lvbiI6I").hasPrefix(#"{"type":"mip","version":"#))
    }

    func testTheT530StartExchangeAsTheGuideShowsIt() throws {
        let request = try StartRequest(json: Data(#"{"mode": "indirect", "svcCode": "mdl.1"}"#.utf8))
        XCTAssertEqual(request, StartRequest(mode: .indirect, serviceCode: "mdl.1"))
        let response = StartResponse(mode: .indirect, serviceCode: "mdl.1", m200: try M200(object: guideM200))
        let envelope = try Envelope(json: response.envelope.json)
        XCTAssertTrue(envelope.result)
        XCTAssertEqual(try StartResponse(envelope: envelope), response)
        XCTAssertThrowsError(try StartResponse(envelope: Envelope(result: false, message: Data("{}".utf8))))
    }

    func testA2022UniversalLinkInStandardPaddedBase64StillDecodes() throws {
        let json =
            #"{"mode":"direct","ci":false,"host":"http://10.0.0.159:7201/apis/v1","type":"mip","version":"1.0.0","cmd":"200","trxcode":"20220711161455371E5E8EA20"}"#
        let standard = Data(json.utf8).base64EncodedString()  // as found: standard alphabet, padded
        let link =
            "https://mobileid.go.kr/verify.html?mode=direct&data=\(standard.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&clientScheme="
        let call = try AppLink.parseCall(link)
        XCTAssertEqual(call.m200.host, "http://10.0.0.159:7201/apis/v1")
        XCTAssertEqual(call.m200.transactionCode, "20220711161455371E5E8EA20")
        XCTAssertEqual(call.mode, .direct)
        XCTAssertEqual(call.clientScheme, "", "samples send it empty")
        // All four base64 spellings of the same bytes decode alike.
        let bytes = Data(json.utf8)
        let url = Base64URL.encode(bytes)
        for variant in [
            standard, standard.replacingOccurrences(of: "=", with: ""), url,
            url + String(repeating: "=", count: (4 - url.count % 4) % 4),
        ] {
            XCTAssertEqual(try Base64URL.decode(variant, field: "data"), bytes, variant)
        }
    }

    func testLinksForBothModesAndEnvironmentsAndTheLengthLimit() throws {
        var m200 = try M200(object: guideM200)
        let scheme = try AppLink.scheme(m200, clientScheme: "spDemo")
        XCTAssertTrue(scheme.hasPrefix("MobileID://verify?clientScheme=spDemo&data="), scheme)
        XCTAssertTrue(scheme.hasSuffix("&mode=indirect"))
        XCTAssertTrue(
            try AppLink.scheme(m200, clientScheme: "spDemo", environment: .testbed).hasPrefix("tMobileID://verify?"))
        m200.mode = .direct
        let universal = try AppLink.universal(m200, clientScheme: "spDemo")
        XCTAssertTrue(universal.hasPrefix("https://mobileid.go.kr/verify.html?mode=direct&data="), universal)
        for link in [scheme, universal] {
            let call = try AppLink.parseCall(link)
            XCTAssertEqual(call.clientScheme, "spDemo")
            XCTAssertEqual(call.m200.transactionCode, m200.transactionCode)
        }
        // An M200 with a large embedded profile does not fit: refused when built and when read.
        m200.profile = String(repeating: "A", count: 900)
        XCTAssertThrowsError(try AppLink.universal(m200, clientScheme: "spDemo")) { error in
            guard case MobileIDError.linkTooLong(let length) = error else { return XCTFail("\(error)") }
            XCTAssertGreaterThan(length, 1024)
        }
        // A valid app call that is too long is refused for its length (the M200 in it is fine).
        var short = try M200(object: guideM200)
        short.profile = String(repeating: "A", count: 700)
        let longCall = "MobileID://verify?clientScheme=spDemo&data=\(short.base64)&mode=indirect"
        XCTAssertGreaterThan(longCall.count, 1024)
        XCTAssertNoThrow(try M200(base64: short.base64))
        XCTAssertThrowsError(try AppLink.parseCall(longCall)) {
            XCTAssertEqual($0 as? MobileIDError, .linkTooLong(length: longCall.count))
        }
        // The link's mode must be its M200's.
        var plain = try M200(object: guideM200)
        plain.mode = .direct
        let direct = try AppLink.universal(plain, clientScheme: "spDemo")
        XCTAssertThrowsError(
            try AppLink.parseCall(direct.replacingOccurrences(of: "mode=direct", with: "mode=indirect"))
        ) {
            XCTAssertEqual(($0 as? MobileIDError)?.code, "mobileid-malformed-message")
        }
        XCTAssertThrowsError(try AppLink.parseCall("https://evil.example/verify.html?data=abc")) {
            XCTAssertEqual(($0 as? MobileIDError)?.code, "mobileid-not-a-link")
        }
    }

    func presentation(
        nonce: String? = "5a1f", authType: [String] = ["pin"], presentType: M400.PresentType = .didVP
    ) -> M400 {
        M400(
            transactionCode: "20240813025840401CBEAB157", presentType: presentType, encryptType: .aes256, keyType: .rsa,
            authType: authType,
            did: "did:kr:mobileid:abc", nonce: nonce, timezone: "Asia/Seoul", data: "a1b2c3")
    }

    func testTheIndirectCallbackCarriesTheM400AndTheSPChecksIt() throws {
        let m400 = presentation()
        let callback = try AppLink.callback(clientScheme: "spDemo", presentation: m400)
        XCTAssertTrue(callback.hasPrefix("spDemo://verify?success=true&data="))
        let back = try AppLink.parseCallback(callback, clientScheme: "spDemo")
        XCTAssertEqual(back, m400)
        XCTAssertNoThrow(try back.check(transactionCode: "20240813025840401CBEAB157", nonce: "5a1f"))
        // The direct POST's data is base64url of the same JSON.
        XCTAssertEqual(try M400(text: Base64URL.encode(m400.json)), m400)
        // The guide's ZKP form: zkpNonce, no authType needed.
        let zkp = presentation(nonce: "77", authType: [], presentType: .zkpVP)
        XCTAssertEqual(try M400(text: String(decoding: zkp.json, as: UTF8.self)).nonce, "77")
        XCTAssertNoThrow(try zkp.check(transactionCode: zkp.transactionCode, nonce: "77"))
        XCTAssertThrowsError(try AppLink.parseCallback("spDemo://verify?success=false", clientScheme: "spDemo")) {
            XCTAssertEqual(($0 as? MobileIDError)?.code, "mobileid-app-failure")
        }
    }

    func testWhatAnSPMustRefuse() throws {
        let good = presentation()
        func refuses(_ expected: String, spCode: Int?, _ body: () throws -> Void) {
            XCTAssertThrowsError(try body()) { error in
                XCTAssertEqual((error as? MobileIDError)?.code, expected, "\(error)")
                XCTAssertEqual((error as? MobileIDError)?.spErrorCode, spCode)
            }
        }
        refuses("mobileid-trxcode-mismatch", spCode: 10104) {
            try good.check(transactionCode: "20240813025840401CBEAB158", nonce: "5a1f")
        }
        refuses("mobileid-nonce-mismatch", spCode: 10111) {
            try good.check(transactionCode: good.transactionCode, nonce: "5a1e")
        }
        refuses("mobileid-nonce-mismatch", spCode: 10111) {
            try self.presentation(nonce: nil).check(transactionCode: good.transactionCode, nonce: "5a1f")
        }
        refuses("mobileid-authtype-mismatch", spCode: 10112) {
            try good.check(transactionCode: good.transactionCode, nonce: "5a1f", requiredAuthType: ["pin", "face"])
        }
        refuses("mobileid-authtype-mismatch", spCode: 10112) {
            try self.presentation(authType: ["face"]).check(transactionCode: good.transactionCode, nonce: "5a1f")
        }
        XCTAssertNoThrow(
            try presentation(authType: ["PIN", "Face"]).check(
                transactionCode: good.transactionCode, nonce: "5a1f", requiredAuthType: ["pin", "face"]),
            "authType is case-insensitive")
        // Unknown VP values, missing fields, wrong messages, bad base64, bad transaction codes.
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: good.json) as? [String: Any])
        var vp = try XCTUnwrap(object["vp"] as? [String: Any])
        vp["presentType"] = 7
        object["vp"] = vp
        refuses("mobileid-unsupported-value", spCode: 10106) { _ = try M400(object: object) }
        vp["presentType"] = 1
        vp["keyType"] = 5
        object["vp"] = vp
        refuses("mobileid-unsupported-value", spCode: 10106) { _ = try M400(object: object) }
        vp["keyType"] = 1
        object["vp"] = vp
        refuses("mobileid-unsupported-value", spCode: 10106) {
            try M400(object: object).check(transactionCode: good.transactionCode, nonce: "5a1f")
        }
        vp.removeValue(forKey: "data")
        object["vp"] = vp
        refuses("mobileid-malformed-message", spCode: 10001) { _ = try M400(object: object) }
        refuses("mobileid-unexpected-message", spCode: 10001) {
            _ = try M400(object: ["type": "mip", "cmd": "200", "version": "1.0.0"])
        }
        refuses("mobileid-not-base64", spCode: 10003) { _ = try M200(base64: "not base64 at all!") }
        refuses("mobileid-not-base64", spCode: 10003) { _ = try Base64URL.decode("abcde", field: "data") }
        refuses("mobileid-malformed-message", spCode: 10001) {
            _ = try M200(base64: Base64URL.encode(Data("[1,2]".utf8)))
        }
        var m200 = guideM200
        m200["trxcode"] = "2024081302584040"
        refuses("mobileid-malformed-trxcode", spCode: 10104) { _ = try M200(object: m200) }
        m200["trxcode"] = "20240813025840401cbeab157"
        refuses("mobileid-malformed-trxcode", spCode: 10104) { _ = try M200(object: m200) }
        m200 = guideM200
        m200["mode"] = "carrier-pigeon"
        refuses("mobileid-unknown-mode", spCode: 10001) { _ = try M200(object: m200) }
        m200 = guideM200
        m200.removeValue(forKey: "trxcode")
        refuses("mobileid-malformed-message", spCode: 10001) { _ = try M200(object: m200) }
        refuses("mobileid-malformed-message", spCode: 10001) { _ = try Envelope(json: Data(#"{"result": true}"#.utf8)) }
    }

    func testTransactionCodesHaveTheSPSamplesShape() {
        let date = Date(timeIntervalSince1970: 1_723_513_120.401)  // 2024-08-13 10:38:40.401 KST
        let code = TransactionCode.make(at: date, random: [0xCB, 0xEA, 0xB1, 0x57])
        XCTAssertEqual(code, "20240813103840401CBEAB157")
        XCTAssertTrue(TransactionCode.isValid(code))
        XCTAssertTrue(TransactionCode.isValid("20240813025840401CBEAB157"), "the guide's")
        XCTAssertFalse(TransactionCode.isValid("20241313025840401CBEAB157"), "month 13")
        XCTAssertTrue(TransactionCode.isValid("20220711161455371E5E8EA20"), "24-hour hours, as a real 2022 code")
        XCTAssertFalse(TransactionCode.isValid("20240813245840401CBEAB157"), "hour 24")
        XCTAssertEqual(
            TransactionCode.make(at: Date(timeIntervalSince1970: 1_723_550_000), random: [0, 0, 0, 1]).dropFirst(8)
                .prefix(2), "20",
            "written with the 24-hour clock (20:53 KST)")
        XCTAssertEqual(TransactionCode.make().count, 25)
    }
}
