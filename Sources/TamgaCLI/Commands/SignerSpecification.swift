import FoundationEssentials
import Glibc
import IDCard
import PKCS11
import RemoteSigning
import TamgaCore
import Threshold

/// The `--with` argument of `sign`: which signer to use. `key:FILE` and `card[:READER]` exist
/// in this version; tokens and the threshold key plug in here as their modules arrive.
enum SignerSpecification: Equatable {
    case keyFile(path: String)
    case card(reader: String?)
    /// `pkcs11[:TOKEN-LABEL][:KEY-ID]` (the key ID in hex, as `tamga tokens` shows it).
    case pkcs11(label: String?, keyID: [UInt8]?)
    /// `threshold[:ACCOUNT]`: the split key enrolled on this device under ACCOUNT (without one,
    /// the only account with a sign key).
    case threshold(account: String?)
    /// `smart-id:COUNTRY:ID`: Smart-ID, the person by country and identity code.
    case smartID(country: String, identity: String)
    /// `mobile-id:PHONE:ID`: Mobile-ID, the phone number (+372…) and national identity number.
    case mobileID(phone: String, identity: String)

    init(_ text: String) throws {
        if text.hasPrefix("key:"), text.count > 4 {
            self = .keyFile(path: String(text.dropFirst(4)))
        } else if text == "card" {
            self = .card(reader: nil)
        } else if text.hasPrefix("card:"), text.count > 5 {
            self = .card(reader: String(text.dropFirst(5)))
        } else if text.hasPrefix("smart-id:") || text.hasPrefix("mobile-id:") {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, !parts[1].isEmpty, !parts[2].isEmpty else {
                throw UsageError(
                    "--with takes smart-id:COUNTRY:IDENTITY-CODE or mobile-id:PHONE:IDENTITY-CODE; got \"\(text)\"")
            }
            self =
                parts[0] == "smart-id"
                ? .smartID(country: parts[1], identity: parts[2]) : .mobileID(phone: parts[1], identity: parts[2])
        } else if text == "threshold" {
            self = .threshold(account: nil)
        } else if text.hasPrefix("threshold:"), text.count > 10 {
            self = .threshold(account: String(text.dropFirst(10)))
        } else if text == "pkcs11" || text.hasPrefix("pkcs11:") {
            // The label may itself contain colons; the key ID, if any, is the last part and hex.
            var parts = text.split(separator: ":", omittingEmptySubsequences: false).dropFirst().map(String.init)
            var keyID: [UInt8]? = nil
            if parts.count >= 2, let last = parts.last, let bytes = Self.hexBytes(last) {
                keyID = bytes
                parts.removeLast()
            }
            let label = parts.joined(separator: ":")
            self = .pkcs11(label: label.isEmpty ? nil : label, keyID: keyID)
        } else {
            throw UsageError(
                "--with takes key:FILE (a PEM/PKCS#8 key with --cert, or a .p12 file), card[:READER], pkcs11[:LABEL][:KEY-ID], threshold[:ACCOUNT], smart-id:COUNTRY:ID or mobile-id:PHONE:ID; got \"\(text)\""
            )
        }
    }

    /// Builds the signer, asking for the key's password only if the file is protected. A card
    /// signer asks for PIN2 later, when it signs, after the card said how many tries are left.
    static func hexBytes(_ text: String) -> [UInt8]? {
        guard !text.isEmpty else { return nil }
        return Hex.bytes(text)
    }

    func makeSigner(
        certificatePath: String?, secrets: SecretInput, pss: Bool, terminal: Terminal, module: String? = nil,
        remote: RemoteOptions? = nil
    ) async throws -> any Signer {
        // The four digits go to the terminal before the phone is asked, whatever --quiet says.
        let show: @Sendable (String) -> Void = { code in
            terminal.error("Verification code: \(code). Check that the phone shows the same code before confirming.")
        }
        switch self {
        case .mobileID(let phone, let identity):
            guard let remote else { throw UsageError("mobile-id needs the service options") }
            return try await MobileIDSigner.connect(
                phoneNumber: phone, nationalIdentityNumber: identity,
                configuration: remote.configuration(
                    "mobileID", name: "Mobile-ID", environment: secrets.environment,
                    warn: { terminal.error("warning: " + TerminalText.escaped($0)) }),
                showVerificationCode: show)
        case .smartID(let country, let identity):
            guard let remote else { throw UsageError("smart-id needs the service options") }
            return try await SmartIDSigner.connect(
                country: country, identityCode: identity,
                configuration: remote.configuration(
                    "smartID", name: "Smart-ID", environment: secrets.environment,
                    warn: { terminal.error("warning: " + TerminalText.escaped($0)) }),
                prompt: { terminal.error($0) }, showVerificationCode: show)
        case .threshold(let named):
            let account: String
            if let named {
                account = named
            } else {
                let accounts = ThresholdAccountFolder.accounts(role: .sign, environment: secrets.environment)
                switch accounts.count {
                case 0: throw ThresholdError.notEnrolled
                case 1: account = accounts[0]
                default:
                    guard
                        let chosen = try secrets.choose(
                            "Several split-key accounts are enrolled. Which one signs?", from: accounts)
                    else {
                        throw UsageError(
                            "several split-key accounts are enrolled (\(accounts.joined(separator: ", "))): name one with --with threshold:ACCOUNT"
                        )
                    }
                    account = chosen
                }
            }
            let store = try ThresholdAccountFolder.existing(
                account: account, store: nil, environment: secrets.environment)
            // A signature the co-signer never confirmed is still good for this device's own
            // signing: said on standard error (escaped: the reason may quote the network).
            return try ThresholdSigner(
                account: account, store: store, pinProvider: ThresholdPINPrompt(secrets: secrets),
                warning: { terminal.error(TerminalText.escaped($0)) })
        case .pkcs11(let label, let keyID):
            let token = try PKCS11Tokens.choose(label: label, in: PKCS11Tokens.modules(path: module))
            return try PKCS11Signer(
                token: token, keyID: keyID, pinProvider: TokenPINPrompt(secrets: secrets, terminal: terminal), pss: pss)
        case .card(let reader):
            let prompt = CardPINPrompt(secrets: secrets, terminal: terminal)
            do {
                return try IDCardSigner(reader: reader, pinProvider: prompt)
            } catch CardError.severalCards(let readers) where reader == nil {
                // On a terminal, ask which card (the DigiDoc clients show a list); else say how to choose.
                guard let chosen = try secrets.choose("Several ID cards are present. Which one signs?", from: readers)
                else {
                    throw CardError.severalCards(readers: readers)
                }
                return try IDCardSigner(reader: chosen, pinProvider: prompt)
            }
        case .keyFile(let path):
            guard let bytes = FileManager.default.contents(atPath: path) else {
                throw CoreError.unreadableFile(path: path, reason: "no such file or not readable")
            }
            let algorithmOverride: (PublicKey) -> SignatureAlgorithm? = { key in
                guard pss, case .rsa = key.type else { return nil }
                return .rsaPSSSHA256
            }
            if SoftwareSigner.isPKCS12(bytes) {
                // A --cert beside a PKCS#12 must be readable (checked before the password is asked)
                // and must be the PKCS#12's own certificate: never sign with another one silently.
                let given = try certificatePath.map {
                    try Self.loadCertificate(certificatePath: $0, keyBytes: Data(), keyPath: path)
                }
                // A PKCS#12 without a password is rare; ask straight away rather than guess.
                let password = try secrets.read(prompt: "Password for \(path): ")
                let probe = try SoftwareSigner(pkcs12: bytes, password: password)
                if let given, given != probe.signingCertificate { throw CoreError.keyCertificateMismatch }
                guard let override = algorithmOverride(probe.signingCertificate.publicKey) else { return probe }
                return try SoftwareSigner(pkcs12: bytes, password: password, algorithm: override)
            }
            let certificate = try Self.loadCertificate(certificatePath: certificatePath, keyBytes: bytes, keyPath: path)
            do {
                return try SoftwareSigner(
                    key: bytes, certificate: certificate, algorithm: algorithmOverride(certificate.publicKey))
            } catch CoreError.passwordRequired {
                // The first attempt had no password at all; this is the single real attempt.
                let password = try secrets.read(prompt: "Password for \(path): ")
                return try SoftwareSigner(
                    key: bytes, certificate: certificate, password: password,
                    algorithm: algorithmOverride(certificate.publicKey))
            }
        }
    }

    private static func loadCertificate(certificatePath: String?, keyBytes: Data, keyPath: String) throws -> Certificate
    {
        if let certificatePath {
            guard let data = FileManager.default.contents(atPath: certificatePath) else {
                throw CoreError.unreadableFile(path: certificatePath, reason: "no such file or not readable")
            }
            return try Certificate(derOrPEM: data)
        }
        if let embedded = try Certificate.parseAll(pem: keyBytes).first { return embedded }
        throw UsageError("\(keyPath) holds no certificate: give it with --cert CERT.pem")
    }
}
