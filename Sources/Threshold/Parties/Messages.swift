/// The protocol's messages as plain values (the co-signer module puts them on the wire). Names
/// follow `docs/design/threshold-ecdsa.md` §1.2–1.3: enrollment `init`/`complete`, signing
/// `commit`/`prove`/`finish`.
public enum ThresholdMessage {
    public struct EnrollInitRequest: Sendable {
        public let clientPID: [UInt8]
        public let clientNonce: [UInt8]
        public let commitmentQ1: Commitment

        public init(clientPID: [UInt8], clientNonce: [UInt8], commitmentQ1: Commitment) {
            self.clientPID = clientPID
            self.clientNonce = clientNonce
            self.commitmentQ1 = commitmentQ1
        }
    }

    public struct EnrollInitResponse: Sendable {
        public let serverPID: [UInt8]
        public let serverNonce: [UInt8]
        public let q2: Point
        public let proofQ2: SchnorrProof
        public let ringPedersen: RingPedersenParameters
        public let ringPedersenProof: RingPedersenProof

        public init(
            serverPID: [UInt8], serverNonce: [UInt8], q2: Point, proofQ2: SchnorrProof,
            ringPedersen: RingPedersenParameters, ringPedersenProof: RingPedersenProof
        ) {
            self.serverPID = serverPID
            self.serverNonce = serverNonce
            self.q2 = q2
            self.proofQ2 = proofQ2
            self.ringPedersen = ringPedersen
            self.ringPedersenProof = ringPedersenProof
        }
    }

    public struct EnrollCompleteRequest: Sendable {
        public let q1: Point
        public let blind: [UInt8]
        public let proofQ1: SchnorrProof
        public let paillierN: BigInt
        public let ckey: BigInt
        public let proofN: PaillierModulusProof
        /// Π^mod: N is a product of two primes ≡ 3 (mod 4).
        public let proofMod: PaillierBlumProof
        /// Π^fac: neither prime is below 2^255 (under the server's ring-Pedersen parameters).
        public let proofFac: NoSmallFactorProof
        public let proofPDL: PDLProof

        public init(
            q1: Point, blind: [UInt8], proofQ1: SchnorrProof, paillierN: BigInt, ckey: BigInt,
            proofN: PaillierModulusProof,
            proofMod: PaillierBlumProof, proofFac: NoSmallFactorProof, proofPDL: PDLProof
        ) {
            self.q1 = q1
            self.blind = blind
            self.proofQ1 = proofQ1
            self.paillierN = paillierN
            self.ckey = ckey
            self.proofN = proofN
            self.proofMod = proofMod
            self.proofFac = proofFac
            self.proofPDL = proofPDL
        }
    }

    public struct EnrollCompleteResponse: Sendable {
        public let keyID: [UInt8]
        public let publicKey: Point

        public init(keyID: [UInt8], publicKey: Point) {
            self.keyID = keyID
            self.publicKey = publicKey
        }
    }

    public struct SignCommitRequest: Sendable {
        public let keyID: [UInt8]
        public let clientNonce: [UInt8]
        /// The 32-byte digest to sign (the server derives it itself in the service and compares).
        public let digest: [UInt8]
        public let commitmentR1: Commitment

        public init(keyID: [UInt8], clientNonce: [UInt8], digest: [UInt8], commitmentR1: Commitment) {
            self.keyID = keyID
            self.clientNonce = clientNonce
            self.digest = digest
            self.commitmentR1 = commitmentR1
        }
    }

    public struct SignCommitResponse: Sendable {
        public let serverNonce: [UInt8]
        public let r2: Point
        public let proofR2: SchnorrProof

        public init(serverNonce: [UInt8], r2: Point, proofR2: SchnorrProof) {
            self.serverNonce = serverNonce
            self.r2 = r2
            self.proofR2 = proofR2
        }
    }

    public struct SignProveRequest: Sendable {
        public let r1: Point
        public let blind: [UInt8]
        public let proofR1: SchnorrProof

        public init(r1: Point, blind: [UInt8], proofR1: SchnorrProof) {
            self.r1 = r1
            self.blind = blind
            self.proofR1 = proofR1
        }
    }

    public struct SignProveResponse: Sendable {
        public let c3: BigInt

        public init(c3: BigInt) {
            self.c3 = c3
        }
    }

    public struct SignFinishRequest: Sendable {
        /// nil when the client reports a cryptographic failure.
        public let signature: (r: BigInt, s: BigInt)?

        public init(signature: (r: BigInt, s: BigInt)?) {
            self.signature = signature
        }
    }
}
