import Foundation
import PCSC
import TamgaCore

/// Signs with the signing key of an ID card in a PC/SC reader. The certificate is read from the
/// card when the signer is opened; each signature connects, reads the PIN2 counter, asks the
/// PIN provider once (telling it the tries left) or lets the reader's PIN pad ask, and runs
/// MSE:SET, VERIFY and PSO in one transaction. The signature is checked against the card's
/// certificate before it is returned, so a card swapped in between is caught.
public final class IDCardSigner: Signer {
    public let readerName: String
    public let cardName: String
    public let algorithm: SignatureAlgorithm
    private let profile: CardProfile
    private let signingCertificate: Certificate
    private let pinProvider: PINProvider
    private let channelFactory: @Sendable (String) throws -> CardChannel

    /// Opens the card in `reader` (or the only supported card present) and reads its signing
    /// certificate. `digest` is the hash signed (SHA-256 by default, as the DigiDoc clients do;
    /// the card fits it to its key).
    public convenience init(reader: String? = nil, pinProvider: PINProvider, digest: DigestAlgorithm = .sha256) throws {
        let context = try Self.context()
        let candidate = try IDCardReaders.choose(reader, context: context)
        try self.init(candidate: candidate, pinProvider: pinProvider, digest: digest) { name in
            try CardConnection(context: Self.context(), reader: name)
        }
    }

    /// With a channel factory (tests wrap the real connection to add a PIN pad).
    public init(candidate: IDCardReaders.Candidate, pinProvider: PINProvider, digest: DigestAlgorithm = .sha256,
                channelFactory: @escaping @Sendable (String) throws -> CardChannel) throws {
        readerName = candidate.reader.name
        cardName = candidate.cardName
        profile = candidate.profile
        self.pinProvider = pinProvider
        self.channelFactory = channelFactory
        let session = IDCardSession(channel: try Self.mapping { try channelFactory(candidate.reader.name) }, profile: profile)
        signingCertificate = try session.readCertificate(.signing)
        guard case .ec(let curve) = signingCertificate.publicKey.type else {
            throw CardError.unsupportedCard(reader: readerName, atr: candidate.reader.atrHex)
        }
        algorithm = .ecdsa(curve, digest)
    }

    static func context() throws -> PCSCContext {
        try mapping { try PCSCContext() }
    }

    static func mapping<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as PCSCError { throw CardError.from(error) }
    }

    public func certificate() async throws -> Certificate { signingCertificate }

    public func sign(digest: Digest) async throws -> Data {
        guard digest.algorithm == algorithm.digest else {
            throw CoreError.digestAlgorithmMismatch(expected: algorithm.digest, actual: digest.algorithm)
        }
        let session = IDCardSession(channel: try Self.mapping { try channelFactory(readerName) }, profile: profile)
        let counter = try session.retryCounter(.pin2)
        if counter.isBlocked { throw CardError.pinBlocked(.pin2) }
        if !counter.isActive { throw CardError.pinNotActivated(.pin2) }
        var pin: SecretBytes? = nil
        if !session.hasPINPad {
            pin = try await pinProvider.pin(for: PINRequest(kind: .pin2, purpose: "sign", cardName: cardName, readerName: readerName,
                                                            triesLeft: counter.triesLeft, digits: profile.pinFormat(.pin2).digits,
                                                            signerName: signingCertificate.commonName ?? signingCertificate.subject))
        }
        guard let curve = algorithm.curve else { throw CardError.signatureCheckFailed }
        let raw = try session.sign(hash: Array(digest.bytes), role: .signing, keyLength: curve.fieldSize, pin: pin)
        let signature = Data(raw)
        guard signature.count == 2 * curve.fieldSize,
              signingCertificate.publicKey.verify(signature: signature, digest: digest, algorithm: algorithm) else {
            throw CardError.signatureCheckFailed
        }
        return signature
    }
}
