import Foundation
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import Threshold

/// The golden transcript `Fixtures/threshold/transcript.json`: one enrollment and one signature
/// with recorded randomness, every message field as fixed-width hex. The test replays the tape
/// and compares every field byte for byte. Regenerate only deliberately: `make vectors` (it runs
/// this test with TAMGA_REGENERATE_VECTORS=1, which rewrites the file).
final class GoldenVectorTests: XCTestCase {
    struct Vectors: Codable {
        var schema = "tamga-l17-golden/1"
        var suite = Transcript.suite
        var sharing = "multiplicative"
        var constants: [String: Int] = [
            "paillier_bits": 2048, "nicorrectkey_rounds": PaillierModulusProof.rounds, "small_prime_bound": 6379,
            "prm_rounds": RingPedersenProof.rounds, "logstar_l": PDLProof.l, "logstar_eps": PDLProof.epsilon,
            "sign_rho_bits": TwoPartySigning.maskBits, "pimod_rounds": PaillierBlumProof.rounds,
            "pifac_l": NoSmallFactorProof.l, "pifac_eps": NoSmallFactorProof.epsilon,
        ]
        var ringPedersen: [String: String]
        var clientPID: String
        var serverPID: String
        var digest: String
        var tape: [TapeRandom.Entry]
        var messages: [String: [String: String]]
        var expected: [String: String]
    }

    static var file: URL { URL(fileURLWithPath: TestEnvironment.fixture("threshold/transcript.json")) }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
    static func fixed(_ value: BigInt, _ width: Int) -> String { hex(value.bytes(width: width) ?? value.bytes) }

    /// Runs enrollment and one signature with `random`, returning every message's fields.
    static func run(
        random: TapeRandom, ringPedersen: RingPedersenSecret, clientPID: [UInt8], serverPID: [UInt8], digest: [UInt8]
    ) throws
        -> (messages: [String: [String: String]], expected: [String: String])
    {
        var messages: [String: [String: String]] = [:]
        let server = try ServerParty(pid: serverPID, ringPedersen: ringPedersen, random: random)
        let client = try ClientEnrollment(pid: clientPID, random: random)
        let initRequest = client.initRequest
        messages["enroll/init.req"] = [
            "clientPID": hex(initRequest.clientPID), "clientNonce": hex(initRequest.clientNonce),
            "C_Q1": hex(initRequest.commitmentQ1.value),
        ]
        let initResponse = try server.enrollInit(initRequest)
        messages["enroll/init.resp"] = [
            "serverNonce": hex(initResponse.serverNonce), "Q2": hex(initResponse.q2.compressed),
            "pi_Q2": hex(initResponse.proofQ2.encoded), "ringPedersen": hex(initResponse.ringPedersen.fingerprint),
            "prm_A0": fixed(initResponse.ringPedersenProof.commitments[0], 256),
            "prm_z127": fixed(initResponse.ringPedersenProof.responses[RingPedersenProof.rounds - 1], 256),
        ]
        let complete = try client.complete(initResponse)
        messages["enroll/complete.req"] = [
            "Q1": hex(complete.q1.compressed), "blind": hex(complete.blind), "pi_Q1": hex(complete.proofQ1.encoded),
            "N": fixed(complete.paillierN, 256), "ckey": fixed(complete.ckey, 512),
            "pi_N_sigma0": fixed(complete.proofN.roots[0], 256), "pi_N_sigma10": fixed(complete.proofN.roots[10], 256),
            "pdl_S": fixed(complete.proofPDL.s, 256), "pdl_A": fixed(complete.proofPDL.a, 512),
            "pdl_Y": hex(complete.proofPDL.y.compressed),
            "pdl_D": fixed(complete.proofPDL.d, 256), "pdl_z1": fixed(complete.proofPDL.z1, 97),
            "pdl_z2": fixed(complete.proofPDL.z2, 256),
            "pdl_z3": fixed(complete.proofPDL.z3, 353),
            "pi_mod_w": fixed(complete.proofMod.w, 256), "pi_mod_x0": fixed(complete.proofMod.roots[0], 256),
            "pi_mod_x127": fixed(complete.proofMod.roots[PaillierBlumProof.rounds - 1], 256),
            "pi_mod_a": WireFormat.packed(complete.proofMod.a), "pi_mod_b": WireFormat.packed(complete.proofMod.b),
            "pi_fac_P": fixed(complete.proofFac.commitmentP, 256),
            "pi_fac_Q": fixed(complete.proofFac.commitmentQ, 256),
            "pi_fac_A": fixed(complete.proofFac.commitmentA, 256),
            "pi_fac_B": fixed(complete.proofFac.commitmentB, 256),
            "pi_fac_T": fixed(complete.proofFac.commitmentT, 256),
            "pi_fac_sigma": fixed(complete.proofFac.sigma, NoSmallFactorProof.sigmaBytes),
            "pi_fac_z1": fixed(complete.proofFac.z1, NoSmallFactorProof.zBytes),
            "pi_fac_z2": fixed(complete.proofFac.z2, NoSmallFactorProof.zBytes),
            "pi_fac_w1": fixed(complete.proofFac.w1, NoSmallFactorProof.wBytes),
            "pi_fac_w2": fixed(complete.proofFac.w2, NoSmallFactorProof.wBytes),
            "pi_fac_v": fixed(complete.proofFac.v, NoSmallFactorProof.vBytes),
        ]
        let (completeResponse, serverShare) = try server.enrollComplete(clientNonce: initRequest.clientNonce, complete)
        messages["enroll/complete.resp"] = [
            "keyID": hex(completeResponse.keyID), "Q": hex(completeResponse.publicKey.compressed),
        ]
        let share = try client.finish(completeResponse)

        let signing = try ClientSigning(share: share.publicShare, digest: digest, guard: MemoryGuard(), random: random)
        let commit = signing.commitRequest
        messages["sign/commit.req"] = [
            "clientNonce": hex(commit.clientNonce), "digest": hex(commit.digest),
            "C_R1": hex(commit.commitmentR1.value),
        ]
        let commitResponse = try server.signCommit(serverShare, commit)
        messages["sign/commit.resp"] = [
            "serverNonce": hex(commitResponse.serverNonce), "R2": hex(commitResponse.r2.compressed),
            "pi_R2": hex(commitResponse.proofR2.encoded),
        ]
        let prove = try signing.prove(commitResponse)
        messages["sign/prove.req"] = [
            "R1": hex(prove.r1.compressed), "blind": hex(prove.blind), "pi_R1": hex(prove.proofR1.encoded),
        ]
        let proveResponse = try server.signProve(serverShare, prove)
        messages["sign/prove.resp"] = ["c3": fixed(proveResponse.c3, 512)]
        let signature = try signing.finish(proveResponse, secretKey: share.secretKey)
        _ = try server.signFinish(serverShare, .init(signature: signature))
        messages["sign/finish.req"] = ["r": fixed(signature.r, 32), "s": fixed(signature.s, 32)]
        return (
            messages, ["Q": hex(share.publicKey.compressed), "r": fixed(signature.r, 32), "s": fixed(signature.s, 32)]
        )
    }

    static let clientPID = Transcript.taggedHash("golden/pid", [Array("client".utf8)])
    static let serverPID = Transcript.taggedHash("golden/pid", [Array("server".utf8)])
    static let digest = Array(Digest.compute(.sha256, over: Data("tamga golden transcript".utf8)).bytes)

    func testRecordedTranscriptReplaysByteForByte() throws {
        if ProcessInfo.processInfo.environment["TAMGA_REGENERATE_VECTORS"] == "1" {
            try regenerate()
        }
        let vectors = try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: Self.file))
        XCTAssertEqual(vectors.suite, Transcript.suite)
        XCTAssertEqual(
            vectors.constants,
            Vectors(ringPedersen: [:], clientPID: "", serverPID: "", digest: "", tape: [], messages: [:], expected: [:])
                .constants,
            "suite constants changed: regenerate the vectors deliberately")
        let tape = TapeRandom(.replay(vectors.tape))
        let ringPedersen = try RingPedersenSecret(
            p: XCTUnwrap(BigInt(hex: vectors.ringPedersen["p"] ?? "")),
            q: XCTUnwrap(BigInt(hex: vectors.ringPedersen["q"] ?? "")), random: tape)
        let replayed = try Self.run(
            random: tape, ringPedersen: ringPedersen, clientPID: Self.clientPID, serverPID: Self.serverPID,
            digest: Self.digest)
        // Message by message, field by field: a mismatch names its place.
        for (step, fields) in vectors.messages.sorted(by: { $0.key < $1.key }) {
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
                XCTAssertEqual(replayed.messages[step]?[name], value, "\(step) \(name)")
            }
        }
        XCTAssertEqual(replayed.messages.keys.sorted(), vectors.messages.keys.sorted())
        XCTAssertEqual(replayed.expected, vectors.expected)
        XCTAssertTrue(tape.isExhausted, "every recorded draw was used")
        // And the expected signature verifies with OpenSSL under Q.
        let q = try Point(compressed: Array(BigInt(hex: vectors.expected["Q"]!)!.bytes(width: 33)!))
        XCTAssertTrue(
            TwoPartySigning.verify(
                r: BigInt(hex: vectors.expected["r"]!)!, s: BigInt(hex: vectors.expected["s"]!)!,
                digest: try Digest(algorithm: .sha256, bytes: Data(Self.digest)), publicKey: q))
    }

    func testATamperedTapeFailsAtTheStepThatChanged() throws {
        let vectors = try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: Self.file))
        var tape = vectors.tape
        let index = try XCTUnwrap(tape.firstIndex { $0.label == "sign.k1" })
        tape[index] = TapeRandom.Entry(label: "sign.k2", hex: tape[index].hex)
        let random = TapeRandom(.replay(tape))
        let ringPedersen = try RingPedersenSecret(
            p: BigInt(hex: vectors.ringPedersen["p"]!)!, q: BigInt(hex: vectors.ringPedersen["q"]!)!, random: random)
        XCTAssertThrowsError(
            try Self.run(
                random: random, ringPedersen: ringPedersen, clientPID: Self.clientPID, serverPID: Self.serverPID,
                digest: Self.digest)
        ) {
            XCTAssertTrue("\($0)".contains("sign.k1"), "\($0)")
        }
    }

    /// Records a new transcript (fresh safe primes, a fixed seed) into the fixture file.
    func regenerate() throws {
        let p = try RingPedersenSecret.safePrime(bits: 1024), q = try RingPedersenSecret.safePrime(bits: 1024)
        let tape = TapeRandom(.record(seed: "tamga golden transcript v1"))
        let ringPedersen = try RingPedersenSecret(p: p, q: q, random: tape)
        let result = try Self.run(
            random: tape, ringPedersen: ringPedersen, clientPID: Self.clientPID, serverPID: Self.serverPID,
            digest: Self.digest)
        let vectors = Vectors(
            ringPedersen: ["p": p.hex, "q": q.hex], clientPID: Self.hex(Self.clientPID),
            serverPID: Self.hex(Self.serverPID),
            digest: Self.hex(Self.digest), tape: tape.tape, messages: result.messages, expected: result.expected)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try FileManager.default.createDirectory(
            at: Self.file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(vectors).write(to: Self.file)
    }
}
