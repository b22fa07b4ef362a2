import Foundation
import TamgaCore

/// A key pair on the card: the private key (from a test fixture) and its certificate.
struct CardKey {
    let signer: SoftwareSigner
    let certificateDER: [UInt8]

    /// Loads `<folder>/<role>.key.pem` and `<folder>/<role>.cert.der`.
    init(folder: URL, role: String) throws {
        let keyFile = folder.appendingPathComponent("\(role).key.pem")
        let certificateFile = folder.appendingPathComponent("\(role).cert.der")
        let der = try Data(contentsOf: certificateFile)
        signer = try SoftwareSigner(key: Data(contentsOf: keyFile), certificate: Certificate(der: der))
        certificateDER = Array(der)
    }

    /// The size a hash is padded or truncated to for this key (the field size for EC).
    var hashLength: Int { signer.algorithm.curve?.fieldSize ?? 0 }

    func sign(_ value: [UInt8]) -> CardResponse {
        guard let signature = try? signer.signValueAsCard(Data(value)) else { return .status(0x6F00) }
        return CardResponse(Array(signature))
    }
}
