/// The protocol's messages as plain values (the co-signer issue puts them on the wire). Names
/// follow `threshold-ecdsa.md` §1.2–1.3: enrollment `init`/`complete`, signing
/// `commit`/`prove`/`finish`.
public enum ThresholdMessage {
    public struct EnrollInitRequest: Sendable {
        public let clientPID: [UInt8]
        public let clientNonce: [UInt8]
        public let commitmentQ1: Commitment
    }

    public struct EnrollInitResponse: Sendable {
        public let serverPID: [UInt8]
        public let serverNonce: [UInt8]
        public let q2: Point
        public let proofQ2: SchnorrProof
        public let ringPedersen: RingPedersenParameters
        public let ringPedersenProof: RingPedersenProof
    }

    public struct EnrollCompleteRequest: Sendable {
        public let q1: Point
        public let blind: [UInt8]
        public let proofQ1: SchnorrProof
        public let paillierN: BigInt
        public let ckey: BigInt
        public let proofN: PaillierModulusProof
        public let proofPDL: PDLProof
    }

    public struct EnrollCompleteResponse: Sendable {
        public let keyID: [UInt8]
        public let publicKey: Point
    }

    public struct SignCommitRequest: Sendable {
        public let keyID: [UInt8]
        public let clientNonce: [UInt8]
        /// The 32-byte digest to sign (the server derives it itself in the service and compares).
        public let digest: [UInt8]
        public let commitmentR1: Commitment
    }

    public struct SignCommitResponse: Sendable {
        public let serverNonce: [UInt8]
        public let r2: Point
        public let proofR2: SchnorrProof
    }

    public struct SignProveRequest: Sendable {
        public let r1: Point
        public let blind: [UInt8]
        public let proofR1: SchnorrProof
    }

    public struct SignProveResponse: Sendable {
        public let c3: BigInt
    }

    public struct SignFinishRequest: Sendable {
        /// nil when the client reports a cryptographic failure.
        public let signature: (r: BigInt, s: BigInt)?
    }
}
