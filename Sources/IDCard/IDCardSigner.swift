import FoundationEssentials
import Glibc
import PCSC
import TamgaCore

/// Signs with the signing key of an ID card in a PC/SC reader. The certificate is read from the
/// card when the signer is opened; each signature connects, reads the PIN2 counter, asks the
/// PIN provider once (telling it the tries left) or lets the reader's PIN pad ask, and runs
/// MSE:SET, VERIFY and PSO in one transaction. The signature is returned as the card gave it
/// (raw r‖s of the right width); `Container` checks every signature value against the
/// certificate before writing, which is where a card swapped in between is caught. (Checking
/// here as well would verify twice: 1 ms per P-384 signature, most of the stack's time.)
/// One signature at a time per signer: the card does one operation at a time anyway.
public final class IDCardSigner: UnlockTimingSigner {
    public let readerName: String
    public let cardName: String
    public let algorithm: SignatureAlgorithm
    /// The signing key (PIN2, the default) or the authentication key (PIN1).
    public let key: KeyRole
    private let profile: CardProfile
    private let signingCertificate: Certificate
    private let pinProvider: PINProvider
    public let unlockClock = UnlockClock()
    private let channelFactory: @Sendable (String) throws -> CardChannel
    /// Whether the reader has a PIN pad, asked once: a reader's features do not change.
    private let readerHasPINPad: Bool

    /// Opens the card in `reader` (or the only supported card present) and reads its signing
    /// certificate. `digest` is the hash signed (SHA-256 by default, as the DigiDoc clients do;
    /// the card fits it to its key).
    public convenience init(
        reader: String? = nil, key: KeyRole = .signing, pinProvider: PINProvider, digest: DigestAlgorithm = .sha256
    ) throws {
        let context = try Self.context()
        let candidate = try IDCardReaders.choose(reader, context: context)
        // One PC/SC context for the signer's lifetime (pcscd round trips per signature are the
        // stack's overhead); connections are opened per operation and used by one task at a time.
        try self.init(candidate: candidate, key: key, pinProvider: pinProvider, digest: digest) { name in
            try CardConnection(context: context, reader: name)
        }
    }

    /// With a channel factory (tests wrap the real connection to add a PIN pad).
    public init(
        candidate: IDCardReaders.Candidate, key: KeyRole = .signing, pinProvider: PINProvider,
        digest: DigestAlgorithm = .sha256,
        channelFactory: @escaping @Sendable (String) throws -> CardChannel
    ) throws {
        self.key = key
        readerName = candidate.reader.name
        cardName = candidate.cardName
        profile = candidate.profile
        self.pinProvider = pinProvider
        self.channelFactory = channelFactory
        let session = IDCardSession(
            channel: try Self.mapping { try channelFactory(candidate.reader.name) }, profile: profile)
        signingCertificate = try session.readCertificate(key)
        readerHasPINPad = session.hasPINPad
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
        // Unlock: the retry counter and the PIN (the VERIFY APDU goes with the signature).
        let pin: SecretBytes? = try await unlockClock.measure {
            let counter = try session.retryCounter(key.pin)
            if counter.isBlocked { throw CardError.pinBlocked(key.pin) }
            if !counter.isActive { throw CardError.pinNotActivated(key.pin) }
            guard !readerHasPINPad else { return nil }
            return try await pinProvider.pin(
                for: PINRequest(
                    kind: key.pin, purpose: key == .signing ? "sign" : "authenticate",
                    cardName: cardName, readerName: readerName,
                    triesLeft: counter.triesLeft, digits: profile.pinFormat(key.pin).digits,
                    signerName: signingCertificate.commonName ?? signingCertificate.subject))
        }
        // init allows EC keys only
        guard let curve = algorithm.curve else { throw CardError.unsupportedCard(reader: readerName, atr: "") }
        let raw = try session.sign(hash: Array(digest.bytes), role: key, keyLength: curve.fieldSize, pin: pin)
        guard raw.count == 2 * curve.fieldSize else {
            throw CardError.malformedResponse(command: "PSO:CDS (\(raw.count) bytes)")
        }
        return Data(raw)
    }
}
