import Foundation
import TamgaCore

/// The `--with` argument of `sign`: which signer to use. Only `key:FILE` exists in this
/// version; cards, tokens and the threshold key plug in here as their modules arrive.
enum SignerSpecification: Equatable {
    case keyFile(path: String)

    init(_ text: String) throws {
        if text.hasPrefix("key:"), text.count > 4 {
            self = .keyFile(path: String(text.dropFirst(4)))
        } else {
            throw UsageError("--with takes key:FILE (a PEM/PKCS#8 key with --cert, or a .p12 file); got \"\(text)\"")
        }
    }

    /// Builds the signer, asking for the key's password only if the file is protected.
    func makeSigner(certificatePath: String?, secrets: SecretInput, pss: Bool) throws -> any Signer {
        switch self {
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

