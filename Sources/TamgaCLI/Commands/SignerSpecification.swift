import Foundation
import IDCard
import TamgaCore

/// The `--with` argument of `sign`: which signer to use. `key:FILE` and `card[:READER]` exist
/// in this version; tokens and the threshold key plug in here as their modules arrive.
enum SignerSpecification: Equatable {
    case keyFile(path: String)
    case card(reader: String?)

    init(_ text: String) throws {
        if text.hasPrefix("key:"), text.count > 4 {
            self = .keyFile(path: String(text.dropFirst(4)))
        } else if text == "card" {
            self = .card(reader: nil)
        } else if text.hasPrefix("card:"), text.count > 5 {
            self = .card(reader: String(text.dropFirst(5)))
        } else {
            throw UsageError("--with takes key:FILE (a PEM/PKCS#8 key with --cert, or a .p12 file) or card[:READER]; got \"\(text)\"")
        }
    }

    /// Builds the signer, asking for the key's password only if the file is protected. A card
    /// signer asks for PIN2 later, when it signs, after the card said how many tries are left.
    func makeSigner(certificatePath: String?, secrets: SecretInput, pss: Bool, terminal: Terminal) throws -> any Signer {
        switch self {
        case .card(let reader):
            let prompt = CardPINPrompt(secrets: secrets, terminal: terminal)
            do {
                return try IDCardSigner(reader: reader, pinProvider: prompt)
            } catch CardError.severalCards(let readers) where reader == nil {
                // On a terminal, ask which card (the DigiDoc clients show a list); else say how to choose.
                guard let chosen = try secrets.choose("Several ID cards are present. Which one signs?", from: readers) else {
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
                // A PKCS#12 without a password is rare; ask straight away rather than guess.
                let password = try secrets.read(prompt: "Password for \(path): ")
                let probe = try SoftwareSigner(pkcs12: bytes, password: password)
                guard let override = algorithmOverride(probe.signingCertificate.publicKey) else { return probe }
                return try SoftwareSigner(pkcs12: bytes, password: password, algorithm: override)
            }
            let certificate = try Self.loadCertificate(certificatePath: certificatePath, keyBytes: bytes, keyPath: path)
            do {
                return try SoftwareSigner(key: bytes, certificate: certificate, algorithm: algorithmOverride(certificate.publicKey))
            } catch CoreError.passwordRequired {
                // The first attempt had no password at all; this is the single real attempt.
                let password = try secrets.read(prompt: "Password for \(path): ")
                return try SoftwareSigner(key: bytes, certificate: certificate, password: password,
                                          algorithm: algorithmOverride(certificate.publicKey))
            }
        }
    }

    private static func loadCertificate(certificatePath: String?, keyBytes: Data, keyPath: String) throws -> Certificate {
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

