import Foundation
import TamgaCore
import XCTest

@testable import Threshold

/// Enrollment and signing with every message going through its JSON form, and malformed fields
/// refused before any party sees them.
final class WireFormatTests: XCTestCase {
    /// Through JSON bytes and back, as the HTTP layer will.
    func roundTrip(
        _ object: WireFormat.Object, _ lists: WireFormat.Lists = [:]
    ) throws -> (WireFormat.Object, WireFormat.Lists) {
        var combined: [String: Any] = object
        for (key, value) in lists { combined[key] = value }
        let data = try JSONSerialization.data(withJSONObject: combined, options: [.sortedKeys])
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        return (parsed.compactMapValues { $0 as? String }, parsed.compactMapValues { $0 as? [String] })
    }

    func testAWholeEnrollmentAndSignatureThroughJSON() throws {
        let server = PartyTests.server
        let client = try ClientEnrollment(pid: PartyTests.clientPID)
        let initRequest = try WireFormat.decodeEnrollInitRequest(roundTrip(WireFormat.encode(client.initRequest)).0)
        let (o1, l1) = try WireFormat.encode(server.enrollInit(initRequest))
        let (ro1, rl1) = try roundTrip(o1, l1)
        let (o2, l2) = try WireFormat.encode(client.complete(WireFormat.decodeEnrollInitResponse(ro1, rl1)))
        let (ro2, rl2) = try roundTrip(o2, l2)
        let (response, serverShare) = try server.enrollComplete(
            clientNonce: initRequest.clientNonce, WireFormat.decodeEnrollCompleteRequest(ro2, rl2))
        let share = try client.finish(WireFormat.decodeEnrollCompleteResponse(roundTrip(WireFormat.encode(response)).0))

        let digest = Array(Digest.compute(.sha256, over: Data("wire".utf8)).bytes)
        let signing = try ClientSigning(share: share.publicShare, digest: digest, guard: MemoryGuard())
        let commit = try WireFormat.decodeSignCommitRequest(roundTrip(WireFormat.encode(signing.commitRequest)).0)
        let commitResponse = try WireFormat.decodeSignCommitResponse(
            roundTrip(WireFormat.encode(server.signCommit(serverShare, commit))).0)
        let prove = try WireFormat.decodeSignProveRequest(roundTrip(WireFormat.encode(signing.prove(commitResponse))).0)
        let c3 = try WireFormat.decodeSignProveResponse(
            roundTrip(WireFormat.encode(server.signProve(serverShare, prove))).0)
        let signature = try signing.finish(c3, secretKey: share.secretKey)
        let finish = try WireFormat.decodeSignFinishRequest(
            roundTrip(WireFormat.encode(ThresholdMessage.SignFinishRequest(signature: signature))).0)
        let confirmed = try server.signFinish(serverShare, finish)
        XCTAssertEqual(confirmed.r, signature.r)
        XCTAssertEqual(WireFormat.encode(ThresholdMessage.SignFinishRequest(signature: nil)), ["status": "crypto_fail"])
    }

    func testMalformedFieldsAreRefusedBeforeAnyPartySeesThem() throws {
        let good = try ClientEnrollment(pid: PartyTests.clientPID).initRequest
        var object = WireFormat.encode(good)
        object["clientNonce"] = String(object["clientNonce"]!.dropLast(2))
        XCTAssertThrowsError(try WireFormat.decodeEnrollInitRequest(object), "31 bytes")
        object = WireFormat.encode(good)
        object["clientPID"] = String(repeating: "zz", count: 32)
        XCTAssertThrowsError(try WireFormat.decodeEnrollInitRequest(object), "not hex")
        object = WireFormat.encode(good)
        object["commitmentQ1"] = nil
        XCTAssertThrowsError(try WireFormat.decodeEnrollInitRequest(object), "missing")
        // A point that is not on the curve, and the identity's non-encoding.
        XCTAssertThrowsError(
            try WireFormat.decodeSignProveRequest([
                "r1": "02" + String(repeating: "0", count: 62) + "01", "blind": String(repeating: "00", count: 32),
                "proofR1": String(repeating: "00", count: 65),
            ]))
        XCTAssertThrowsError(
            try WireFormat.decodeSignFinishRequest([
                "status": "ok", "r": WireFormat.hex(P256.order.bytes(width: 32)!),
                "s": String(repeating: "01", count: 32),
            ]),
            "r ≥ q")
        XCTAssertThrowsError(try WireFormat.decodeSignFinishRequest(["status": "maybe"]))
        XCTAssertThrowsError(
            try WireFormat.decodeSignProveResponse(["c3": String(repeating: "ff", count: 513)]), "c3 wider than Z_N²")
    }

    /// The small-factor proofs' fields (Π^mod, Π^fac) and the 128-round Π^prm survive JSON
    /// unchanged, and a list of the wrong length or a field of the wrong width is refused while
    /// decoding.
    func testTheModulusProofFieldsRoundTripAndAreBounded() throws {
        let client = try ClientEnrollment(pid: PartyTests.clientPID)
        let initResponse = try PartyTests.server.enrollInit(client.initRequest)
        let complete = try client.complete(initResponse)
        let (object, lists) = try WireFormat.encode(complete)
        let (ro, rl) = try roundTrip(object, lists)
        let decoded = try WireFormat.decodeEnrollCompleteRequest(ro, rl)
        XCTAssertEqual(decoded.proofMod, complete.proofMod)
        XCTAssertEqual(decoded.proofFac, complete.proofFac)
        XCTAssertEqual(rl["modX"]?.count, 128)
        XCTAssertEqual(ro["modA"]?.count, 32, "128 bits in 16 bytes")

        func refused(_ change: (inout WireFormat.Object, inout WireFormat.Lists) -> Void, _ name: String) {
            var o = ro, l = rl
            change(&o, &l)
            XCTAssertThrowsError(try WireFormat.decodeEnrollCompleteRequest(o, l), name)
        }
        refused(
            { _, l in
                let first = l["modX"]![0]
                l["modX"]?.append(first)
            }, "129 roots")
        refused({ _, l in l["modX"]?.removeLast() }, "127 roots")
        refused({ _, l in l["modX"] = nil }, "no roots")
        refused(
            { _, l in
                let first = l["proofN"]![0]
                l["proofN"]?.append(first)
            }, "12 NiCorrectKey roots")
        refused({ o, _ in o["modA"] = (o["modA"] ?? "") + "00" }, "17 bytes of a bits")
        refused({ o, _ in o["modW"] = "00" + (o["modW"] ?? "") }, "w wider than Z_N")
        refused({ o, _ in o["facV"] = "00" + (o["facV"] ?? "") }, "v wider than its bound")
        refused({ o, _ in o["facZ1"] = nil }, "no z1")
        refused(
            { o, _ in o["facSigma"] = String(repeating: "zz", count: NoSmallFactorProof.sigmaBytes) }, "sigma not hex")

        let (io, il) = try WireFormat.encode(initResponse)
        XCTAssertEqual(il["prmResponses"]?.count, 128)
        var short = il
        short["prmResponses"]?.removeLast()
        XCTAssertThrowsError(try WireFormat.decodeEnrollInitResponse(io, short), "127 Π^prm responses")
    }

    /// Digits that `Character.isHexDigit` accepts but no radix parser reads (fullwidth,
    /// Arabic-Indic): every field and the attestation header refuse them without trapping.
    func testNonASCIIDigitsAreRefusedInEveryField() throws {
        let good = try ClientEnrollment(pid: PartyTests.clientPID).initRequest
        for digit in ["\u{FF10}", "\u{FF41}", "\u{0661}"] {
            for field in ["clientPID", "clientNonce", "commitmentQ1"] {
                var object = WireFormat.encode(good)
                object[field] = String(repeating: digit, count: 64)
                XCTAssertThrowsError(try WireFormat.decodeEnrollInitRequest(object), field)
            }
            XCTAssertNil(
                DeviceAttestation.parse(
                    "v1:\(String(repeating: digit, count: 64)):\(String(repeating: digit, count: 128))"))
            XCTAssertNil(BigInt(hex: String(repeating: digit, count: 64)))
        }
        XCTAssertEqual(BigInt(hex: "abc")?.bytes, [0x0a, 0xbc], "odd lengths still read as numbers")
    }
}
