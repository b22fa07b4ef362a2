import Foundation
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import Threshold

/// `Fixtures/threshold/primitives.json`: one vector per building block (Paillier, commitment,
/// Schnorr, the N proof with all 11 roots, Π^prm with all 128 rounds, Π^log*, Π^mod with all
/// 128 roots, Π^fac), made from a
/// recorded tape and the ring-Pedersen primes of the transcript file; replayed byte for byte.
/// Regenerated with the transcript by `make vectors`.
final class PrimitiveVectorTests: XCTestCase {
    static var file: URL { URL(fileURLWithPath: TestEnvironment.fixture("threshold/primitives.json")) }

    struct Vectors: Codable {
        var schema = "tamga-l17-primitives/1"
        var suite = Transcript.suite
        var tape: [TapeRandom.Entry]
        var values: [String: [String: String]]
        var lists: [String: [String]]
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
    static func fixed(_ value: BigInt, _ width: Int) -> String { hex(value.bytes(width: width) ?? value.bytes) }

    /// Computes every primitive from `random` (the ring-Pedersen primes come from the transcript vectors).
    static func compute(
        random: TapeRandom, ringPedersenPrimes: (BigInt, BigInt)
    ) throws -> (values: [String: [String: String]], lists: [String: [String]]) {
        var values: [String: [String: String]] = [:], lists: [String: [String]] = [:]
        let sid = Transcript.taggedHash("golden/sid", [Array("primitives".utf8)]),
            pid = Transcript.taggedHash("golden/pid", [Array("prover".utf8)])

        let key = try PaillierSecretKey.generate(random: random)
        let m = try random.integer(below: P256.order, label: "vector.paillier.m")
        let r = try key.publicKey.randomizer(random, label: "vector.paillier.r")
        let c = key.publicKey.encrypt(m, randomizer: r)
        values["paillier"] = [
            "p": fixed(key.p, 128), "q": fixed(key.q, 128), "n": fixed(key.publicKey.n, 256), "m": fixed(m, 32),
            "r": fixed(r, 256),
            "c": fixed(c, 512), "decrypted": fixed(try key.decrypt(c), 32),
            "hom_add": fixed(key.publicKey.add(c, c), 512),
            "hom_scalar_by_m": fixed(key.publicKey.multiply(c, by: m), 512),
        ]

        let nonce = try random.bytes(32, label: "vector.commit.nonce"),
            blind = try random.bytes(32, label: "vector.commit.blind")
        let payload = try P256.multiplyGenerator(m).compressed
        values["commitment"] = [
            "pid": hex(pid), "nonce": hex(nonce), "label": "keygen/Q1", "payload": hex(payload), "blind": hex(blind),
            "value": hex(Commitment(pid: pid, nonce: nonce, label: "keygen/Q1", payload: payload, blind: blind).value),
        ]

        let x = try random.nonZeroInteger(below: P256.order, label: "vector.schnorr.x")
        let statement = try P256.multiplyGenerator(x)
        let schnorr = try SchnorrProof.prove(
            secret: x, statement: statement, sid: sid, label: "keygen/Q2", pid: pid, random: random)
        values["schnorr"] = [
            "sid": hex(sid), "label": "keygen/Q2", "pid": hex(pid), "x": fixed(x, 32), "X": hex(statement.compressed),
            "proof": hex(schnorr.encoded),
        ]

        let nProof = try PaillierModulusProof.prove(secretKey: key, sid: sid)
        lists["nicorrectkey.roots"] = nProof.roots.map { fixed($0, 256) }

        let ringPedersen = try RingPedersenSecret(p: ringPedersenPrimes.0, q: ringPedersenPrimes.1, random: random)
        let prm = try RingPedersenProof.prove(ringPedersen, pid: pid, random: random)
        values["ring-pedersen"] = [
            "n": fixed(ringPedersen.parameters.n, 256), "s": fixed(ringPedersen.parameters.s, 256),
            "t": fixed(ringPedersen.parameters.t, 256),
        ]
        lists["prm.commitments"] = prm.commitments.map { fixed($0, 256) }
        lists["prm.responses"] = prm.responses.map { fixed($0, 256) }

        let rho = try key.publicKey.randomizer(random, label: "vector.pdl.rho")
        let ckey = key.publicKey.encrypt(x, randomizer: rho)
        let pdl = try PDLProof.prove(
            .init(paillier: key.publicKey, ciphertext: ckey, point: statement, ringPedersen: ringPedersen.parameters),
            x: x, rho: rho, sid: sid, pid: pid, random: random)
        values["pdl"] = [
            "ckey": fixed(ckey, 512), "S": fixed(pdl.s, 256), "A": fixed(pdl.a, 512), "Y": hex(pdl.y.compressed),
            "D": fixed(pdl.d, 256),
            "z1": fixed(pdl.z1, 97), "z2": fixed(pdl.z2, 256), "z3": fixed(pdl.z3, 353),
        ]

        let blum = try PaillierBlumProof.prove(secretKey: key, sid: sid, random: random)
        values["pimod"] = [
            "sid": hex(sid), "w": fixed(blum.w, 256), "a": WireFormat.packed(blum.a), "b": WireFormat.packed(blum.b),
        ]
        lists["pimod.roots"] = blum.roots.map { fixed($0, 256) }

        let fac = try NoSmallFactorProof.prove(
            n0: key.publicKey.n, p: key.p, q: key.q, ringPedersen: ringPedersen.parameters, sid: sid, pid: pid,
            random: random)
        values["pifac"] = [
            "P": fixed(fac.commitmentP, 256), "Q": fixed(fac.commitmentQ, 256), "A": fixed(fac.commitmentA, 256),
            "B": fixed(fac.commitmentB, 256),
            "T": fixed(fac.commitmentT, 256), "sigma": fixed(fac.sigma, NoSmallFactorProof.sigmaBytes),
            "z1": fixed(fac.z1, NoSmallFactorProof.zBytes), "z2": fixed(fac.z2, NoSmallFactorProof.zBytes),
            "w1": fixed(fac.w1, NoSmallFactorProof.wBytes), "w2": fixed(fac.w2, NoSmallFactorProof.wBytes),
            "v": fixed(fac.v, NoSmallFactorProof.vBytes),
        ]
        return (values, lists)
    }

    static func ringPedersenPrimes() throws -> (BigInt, BigInt) {
        let transcript = try JSONDecoder().decode(
            GoldenVectorTests.Vectors.self, from: Data(contentsOf: GoldenVectorTests.file))
        return (BigInt(hex: transcript.ringPedersen["p"]!)!, BigInt(hex: transcript.ringPedersen["q"]!)!)
    }

    func testPrimitivesReplayByteForByte() throws {
        if ProcessInfo.processInfo.environment["TAMGA_REGENERATE_VECTORS"] == "1" {
            let tape = TapeRandom(.record(seed: "tamga primitives v1"))
            let result = try Self.compute(random: tape, ringPedersenPrimes: Self.ringPedersenPrimes())
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(Vectors(tape: tape.tape, values: result.values, lists: result.lists)).write(
                to: Self.file)
        }
        let vectors = try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: Self.file))
        let tape = TapeRandom(.replay(vectors.tape))
        let result = try Self.compute(random: tape, ringPedersenPrimes: Self.ringPedersenPrimes())
        for (group, fields) in vectors.values.sorted(by: { $0.key < $1.key }) {
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
                XCTAssertEqual(result.values[group]?[name], value, "\(group).\(name)")
            }
        }
        for (name, list) in vectors.lists { XCTAssertEqual(result.lists[name], list, name) }
        XCTAssertEqual(vectors.lists["nicorrectkey.roots"]?.count, 11)
        XCTAssertEqual(vectors.lists["prm.responses"]?.count, 128)
        XCTAssertEqual(vectors.lists["pimod.roots"]?.count, 128)
        XCTAssertTrue(tape.isExhausted)
        // The vectors hold their own relations, checked without the tape: Dec(c) = m.
        XCTAssertEqual(vectors.values["paillier"]?["decrypted"], vectors.values["paillier"]?["m"])
    }
}
