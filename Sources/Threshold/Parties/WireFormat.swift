import FoundationEssentials
import Glibc
import TamgaCore

/// The JSON form of the protocol messages, for the co-signer's HTTP API: every field fixed-width
/// lower-case hex (`docs/design/threshold-ecdsa.md` §5.1: scalars 32 bytes, points 33, elements of Z_N and
/// Z_Ñ 256, of Z_N² 512, proof integers at their bound's width). Decoding checks every width and
/// every point before a message value exists, so a party never sees a malformed field.
public enum WireFormat {
    public static func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    static func bytes(_ text: String?, count: Int, field: String) throws -> [UInt8] {
        guard let text, let bytes = Hex.bytes(text, count: count) else {
            throw ThresholdError.unexpectedMessage("\(field) must be \(count) bytes of hex")
        }
        return bytes
    }

    static func integer(_ text: String?, count: Int, field: String) throws -> BigInt {
        BigInt(bytes: try bytes(text, count: count, field: field))
    }
    static func point(_ text: String?, field: String) throws -> Point {
        try Point(compressed: bytes(text, count: 33, field: field))
    }
    static func fixed(_ value: BigInt, _ count: Int, field: String) throws -> String {
        guard let bytes = value.bytes(width: count) else {
            throw ThresholdError.unexpectedMessage("\(field) does not fit \(count) bytes")
        }
        return hex(bytes)
    }

    /// A list of exactly `count` fixed-width integers: a proof's round count is a suite
    /// constant, so a longer list is refused before any element is read.
    static func integers(_ texts: [String]?, count: Int, width: Int, field: String) throws -> [BigInt] {
        guard let texts, texts.count == count else {
            throw ThresholdError.unexpectedMessage("\(field) must hold \(count) values")
        }
        return try texts.map { try integer($0, count: width, field: field) }
    }

    /// Round bits, most significant first, in ⌈count/8⌉ bytes.
    static func bits(_ text: String?, count: Int, field: String) throws -> [Bool] {
        let packed = try bytes(text, count: (count + 7) / 8, field: field)
        return (0..<count).map { packed[$0 / 8] >> (7 - UInt8($0 % 8)) & 1 == 1 }
    }
    static func packed(_ bits: [Bool]) -> String {
        var out = [UInt8](repeating: 0, count: (bits.count + 7) / 8)
        for (index, bit) in bits.enumerated() where bit { out[index / 8] |= 0x80 >> UInt8(index % 8) }
        return hex(out)
    }

    public typealias Object = [String: String]
    public typealias Lists = [String: [String]]

    // MARK: Enrollment

    public static func encode(_ m: ThresholdMessage.EnrollInitRequest) -> Object {
        ["clientPID": hex(m.clientPID), "clientNonce": hex(m.clientNonce), "commitmentQ1": hex(m.commitmentQ1.value)]
    }
    public static func decodeEnrollInitRequest(_ o: Object) throws -> ThresholdMessage.EnrollInitRequest {
        .init(
            clientPID: try bytes(o["clientPID"], count: 32, field: "clientPID"),
            clientNonce: try bytes(o["clientNonce"], count: 32, field: "clientNonce"),
            commitmentQ1: Commitment(value: try bytes(o["commitmentQ1"], count: 32, field: "commitmentQ1")))
    }

    public static func encode(_ m: ThresholdMessage.EnrollInitResponse) throws -> (Object, Lists) {
        (
            [
                "serverPID": hex(m.serverPID), "serverNonce": hex(m.serverNonce), "q2": hex(m.q2.compressed),
                "proofQ2": hex(m.proofQ2.encoded),
                "ntilde": try fixed(m.ringPedersen.n, 256, field: "ntilde"),
                "s": try fixed(m.ringPedersen.s, 256, field: "s"), "t": try fixed(m.ringPedersen.t, 256, field: "t"),
            ],
            [
                "prmCommitments": try m.ringPedersenProof.commitments.map { try fixed($0, 256, field: "prm") },
                "prmResponses": try m.ringPedersenProof.responses.map { try fixed($0, 256, field: "prm") },
            ]
        )
    }
    public static func decodeEnrollInitResponse(_ o: Object, _ l: Lists) throws -> ThresholdMessage.EnrollInitResponse {
        let commitments = try integers(
            l["prmCommitments"], count: RingPedersenProof.rounds, width: 256, field: "prmCommitments")
        let responses = try integers(
            l["prmResponses"], count: RingPedersenProof.rounds, width: 256, field: "prmResponses")
        return .init(
            serverPID: try bytes(o["serverPID"], count: 32, field: "serverPID"),
            serverNonce: try bytes(o["serverNonce"], count: 32, field: "serverNonce"),
            q2: try point(o["q2"], field: "q2"),
            proofQ2: try SchnorrProof(encoded: bytes(o["proofQ2"], count: 65, field: "proofQ2")),
            ringPedersen: RingPedersenParameters(
                n: try integer(o["ntilde"], count: 256, field: "ntilde"),
                s: try integer(o["s"], count: 256, field: "s"),
                t: try integer(o["t"], count: 256, field: "t")),
            ringPedersenProof: RingPedersenProof(commitments: commitments, responses: responses))
    }

    /// Π^log* response widths: z1 < 2^(ℓ+ε+1) (97 bytes), z3 < 2^(ℓ+ε+1)·Ñ (353 bytes). Π^mod:
    /// `w` and 128 roots in Z_N, the a and b bits packed in 16 bytes each. Π^fac: commitments
    /// in Z_Ñ, the responses at `NoSmallFactorProof`'s widths.
    public static func encode(_ m: ThresholdMessage.EnrollCompleteRequest) throws -> (Object, Lists) {
        let pdl = m.proofPDL, fac = m.proofFac
        return (
            [
                "q1": hex(m.q1.compressed), "blind": hex(m.blind), "proofQ1": hex(m.proofQ1.encoded),
                "n": try fixed(m.paillierN, 256, field: "n"), "ckey": try fixed(m.ckey, 512, field: "ckey"),
                "pdlS": try fixed(pdl.s, 256, field: "pdlS"), "pdlA": try fixed(pdl.a, 512, field: "pdlA"),
                "pdlY": hex(pdl.y.compressed),
                "pdlD": try fixed(pdl.d, 256, field: "pdlD"), "pdlZ1": try fixed(pdl.z1, 97, field: "pdlZ1"),
                "pdlZ2": try fixed(pdl.z2, 256, field: "pdlZ2"),
                "pdlZ3": try fixed(pdl.z3, 353, field: "pdlZ3"),
                "modW": try fixed(m.proofMod.w, 256, field: "modW"), "modA": packed(m.proofMod.a),
                "modB": packed(m.proofMod.b),
                "facP": try fixed(fac.commitmentP, 256, field: "facP"),
                "facQ": try fixed(fac.commitmentQ, 256, field: "facQ"),
                "facA": try fixed(fac.commitmentA, 256, field: "facA"),
                "facB": try fixed(fac.commitmentB, 256, field: "facB"),
                "facT": try fixed(fac.commitmentT, 256, field: "facT"),
                "facSigma": try fixed(fac.sigma, NoSmallFactorProof.sigmaBytes, field: "facSigma"),
                "facZ1": try fixed(fac.z1, NoSmallFactorProof.zBytes, field: "facZ1"),
                "facZ2": try fixed(fac.z2, NoSmallFactorProof.zBytes, field: "facZ2"),
                "facW1": try fixed(fac.w1, NoSmallFactorProof.wBytes, field: "facW1"),
                "facW2": try fixed(fac.w2, NoSmallFactorProof.wBytes, field: "facW2"),
                "facV": try fixed(fac.v, NoSmallFactorProof.vBytes, field: "facV"),
            ],
            [
                "proofN": try m.proofN.roots.map { try fixed($0, 256, field: "proofN") },
                "modX": try m.proofMod.roots.map { try fixed($0, 256, field: "modX") },
            ]
        )
    }
    /// Every fixed-width field first, the round lists last: a list is refused on its count
    /// before any element is read, and a short input (a fuzzer's) still reaches every field.
    public static func decodeEnrollCompleteRequest(
        _ o: Object, _ l: Lists
    ) throws -> ThresholdMessage.EnrollCompleteRequest {
        let q1 = try point(o["q1"], field: "q1"), blind = try bytes(o["blind"], count: 32, field: "blind")
        let proofQ1 = try SchnorrProof(encoded: bytes(o["proofQ1"], count: 65, field: "proofQ1"))
        let n = try integer(o["n"], count: 256, field: "n"), ckey = try integer(o["ckey"], count: 512, field: "ckey")
        let pdl = PDLProof(
            s: try integer(o["pdlS"], count: 256, field: "pdlS"), a: try integer(o["pdlA"], count: 512, field: "pdlA"),
            y: try point(o["pdlY"], field: "pdlY"), d: try integer(o["pdlD"], count: 256, field: "pdlD"),
            z1: try integer(o["pdlZ1"], count: 97, field: "pdlZ1"),
            z2: try integer(o["pdlZ2"], count: 256, field: "pdlZ2"),
            z3: try integer(o["pdlZ3"], count: 353, field: "pdlZ3"))
        let fac = NoSmallFactorProof(
            commitmentP: try integer(o["facP"], count: 256, field: "facP"),
            commitmentQ: try integer(o["facQ"], count: 256, field: "facQ"),
            commitmentA: try integer(o["facA"], count: 256, field: "facA"),
            commitmentB: try integer(o["facB"], count: 256, field: "facB"),
            commitmentT: try integer(o["facT"], count: 256, field: "facT"),
            sigma: try integer(o["facSigma"], count: NoSmallFactorProof.sigmaBytes, field: "facSigma"),
            z1: try integer(o["facZ1"], count: NoSmallFactorProof.zBytes, field: "facZ1"),
            z2: try integer(o["facZ2"], count: NoSmallFactorProof.zBytes, field: "facZ2"),
            w1: try integer(o["facW1"], count: NoSmallFactorProof.wBytes, field: "facW1"),
            w2: try integer(o["facW2"], count: NoSmallFactorProof.wBytes, field: "facW2"),
            v: try integer(o["facV"], count: NoSmallFactorProof.vBytes, field: "facV"))
        let w = try integer(o["modW"], count: 256, field: "modW")
        let a = try bits(o["modA"], count: PaillierBlumProof.rounds, field: "modA"),
            b = try bits(o["modB"], count: PaillierBlumProof.rounds, field: "modB")
        let proofN = PaillierModulusProof(
            roots: try integers(l["proofN"], count: PaillierModulusProof.rounds, width: 256, field: "proofN"))
        let proofMod = PaillierBlumProof(
            w: w, roots: try integers(l["modX"], count: PaillierBlumProof.rounds, width: 256, field: "modX"), a: a, b: b
        )
        return .init(
            q1: q1, blind: blind, proofQ1: proofQ1, paillierN: n, ckey: ckey, proofN: proofN, proofMod: proofMod,
            proofFac: fac, proofPDL: pdl)
    }

    public static func encode(_ m: ThresholdMessage.EnrollCompleteResponse) -> Object {
        ["keyID": hex(m.keyID), "publicKey": hex(m.publicKey.compressed)]
    }
    public static func decodeEnrollCompleteResponse(_ o: Object) throws -> ThresholdMessage.EnrollCompleteResponse {
        .init(
            keyID: try bytes(o["keyID"], count: 32, field: "keyID"),
            publicKey: try point(o["publicKey"], field: "publicKey"))
    }

    // MARK: Signing

    public static func encode(_ m: ThresholdMessage.SignCommitRequest) -> Object {
        [
            "keyID": hex(m.keyID), "clientNonce": hex(m.clientNonce), "digest": hex(m.digest),
            "commitmentR1": hex(m.commitmentR1.value),
        ]
    }
    public static func decodeSignCommitRequest(_ o: Object) throws -> ThresholdMessage.SignCommitRequest {
        .init(
            keyID: try bytes(o["keyID"], count: 32, field: "keyID"),
            clientNonce: try bytes(o["clientNonce"], count: 32, field: "clientNonce"),
            digest: try bytes(o["digest"], count: 32, field: "digest"),
            commitmentR1: Commitment(value: try bytes(o["commitmentR1"], count: 32, field: "commitmentR1")))
    }

    public static func encode(_ m: ThresholdMessage.SignCommitResponse) -> Object {
        ["serverNonce": hex(m.serverNonce), "r2": hex(m.r2.compressed), "proofR2": hex(m.proofR2.encoded)]
    }
    public static func decodeSignCommitResponse(_ o: Object) throws -> ThresholdMessage.SignCommitResponse {
        .init(
            serverNonce: try bytes(o["serverNonce"], count: 32, field: "serverNonce"),
            r2: try point(o["r2"], field: "r2"),
            proofR2: try SchnorrProof(encoded: bytes(o["proofR2"], count: 65, field: "proofR2")))
    }

    public static func encode(_ m: ThresholdMessage.SignProveRequest) -> Object {
        ["r1": hex(m.r1.compressed), "blind": hex(m.blind), "proofR1": hex(m.proofR1.encoded)]
    }
    public static func decodeSignProveRequest(_ o: Object) throws -> ThresholdMessage.SignProveRequest {
        .init(
            r1: try point(o["r1"], field: "r1"), blind: try bytes(o["blind"], count: 32, field: "blind"),
            proofR1: try SchnorrProof(encoded: bytes(o["proofR1"], count: 65, field: "proofR1")))
    }

    public static func encode(_ m: ThresholdMessage.SignProveResponse) throws -> Object {
        ["c3": try fixed(m.c3, 512, field: "c3")]
    }
    public static func decodeSignProveResponse(_ o: Object) throws -> ThresholdMessage.SignProveResponse {
        .init(c3: try integer(o["c3"], count: 512, field: "c3"))
    }

    public static func encode(_ m: ThresholdMessage.SignFinishRequest) -> Object {
        guard let signature = m.signature, let r = signature.r.bytes(width: 32), let s = signature.s.bytes(width: 32)
        else { return ["status": "crypto_fail"] }
        return ["status": "ok", "r": hex(r), "s": hex(s)]
    }
    public static func decodeSignFinishRequest(_ o: Object) throws -> ThresholdMessage.SignFinishRequest {
        switch o["status"] {
        case "ok":
            return .init(
                signature: (
                    try Scalar.decode(bytes(o["r"], count: 32, field: "r")),
                    try Scalar.decode(bytes(o["s"], count: 32, field: "s"))
                ))
        case "crypto_fail": return .init(signature: nil)
        default: throw ThresholdError.unexpectedMessage("status must be ok or crypto_fail")
        }
    }
}
