import PCSC

/// Which key on the card.
public enum KeyRole: String, Sendable, Hashable, CaseIterable {
    case signing, authentication

    var pin: PINKind { self == .signing ? .pin2 : .pin1 }
}

/// The commands of one signature or authentication: `prepare` selects the application and sets
/// the security environment, then the PIN is verified, then `compute` runs; the last command of
/// `compute` returns the raw signature.
struct SignatureSteps {
    let prepare: [CommandAPDU]
    let compute: [CommandAPDU]
}

/// A card family's APDU table and parameters. Profiles are data: `IDCardSession` runs the steps,
/// the transactions and the PINs, so a profile cannot forget any of them.
protocol CardProfile: Sendable {
    /// The card's name as `CardRegistry` recognises it (`EstEID IDEMIA`).
    var name: String { get }
    func pinFormat(_ kind: PINKind) -> PINFormat
    /// Selects the EF holding the certificate for `role` (the certificate's DER length tells how
    /// much to read).
    func selectCertificate(_ role: KeyRole) -> [CommandAPDU]
    /// Le for each READ BINARY.
    var readBlockLength: Int { get }
    /// Selects the application in which `kind` is verified and its counter read.
    func selectApplication(for kind: PINKind) -> [CommandAPDU]
    func readRetryCounter(_ kind: PINKind) -> CommandAPDU
    func parseRetryCounter(_ data: [UInt8]) -> RetryCounter?
    /// The steps to sign `hash` with the key for `role`, whose field size is `keyLength` bytes.
    func signatureSteps(hash: [UInt8], role: KeyRole, keyLength: Int) -> SignatureSteps?
    /// Where the holder's personal data lives, when the card has such a file: field name → the
    /// commands that select it. Nil when the card keeps it only in the certificate.
    var personalDataFields: [(name: String, select: [CommandAPDU])]? { get }
}

/// The profile for a card `CardRegistry` recognised by name, nil for cards not signed over APDUs.
func cardProfile(named name: String) -> CardProfile? {
    switch name {
    case IDEMIAProfile.estEID.name: IDEMIAProfile.estEID
    case ThalesProfile.estEID.name: ThalesProfile.estEID
    case ThalesProfile.finEID.name: ThalesProfile.finEID
    default: nil
    }
}

/// A hash sized for an EC key of `length` bytes: left-padded with zeros when shorter, its
/// leftmost bytes when longer (FIPS 186-5 §6.4, as the IDEMIA applet expects).
func fitHash(_ hash: [UInt8], to length: Int) -> [UInt8] {
    hash.count >= length ? Array(hash.prefix(length)) : [UInt8](repeating: 0, count: length - hash.count) + hash
}
