import Foundation
import TamgaCore
import TamgaTestSupport
import XCTest

/// `tamga mobileid m200|link|decode|check` as a user runs them.
final class MobileIDCommandTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }

    /// A refusal quotes the wallet's message; an authType carrying a right-to-left override,
    /// an ESC sequence and a C1 control is printed escaped, not raw.
    func testARefusalQuotingTheWalletsTextIsPrintedEscaped() throws {
        let m400 =
            #"{"type":"mip","version":"1.0.0","cmd":"400","trxcode":"20240813025840401CBEAB157","vp":{"presentType":1,"encryptType":2,"keyType":2,"authType":["pin\u202e\u001b[2J\u009b31m"],"nonce":"ab12","type":"VERIFY","data":"00"}}"#
        let refused = try TestEnvironment.run(
            binary,
            [
                "mobileid", "check", m400, "--trxcode", "20240813025840401CBEAB157", "--nonce", "ab12", "--auth-type",
                "face",
            ])
        XCTAssertEqual(refused.status, 1, refused.output + refused.error)
        XCTAssertTrue(refused.output.contains("pin\\u{202E}\\u{001B}[2J\\u{009B}31m"), refused.output.debugDescription)
        XCTAssertFalse(
            refused.output.unicodeScalars.contains { $0 != "\n" && TerminalText.isUnsafe($0) },
            refused.output.debugDescription)
    }

    func testBuildLinkDecodeAndCheckFromTheCommandLine() throws {
        let built = try TestEnvironment.run(
            binary,
            [
                "mobileid", "m200", "--mode", "direct", "--host", "https://sp.example/apis", "--trxcode",
                "20240813025840401CBEAB157",
            ])
        XCTAssertEqual(built.status, 0, built.error)
        let base64 = try XCTUnwrap(built.output.split(separator: "\n").last.map(String.init))
        let link = try TestEnvironment.run(
            binary, ["mobileid", "link", base64, "--client-scheme", "spDemo", "--universal"])
        XCTAssertEqual(link.status, 0, link.error)
        XCTAssertTrue(
            link.output.hasPrefix("https://mobileid.go.kr/verify.html?mode=direct&data=\(base64)&clientScheme=spDemo"),
            link.output)
        let decoded = try TestEnvironment.run(
            binary, ["mobileid", "decode", link.output.trimmingCharacters(in: .whitespacesAndNewlines)])
        XCTAssertEqual(decoded.status, 0, decoded.error)
        XCTAssertTrue(decoded.output.contains("\"trxcode\" : \"20240813025840401CBEAB157\""), decoded.output)
        XCTAssertTrue(decoded.error.contains("production, mode direct"), decoded.error)
        try JSONOutputSchemaTests.conform(decoded.output, to: "mobileid-decode-m200")
        let linkJSON = try TestEnvironment.run(
            binary, ["mobileid", "link", base64, "--client-scheme", "spDemo", "--universal", "--json"])
        XCTAssertEqual(linkJSON.status, 0, linkJSON.error)
        try JSONOutputSchemaTests.conform(linkJSON.output, to: "mobileid-link")
        XCTAssertTrue(linkJSON.output.contains(base64), linkJSON.output)
        // Too long for the app: refused with the reason.
        let long = try TestEnvironment.run(
            binary,
            [
                "mobileid", "m200", "--mode", "direct", "--host", "https://sp.example/apis",
                "--profile", String(repeating: "A", count: 900),
            ])
        let longLink = try TestEnvironment.run(
            binary, ["mobileid", "link", String(long.output.split(separator: "\n").last!), "--universal"])
        XCTAssertEqual(longLink.status, 3)
        XCTAssertTrue(longLink.error.contains("at most 1024"), longLink.error)

        let m400 =
            #"{"type":"mip","version":"1.0.0","cmd":"400","trxcode":"20240813025840401CBEAB157","vp":{"presentType":1,"encryptType":2,"keyType":2,"authType":["pin"],"nonce":"ab12","type":"VERIFY","data":"00"}}"#
        let accepted = try TestEnvironment.run(
            binary, ["mobileid", "check", m400, "--trxcode", "20240813025840401CBEAB157", "--nonce", "ab12"])
        XCTAssertEqual(accepted.status, 0, accepted.output + accepted.error)
        let acceptedJSON = try TestEnvironment.run(
            binary, ["mobileid", "check", m400, "--trxcode", "20240813025840401CBEAB157", "--nonce", "ab12", "--json"])
        XCTAssertEqual(acceptedJSON.status, 0, acceptedJSON.output + acceptedJSON.error)
        try JSONOutputSchemaTests.conform(acceptedJSON.output, to: "mobileid-check")
        let decodedM400 = try TestEnvironment.run(binary, ["mobileid", "decode", m400])
        XCTAssertEqual(decodedM400.status, 0, decodedM400.error)
        try JSONOutputSchemaTests.conform(decodedM400.output, to: "mobileid-decode-m400")
        // The same from a file, named with or without @.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("m400-\(UUID().uuidString).json").path
        try Data(m400.utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        for argument in [file, "@" + file] {
            let fromFile = try TestEnvironment.run(
                binary, ["mobileid", "check", argument, "--trxcode", "20240813025840401CBEAB157", "--nonce", "ab12"])
            XCTAssertEqual(fromFile.status, 0, argument + ": " + fromFile.output + fromFile.error)
        }
        let refused = try TestEnvironment.run(
            binary,
            [
                "mobileid", "check", m400, "--trxcode", "20240813025840401CBEAB157", "--nonce", "ab12",
                "--auth-type", "pin,face", "--json",
            ])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.output.contains("\"errcode\" : 10112"), refused.output)
        try JSONOutputSchemaTests.conform(refused.output, to: "mobileid-check")
        // An M200 as JSON (its host holds "://") is decoded as a message, not taken for a link.
        let json = try TestEnvironment.run(
            binary,
            [
                "mobileid", "decode",
                #"{"mode":"direct","ci":false,"host":"http://10.0.0.159:7201/apis/v1","type":"mip","version":"1.0.0","cmd":"200","trxcode":"20220711161455371E5E8EA20"}"#,
            ])
        XCTAssertEqual(json.status, 0, json.error)
        XCTAssertTrue(json.output.contains("20220711161455371E5E8EA20"), json.output)
        try JSONOutputSchemaTests.conform(json.output, to: "mobileid-decode-m200")
        let garbage = try TestEnvironment.run(binary, ["mobileid", "decode", "%%%"])
        XCTAssertEqual(garbage.status, 3)
        XCTAssertTrue(garbage.error.contains("not base64"), garbage.error)
    }
}
