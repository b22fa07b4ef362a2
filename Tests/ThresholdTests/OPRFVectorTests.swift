import Foundation
import TamgaCore
import XCTest

@testable import Threshold

/// The PIN hardening's primitives against their RFCs' published vectors: hash-to-curve
/// `P256_XMD:SHA-256_SSWU_RO_` (RFC 9380 appendices J.1.1 and K.1) and the P256-SHA256 OPRF in
/// OPRF mode (RFC 9497 appendix A.3.1).
final class OPRFVectorTests: XCTestCase {
    func hex(_ text: String) -> [UInt8] { Hex.bytes(text) ?? [] }

    /// RFC 9380 K.1, expand_message_xmd(SHA-256), DST "QUUX-V01-CS02-with-expander-SHA256-128".
    func testExpandMessageXMDMatchesRFC9380() throws {
        let dst = Array("QUUX-V01-CS02-with-expander-SHA256-128".utf8)
        XCTAssertEqual(
            try HashToCurve.expandMessageXMD([], dst: dst, length: 0x20),
            hex("68a985b87eb6b46952128911f2a4412bbc302a9d759667f87f7a21d803f07235"))
        XCTAssertEqual(
            try HashToCurve.expandMessageXMD(Array("abc".utf8), dst: dst, length: 0x20),
            hex("d8ccab23b5985ccea865c6c97b6e5b8350e794e603b4b97902f53a8a0d605615"))
        XCTAssertThrowsError(try HashToCurve.expandMessageXMD([], dst: [UInt8](repeating: 1, count: 256), length: 32))
        XCTAssertThrowsError(try HashToCurve.expandMessageXMD([], dst: dst, length: 256 * 32))
    }

    /// RFC 9380 J.1.1: u0, u1, Q0 and the resulting P for every message of the suite.
    func testHashToCurveMatchesRFC9380() throws {
        let dst = Array("QUUX-V01-CS02-with-P256_XMD:SHA-256_SSWU_RO_".utf8)
        let u = try HashToCurve.hashToField([], dst: dst, count: 2)
        XCTAssertEqual(u[0].bytes(width: 32), hex("ad5342c66a6dd0ff080df1da0ea1c04b96e0330dd89406465eeba11582515009"))
        XCTAssertEqual(u[1].bytes(width: 32), hex("8c0f1d43204bd6f6ea70ae8013070a1518b43873bcd850aafa0a9e220e2eea5a"))
        // Q0 = map_to_curve(u0): x ab640a12…, y dccb5588…b1 (odd: prefix 03).
        XCTAssertEqual(
            try HashToCurve.mapToCurve(u[0]).compressed,
            [3] + hex("ab640a12220d3ff283510ff3f4b1953d09fad35795140b1c5d64f313967934d5"))
        XCTAssertEqual(
            try HashToCurve.mapToCurve(u[1]).compressed,
            [2] + hex("51cce63c50d972a6e51c61334f0f4875c9ac1cd2d3238412f84e31da7d980ef5"))
        let vectors: [(String, String)] = [
            ("", "032c15230b26dbc6fc9a37051158c95b79656e17a1a920b11394ca91c44247d3e4"),
            ("abc", "020bb8b87485551aa43ed54f009230450b492fead5f1cc91658775dac4a3388a0f"),
            ("abcdef0123456789", "0365038ac8f2b1def042a5df0b33b1f4eca6bff7cb0f9c6c1526811864e544ed80"),
            (
                "q128_" + String(repeating: "q", count: 128),
                "024be61ee205094282ba8a2042bcb48d88dfbb609301c49aa8b078533dc65a0b5d"
            ),
            (
                "a512_" + String(repeating: "a", count: 512),
                "02457ae2981f70ca85d8e24c308b14db22f3e3862c5ea0f652ca38b5e49cd64bc5"
            ),
        ]
        for (message, expected) in vectors {
            XCTAssertEqual(
                Hex.encode(try HashToCurve.hash(Array(message.utf8), dst: dst).compressed), expected,
                message.prefix(20) + "")
        }
    }

    /// RFC 9497 A.3.1 (P256-SHA256, OPRF mode): skSm from Seed a3…a3 and KeyInfo "test key";
    /// the fixed Blind; BlindedElement, EvaluationElement and Output for both inputs.
    func testOPRFMatchesRFC9497() throws {
        let key = BigInt(bytes: hex("159749d750713afe245d2d39ccfaae8381c53ce92d098a9375ee70739c7ac0bf"))
        let blind = BigInt(bytes: hex("3338fa65ec36e0290022b48eb562889d89dbfa691d1cde91517fa222ed7ad364"))
        let vectors: [(input: String, blinded: String, evaluated: String, output: String)] = [
            (
                "00", "03723a1e5c09b8b9c18d1dcbca29e8007e95f14f4732d9346d490ffc195110368d",
                "030de02ffec47a1fd53efcdd1c6faf5bdc270912b8749e783c7ca75bb412958832",
                "a0b34de5fa4c5b6da07e72af73cc507cceeb48981b97b7285fc375345fe495dd"
            ),
            (
                "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a",
                "03cc1df781f1c2240a64d1c297b3f3d16262ef5d4cf102734882675c26231b0838",
                "03a0395fe3828f2476ffcd1f4fe540e5a8489322d398be3c4e5a869db7fcb7c52c",
                "c748ca6dd327f0ce85f4ae3a8cd6d4d5390bbb804c9e12dcf94f853fece3dcce"
            ),
        ]
        for vector in vectors {
            let input = hex(vector.input)
            let blinded = try OPRF.blind(input, blind: blind)
            XCTAssertEqual(Hex.encode(blinded.element.compressed), vector.blinded)
            let evaluated = try OPRF.evaluate(blinded.element, key: key)
            XCTAssertEqual(Hex.encode(evaluated.compressed), vector.evaluated)
            XCTAssertEqual(Hex.encode(try OPRF.finalize(input, blind: blind, evaluated: evaluated)), vector.output)
        }
        // A fresh random blind gives another blinded element and the same output.
        let input = hex("00")
        let random = try OPRF.blind(input, random: SystemRandom())
        XCTAssertNotEqual(Hex.encode(random.element.compressed), vectors[0].blinded)
        XCTAssertEqual(
            Hex.encode(
                try OPRF.finalize(input, blind: random.blind, evaluated: OPRF.evaluate(random.element, key: key))),
            vectors[0].output)
    }

    /// The PIN endpoints' decoders refuse anything but their fixed-width fields and curve points.
    func testPINMessagesRefuseMalformedFields() throws {
        let point = try P256.multiplyGenerator(BigInt(UInt(5)))
        let good = PINMessages.encode(
            PINMessages.EvaluateRequest(keyID: [UInt8](repeating: 1, count: 32), blinded: point))
        XCTAssertEqual(try PINMessages.decodeEvaluateRequest(good).blinded, point)
        var badPrefix = good
        badPrefix["blindedElement"] = "05" + Hex.encode(Array(point.compressed.dropFirst()))  // no such SEC1 prefix
        XCTAssertThrowsError(try PINMessages.decodeEvaluateRequest(badPrefix))
        var short = good
        short["keyID"] = "0101"
        XCTAssertThrowsError(try PINMessages.decodeEvaluateRequest(short))
        XCTAssertThrowsError(
            try PINMessages.decodeConfirmRequest([
                "keyID": String(repeating: "01", count: 32), "attempt": 5, "proof": "",
            ]))
        XCTAssertThrowsError(
            try PINMessages.decodeEvaluateResponse([
                "evaluatedElement": Hex.encode(point.compressed), "attempt": String(repeating: "00", count: 32),
                "attemptsLeft": -1,
            ]))
    }
}
