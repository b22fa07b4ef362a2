import PCSC

/// The Thales applet (docs/design/smartcard.md §1.4): one PKCS#15 AID, certificates by path from the MF,
/// PIN templates padded with 00, MSE:SET naming the hash size, PSO:HASH then PSO:CDS.
/// The authentication certificate paths are not in the recorded traces; these are the ones
/// tamga's virtual card uses (EstEID `ADF1 3411`, FinEID `5016 4331`).
struct ThalesProfile: CardProfile {
    /// Estonian ID card, 2025–.
    static let estEID = ThalesProfile(
        name: "EstEID Thales", signingCertificatePath: [0xAD, 0xF2, 0x34, 0x21],
        authenticationCertificatePath: [0xAD, 0xF1, 0x34, 0x11], pin1Reference: 0x81,
        pin2Digits: 5...12, signingKey: 0x05)
    /// Finnish ID card v4.
    static let finEID = ThalesProfile(
        name: "FinEID", signingCertificatePath: [0x50, 0x16, 0x43, 0x32],
        authenticationCertificatePath: [0x50, 0x16, 0x43, 0x31], pin1Reference: 0x11,
        pin2Digits: 6...12, signingKey: 0x02)

    let name: String
    let signingCertificatePath: [UInt8]
    let authenticationCertificatePath: [UInt8]
    let pin1Reference: UInt8
    let pin2Digits: ClosedRange<Int>
    let signingKey: UInt8
    let authenticationKey: UInt8 = 0x01
    /// Le 00: the card returns what it has (0xB5 bytes per block on real cards).
    let readBlockLength = 256

    private static let selectApplet = CommandAPDU.select(application: [
        0xA0, 0x00, 0x00, 0x00, 0x63, 0x50, 0x4B, 0x43, 0x53, 0x2D, 0x31, 0x35,
    ])

    func pinFormat(_ kind: PINKind) -> PINFormat {
        switch kind {
        case .pin1: PINFormat(reference: pin1Reference, digits: 4...12, filler: 0x00)
        case .pin2: PINFormat(reference: 0x82, digits: pin2Digits, filler: 0x00)
        case .puk: PINFormat(reference: 0x83, digits: 8...12, filler: 0x00)
        }
    }

    func selectCertificate(_ role: KeyRole) -> [CommandAPDU] {
        [
            Self.selectApplet,
            .select(
                path: role == .signing ? signingCertificatePath : authenticationCertificatePath,
                fromCurrentFolder: false, fileControlParameters: true),
        ]
    }

    func selectApplication(for kind: PINKind) -> [CommandAPDU] { [Self.selectApplet] }

    /// `00 CB 00 FF 05 A0 03 83 01 <ref> 00`
    func readRetryCounter(_ kind: PINKind) -> CommandAPDU {
        CommandAPDU(ins: 0xCB, p1: 0x00, p2: 0xFF, data: [0xA0, 0x03, 0x83, 0x01, pinFormat(kind).reference], le: 256)
    }

    /// `A0 { 83 ref, …, DF21 left, …, DF2F changed }`: DF2F = 0 means the PIN was never changed.
    func parseRetryCounter(_ data: [UInt8]) -> RetryCounter? {
        guard let left = BERTLV.find(0xDF21, in: data)?.first else { return nil }
        let changed = BERTLV.find(0xDF2F, in: data)?.first.map { $0 != 0 } ?? true
        return RetryCounter(triesLeft: Int(left), maximumTries: nil, isActive: changed)
    }

    func signatureSteps(hash: [UInt8], role: KeyRole, keyLength: Int) -> SignatureSteps? {
        switch role {
        case .signing:
            let hashBits: UInt8
            switch hash.count {
            case 28: hashBits = 0x30
            case 32: hashBits = 0x40
            case 48: hashBits = 0x50
            case 64: hashBits = 0x60
            default: return nil
            }
            let environment = CommandAPDU(
                ins: 0x22, p1: 0x41, p2: 0xB6, data: [0x80, 0x01, 0x04 | hashBits, 0x84, 0x01, signingKey])
            let hashData = CommandAPDU(ins: 0x2A, p1: 0x90, p2: 0xA0, data: [0x90, UInt8(hash.count)] + hash)
            return SignatureSteps(
                prepare: [Self.selectApplet, environment],
                compute: [hashData, CommandAPDU(ins: 0x2A, p1: 0x9E, p2: 0x9A, le: 256)])
        case .authentication:
            let environment = CommandAPDU(
                ins: 0x22, p1: 0x41, p2: 0xA4, data: [0x80, 0x01, 0x04, 0x84, 0x01, authenticationKey])
            return SignatureSteps(
                prepare: [Self.selectApplet, environment],
                compute: [CommandAPDU(ins: 0x88, data: hash, le: 256)])
        }
    }

    let personalDataFields: [(name: String, select: [CommandAPDU])]? = nil
}
