internal import COpenSSL

/// Ring-Pedersen parameters `(Ñ, s, t)` (CGGMP21 §3.3): `Ñ = p̃·q̃` with safe primes, `t = r²`,
/// `s = t^λ mod Ñ`. The **verifier** of the enrollment range proof (the co-signer) generates
/// them and proves with Π^prm that `s ∈ ⟨t⟩`; the client checks that proof once and pins the
/// parameters' hash. A prover who knew Ñ's factors could forge the range proof (TSSHOCK c-split).
public struct RingPedersenParameters: Sendable, Equatable {
    public static let modulusBits = 2048
    public let n: BigInt
    public let s: BigInt
    public let t: BigInt

    public init(n: BigInt, s: BigInt, t: BigInt) {
        self.n = n
        self.s = s
        self.t = t
    }

    /// The parameters' fingerprint, for pinning.
    public var fingerprint: [UInt8] {
        Transcript.taggedHash(
            "L17v1/ring-pedersen",
            [n.bytes(width: 256) ?? n.bytes, s.bytes(width: 256) ?? s.bytes, t.bytes(width: 256) ?? t.bytes])
    }

    /// Form checks before Π^prm: size, odd, not a square, s and t units other than 1.
    public func validate() throws {
        guard n.bitWidth == Self.modulusBits, n.isOdd, !n.isPerfectSquare() else {
            throw ThresholdError.proofRejected("Ñ has the wrong form")
        }
        for (name, value) in [("s", s), ("t", t)] {
            guard !value.isZero, value < n, value != .one, value.gcd(n) == .one else {
                throw ThresholdError.proofRejected("\(name) is not a unit of Z_Ñ")
            }
        }
    }
}

/// The verifier's secret side of the ring-Pedersen parameters.
public struct RingPedersenSecret: Sendable {
    public let parameters: RingPedersenParameters
    let phi: BigInt
    let lambda: BigInt
    let p: BigInt
    let q: BigInt

    /// Fresh parameters from two 1024-bit safe primes (OpenSSL's sieved safe-prime generator:
    /// a random number of candidates each, seconds to tens of seconds in all). `progress`, if
    /// given, hears of every candidate OpenSSL tries and of every safe prime found, so whoever
    /// waits can be shown that something is happening.
    public static func generate(
        random: RandomSource, progress: ((SafePrimeProgress) -> Void)? = nil
    ) throws -> RingPedersenSecret {
        let p = try safePrime(
            bits: 1024, progress: progress.map { report in { report(.candidate(prime: 1, tried: $0)) } })
        progress?(.found(prime: 1))
        var q = try safePrime(
            bits: 1024, progress: progress.map { report in { report(.candidate(prime: 2, tried: $0)) } })
        while q == p { q = try safePrime(bits: 1024) }
        progress?(.found(prime: 2))
        return try RingPedersenSecret(p: p, q: q, random: random)
    }

    /// What `generate` reports: prime 1 or 2 of the two it needs.
    public enum SafePrimeProgress: Sendable, Equatable {
        /// OpenSSL tried its `tried`-th candidate for this prime.
        case candidate(prime: Int, tried: Int)
        case found(prime: Int)
    }

    public init(p: BigInt, q: BigInt, random: RandomSource) throws {
        let n = p * q
        guard n.bitWidth == RingPedersenParameters.modulusBits else {
            throw ThresholdError.proofRejected("Ñ has \(n.bitWidth) bits")
        }
        phi = (p - 1) * (q - 1)
        var r: BigInt
        repeat { r = try random.nonZeroInteger(below: n, label: "ring-pedersen.r") } while r.gcd(n) != .one
        let t = (r * r).modulo(n)
        lambda = try random.integer(below: phi, label: "ring-pedersen.lambda")
        let s = t.power(lambda, modulo: n, exponentIsSecret: true)
        parameters = RingPedersenParameters(n: n, s: s, t: t)
        self.p = p
        self.q = q
    }

    /// Parameters stored earlier (the co-signer keeps them across restarts: clients pin them).
    public init(p: BigInt, q: BigInt, t: BigInt, lambda: BigInt) throws {
        let n = p * q
        guard n.bitWidth == RingPedersenParameters.modulusBits else {
            throw ThresholdError.proofRejected("Ñ has \(n.bitWidth) bits")
        }
        phi = (p - 1) * (q - 1)
        self.lambda = lambda
        parameters = RingPedersenParameters(n: n, s: t.power(lambda, modulo: n, exponentIsSecret: true), t: t)
        self.p = p
        self.q = q
    }

    /// What to store to rebuild the same parameters: `p̃ ‖ q̃ ‖ t ‖ λ`, 128 + 128 + 256 + 256 bytes.
    public var storageBytes: [UInt8] {
        (p.bytes(width: 128) ?? []) + (q.bytes(width: 128) ?? []) + (parameters.t.bytes(width: 256) ?? [])
            + (lambda.bytes(width: 256) ?? [])
    }

    public init(storageBytes bytes: [UInt8]) throws {
        guard bytes.count == 768 else {
            throw ThresholdError.keyStore("stored ring-Pedersen parameters have \(bytes.count) bytes")
        }
        try self.init(
            p: BigInt(bytes: bytes[0..<128]), q: BigInt(bytes: bytes[128..<256]), t: BigInt(bytes: bytes[256..<512]),
            lambda: BigInt(bytes: bytes[512..<768]))
    }

    static func safePrime(bits: Int32, progress: ((Int) -> Void)? = nil) throws -> BigInt {
        guard let bn = BN_new() else { throw ThresholdError.randomnessFailed }
        defer { BN_clear_free(bn) }
        // OpenSSL's BN_GENCB calls back with (0, i) after its i-th candidate; the box carries the
        // Swift closure through the C callback's one pointer argument.
        final class Box {
            let report: (Int) -> Void
            init(_ report: @escaping (Int) -> Void) { self.report = report }
        }
        var callback: OpaquePointer?
        var box: Unmanaged<Box>?
        if let progress, let gencb = BN_GENCB_new() {
            let retained = Unmanaged.passRetained(Box(progress))
            BN_GENCB_set(
                gencb,
                { stage, index, gencb in
                    if stage == 0, let gencb, let argument = BN_GENCB_get_arg(gencb) {
                        Unmanaged<Box>.fromOpaque(argument).takeUnretainedValue().report(Int(index) + 1)
                    }
                    return 1
                }, retained.toOpaque())
            callback = gencb
            box = retained
        }
        defer {
            if let callback { BN_GENCB_free(callback) }
            box?.release()
        }
        guard BN_generate_prime_ex(bn, bits, 1, nil, nil, callback) == 1 else { throw ThresholdError.randomnessFailed }
        var bytes = [UInt8](repeating: 0, count: Int(bits + 7) / 8)
        guard BN_bn2binpad(bn, &bytes, Int32(bytes.count)) == Int32(bytes.count) else {
            throw ThresholdError.randomnessFailed
        }
        return BigInt(bytes: bytes)
    }
}

/// Π^prm (CGGMP21 Fig. 17): knowledge of λ with `s = t^λ mod Ñ`, 128 binary challenges. Each
/// round is special-sound with challenge space {0, 1}, so a prover without λ passes one round
/// with probability 1/2: 128 rounds give 2^-128, the suite's bound, where the paper's 80 gave
/// 2^-80 — and non-interactively a forger can grind the hash offline, so 2^-80 is an 80-bit
/// work factor.
public struct RingPedersenProof: Sendable, Equatable {
    public static let rounds = 128
    public let commitments: [BigInt]  // A_i = t^a_i
    public let responses: [BigInt]  // z_i = a_i + e_i·λ mod φ(Ñ)

    static func challengeBits(_ parameters: RingPedersenParameters, commitments: [BigInt], pid: [UInt8]) -> [Bool] {
        let items = [pid, parameters.n.bytes, parameters.s.bytes, parameters.t.bytes] + commitments.map(\.bytes)
        let bytes = Transcript.expandMessageXMD(
            Transcript.lengthPrefixed(items), domain: Array("L17v1/ring-pedersen/prm".utf8), length: (rounds + 7) / 8)
        return (0..<rounds).map { bytes[$0 / 8] >> (7 - UInt8($0 % 8)) & 1 == 1 }
    }

    public static func prove(
        _ secret: RingPedersenSecret, pid: [UInt8], random: RandomSource
    ) throws -> RingPedersenProof {
        let parameters = secret.parameters
        let masks = try (0..<rounds).map { _ in try random.integer(below: secret.phi, label: "ring-pedersen.prm.a") }
        let commitments = masks.map { parameters.t.power($0, modulo: parameters.n, exponentIsSecret: true) }
        let bits = challengeBits(parameters, commitments: commitments, pid: pid)
        let responses = zip(masks, bits).map { mask, bit in bit ? (mask + secret.lambda).modulo(secret.phi) : mask }
        return RingPedersenProof(commitments: commitments, responses: responses)
    }

    public init(commitments: [BigInt], responses: [BigInt]) {
        self.commitments = commitments
        self.responses = responses
    }

    public func verify(_ parameters: RingPedersenParameters, pid: [UInt8]) throws {
        try parameters.validate()
        guard commitments.count == Self.rounds, responses.count == Self.rounds else {
            throw ThresholdError.proofRejected("Π^prm needs \(Self.rounds) rounds")
        }
        let bits = Self.challengeBits(parameters, commitments: commitments, pid: pid)
        for index in 0..<Self.rounds {
            let a = commitments[index], z = responses[index]
            guard !a.isZero, a < parameters.n, !z.isNegative, z < parameters.n else {
                throw ThresholdError.proofRejected("Π^prm round \(index) out of range")
            }
            let left = parameters.t.power(z, modulo: parameters.n, exponentIsSecret: false)
            let right = bits[index] ? (a * parameters.s).modulo(parameters.n) : a
            guard left == right else { throw ThresholdError.proofRejected("Π^prm round \(index) fails") }
        }
    }
}
