import PCSC

/// IDEMIA Cosmo 8 / X applets (docs/design/smartcard.md §1.3): certificates under the main AID, the signing
/// key 9F and PIN2 (ref 85) in the QSCD application, the authentication key 81 and PIN1 (ref 01)
/// in AWP, the PUK ref 02; PIN templates padded with FF; PSO:CDS takes the hash fitted to the
/// key's size; personal data in DF 5000.
struct IDEMIAProfile: CardProfile {
    /// Estonian ID card, 2018–2025.
    static let estEID = IDEMIAProfile(name: "EstEID IDEMIA", pin2Digits: 5...12)

    let name: String
    let pin2Digits: ClosedRange<Int>
    let readBlockLength = 0xC0

    private enum Command {
        static let selectMain = CommandAPDU.select(application: [
            0xA0, 0x00, 0x00, 0x00, 0x77, 0x01, 0x08, 0x00, 0x07,
            0x00, 0x00, 0xFE, 0x00, 0x00, 0x01, 0x00,
        ])
        static let selectQSCD = CommandAPDU.select(application: Array("QSCD Application".utf8))
        static let selectAWP = CommandAPDU.select(application: [
            0xE8, 0x28, 0xBD, 0x08, 0x0F, 0xF2, 0x50, 0x4F, 0x54, 0x20, 0x41, 0x57, 0x50,
        ])
        static let selectSigningCertificate = CommandAPDU.select(
            path: [0xAD, 0xF2, 0x34, 0x1F], fromCurrentFolder: true, fileControlParameters: true)
        static let selectAuthenticationCertificate = CommandAPDU.select(
            path: [0xAD, 0xF1, 0x34, 0x01], fromCurrentFolder: true, fileControlParameters: true)
        /// MSE:SET DST: algorithm 54 (ECDSA), key 9F.
        static let setSigningEnvironment = CommandAPDU(
            ins: 0x22, p1: 0x41, p2: 0xB6, data: [0x80, 0x01, 0x54, 0x84, 0x01, 0x9F])
        /// MSE:SET AT: algorithm 04, key 81.
        static let setAuthenticationEnvironment = CommandAPDU(
            ins: 0x22, p1: 0x41, p2: 0xA4, data: [0x80, 0x01, 0x04, 0x84, 0x01, 0x81])
        static let selectPersonalData = CommandAPDU.select(fileID: 0x5000, isFolder: true)
    }

    func pinFormat(_ kind: PINKind) -> PINFormat {
        switch kind {
        case .pin1: PINFormat(reference: 0x01, digits: 4...12, filler: 0xFF)
        case .pin2: PINFormat(reference: 0x85, digits: pin2Digits, filler: 0xFF)
        case .puk: PINFormat(reference: 0x02, digits: 8...12, filler: 0xFF)
        }
    }

    func selectCertificate(_ role: KeyRole) -> [CommandAPDU] {
        [
            Command.selectMain,
            role == .signing ? Command.selectSigningCertificate : Command.selectAuthenticationCertificate,
        ]
    }

    func selectApplication(for kind: PINKind) -> [CommandAPDU] {
        switch kind {
        case .pin1: [Command.selectMain, Command.selectAWP]
        case .pin2: [Command.selectMain, Command.selectQSCD]
        case .puk: [Command.selectMain]
        }
    }

    /// `00 CB 3F FF 0A 4D 08 70 06 BF 81 <ref & 0F> 02 A0 80 00`
    func readRetryCounter(_ kind: PINKind) -> CommandAPDU {
        let reference = pinFormat(kind).reference & 0x0F
        return CommandAPDU(
            ins: 0xCB, p1: 0x3F, p2: 0xFF, data: [0x4D, 0x08, 0x70, 0x06, 0xBF, 0x81, reference, 0x02, 0xA0, 0x80],
            le: 256)
    }

    /// `70 { BF81xx { A0 { 9A max, 9B left, … } } }`
    func parseRetryCounter(_ data: [UInt8]) -> RetryCounter? {
        guard let left = BERTLV.find(0x9B, in: data)?.first else { return nil }
        return RetryCounter(
            triesLeft: Int(left), maximumTries: BERTLV.find(0x9A, in: data)?.first.map(Int.init), isActive: true)
    }

    func signatureSteps(hash: [UInt8], role: KeyRole, keyLength: Int) -> SignatureSteps? {
        let fitted = fitHash(hash, to: keyLength)
        switch role {
        case .signing:
            return SignatureSteps(
                prepare: [Command.selectMain, Command.selectQSCD, Command.setSigningEnvironment],
                compute: [CommandAPDU(ins: 0x2A, p1: 0x9E, p2: 0x9A, data: fitted, le: 256)])
        case .authentication:
            return SignatureSteps(
                prepare: [Command.selectMain, Command.selectAWP, Command.setAuthenticationEnvironment],
                compute: [CommandAPDU(ins: 0x88, data: fitted, le: 256)])
        }
    }

    /// DF 5000, EFs 5001–5008 (the order RIA DigiDoc reads them in).
    var personalDataFields: [(name: String, select: [CommandAPDU])]? {
        let names = [
            "surname", "givenNames", "sex", "citizenship", "birth", "personalCode", "documentNumber", "expiry",
        ]
        return names.enumerated().map { index, name in
            (
                name,
                [
                    Command.selectMain, Command.selectPersonalData,
                    CommandAPDU.select(fileID: 0x5001 + UInt16(index), isFolder: false),
                ]
            )
        }
    }
}
