/// The EstEID IDEMIA (Cosmo 8 / X) applets as `docs/design/smartcard.md` §1.3 records them: the main AID
/// with the certificate files, the QSCD application (PIN2, signing key 9F, PSO:CDS) and the AWP
/// application (PIN1, authentication key 81, INTERNAL AUTHENTICATE), and the personal data file
/// 5000 with EFs 5001–5008. PIN template padded with FF; PIN1 ref 01, PIN2 ref 85, PUK ref 02;
/// GET DATA for the counters uses `ref & 0x0F`.
final class IDEMIAApplet: Applet {
    static let mainAID: [UInt8] = [
        0xA0, 0x00, 0x00, 0x00, 0x77, 0x01, 0x08, 0x00, 0x07, 0x00, 0x00, 0xFE, 0x00, 0x00, 0x01, 0x00,
    ]
    static let qscdAID: [UInt8] = Array("QSCD Application".utf8)
    static let awpAID: [UInt8] = [0xE8, 0x28, 0xBD, 0x08, 0x0F, 0xF2, 0x50, 0x4F, 0x54, 0x20, 0x41, 0x57, 0x50]
    static let pin1: UInt8 = 0x01, pin2: UInt8 = 0x85, puk: UInt8 = 0x02
    static let signingKeyReference: UInt8 = 0x9F, authenticationKeyReference: UInt8 = 0x81

    enum Application { case none, main, qscd, awp }

    private let files = CardFileSystem()
    private let pins: PINCommands
    private let signingKey: CardKey
    private let authenticationKey: CardKey
    private var application = Application.none
    /// The key chosen by MSE:SET (reference), nil until set.
    private var securityEnvironmentKey: UInt8?

    init(signingKey: CardKey, authenticationKey: CardKey, holder: CardHolder, state: CardState) {
        self.signingKey = signingKey
        self.authenticationKey = authenticationKey
        pins = PINCommands(state: state, padding: 0xFF, pukReference: Self.puk)
        files.addFile([0xADF1, 0x3401], authenticationKey.certificateDER)
        files.addFile([0xADF2, 0x341F], signingKey.certificateDER)
        for (index, field) in holder.idemiaPersonalData.enumerated() {
            files.addFile([0x5000, 0x5001 + UInt16(index)], Array(field.utf8))
        }
    }

    static func defaultPINs() -> [UInt8: PINRecord] {
        [
            pin1: PINRecord(value: "1234", maximumTries: 3, triesLeft: 3, minimumLength: 4, changed: true),
            pin2: PINRecord(value: "12345", maximumTries: 3, triesLeft: 3, minimumLength: 5, changed: true),
            puk: PINRecord(value: "17258403", maximumTries: 3, triesLeft: 3, minimumLength: 8, changed: true),
        ]
    }

    func reset() {
        files.reset()
        pins.reset()
        application = .none
        securityEnvironmentKey = nil
    }

    func answer(_ apdu: VirtualAPDU) -> CardResponse {
        guard apdu.cla == 0x00 else { return .unknownClass }
        switch apdu.ins {
        case 0xA4: return select(apdu)
        case 0xB0:
            return files.read(offset: Int(apdu.p1 & 0x7F) << 8 | Int(apdu.p2), length: apdu.le ?? 256, limit: 256)
        case 0xCB: return retryCounter(apdu)
        case 0x22: return manageSecurityEnvironment(apdu)
        case 0x20: return pins.verify(reference: apdu.p2, data: apdu.data)
        case 0x24:
            guard apdu.p1 == 0x00 else { return .wrongP1P2 }
            return pins.change(reference: apdu.p2, data: apdu.data)
        case 0x2C: return pins.unblock(p1: apdu.p1, reference: apdu.p2, data: apdu.data)
        case 0x2A where apdu.p1p2 == 0x9E9A: return computeDigitalSignature(apdu)
        case 0x2A: return .wrongP1P2
        case 0x88: return internalAuthenticate(apdu)
        default: return .unknownInstruction
        }
    }

    private func select(_ apdu: VirtualAPDU) -> CardResponse {
        if apdu.p1 == 0x04 {
            switch apdu.data {
            case Self.mainAID: application = .main
            case Self.qscdAID: application = .qscd
            case Self.awpAID: application = .awp
            default: return .notFound
            }
            files.reset()
            securityEnvironmentKey = nil
            return .ok
        }
        do {
            let size = try files.select(p1: apdu.p1, data: apdu.data)
            return apdu.p2 & 0x0C == 0x0C ? .ok : CardResponse(fileControlParameters(size: size))
        } catch {
            return error.response
        }
    }

    /// `00 CB 3F FF 0A 4D 08 70 06 BF 81 <ref> 02 A0 80 00`
    private func retryCounter(_ apdu: VirtualAPDU) -> CardResponse {
        let d = apdu.data
        guard apdu.p1p2 == 0x3FFF, d.count == 10, d[0] == 0x4D, d[2] == 0x70, d[4] == 0xBF, d[5] == 0x81 else {
            return .wrongData
        }
        let reference = d[6] & 0x0F
        guard let full = [Self.pin1, Self.pin2, Self.puk].first(where: { $0 & 0x0F == reference }),
            let record = pins.state[full]
        else {
            return .referenceNotFound
        }
        let inner: [UInt8] =
            [
                0x9A, 0x01, UInt8(record.maximumTries), 0x9B, 0x01, UInt8(record.triesLeft),
                0xA1, 0x10,
            ] + [UInt8](repeating: 0, count: 16)
        let a0: [UInt8] = [0xA0, UInt8(inner.count)] + inner
        let bf: [UInt8] = [0xBF, 0x81, reference, UInt8(a0.count)] + a0
        return CardResponse([0x70, UInt8(bf.count)] + bf)
    }

    /// MSE:SET: `00 22 41 B6|A4 <len> 80 <algo…> 84 01 <key>`. The signing key only in the QSCD
    /// application, the authentication key only in AWP.
    private func manageSecurityEnvironment(_ apdu: VirtualAPDU) -> CardResponse {
        guard apdu.p1 == 0x41, apdu.p2 == 0xB6 || apdu.p2 == 0xA4 else { return .wrongP1P2 }
        guard let key = simpleTLV(apdu.data)[0x84], key.count == 1 else { return .wrongData }
        switch (apdu.p2, key[0], application) {
        case (0xB6, Self.signingKeyReference, .qscd), (0xA4, Self.authenticationKeyReference, .awp):
            securityEnvironmentKey = key[0]
            return .ok
        default:
            return .referenceNotFound
        }
    }

    /// PSO:CDS: `00 2A 9E 9A 30 <48-byte hash> 00` after PIN2, which one signature consumes.
    private func computeDigitalSignature(_ apdu: VirtualAPDU) -> CardResponse {
        guard application == .qscd else { return .conditionsNotSatisfied }
        guard pins.isVerified(Self.pin2) else { return .securityNotSatisfied }
        guard apdu.data.count == signingKey.hashLength else { return .wrongLength }
        // The card signs with key 9F whether or not MSE:SET came first (iOS sends it after VERIFY).
        pins.consume(Self.pin2)
        return signingKey.sign(apdu.data)
    }

    /// INTERNAL AUTHENTICATE: `00 88 00 00 30 <hash> 00` after PIN1 and MSE:SET AT.
    private func internalAuthenticate(_ apdu: VirtualAPDU) -> CardResponse {
        guard application == .awp, securityEnvironmentKey == Self.authenticationKeyReference else {
            return .conditionsNotSatisfied
        }
        guard pins.isVerified(Self.pin1) else { return .securityNotSatisfied }
        guard apdu.data.count == authenticationKey.hashLength else { return .wrongLength }
        return authenticationKey.sign(apdu.data)
    }
}

/// Single-byte-tag TLVs (as in MSE:SET data), last value wins.
func simpleTLV(_ bytes: [UInt8]) -> [UInt8: [UInt8]] {
    var result: [UInt8: [UInt8]] = [:]
    var index = 0
    while index + 1 < bytes.count {
        let tag = bytes[index], length = Int(bytes[index + 1])
        guard index + 2 + length <= bytes.count else { break }
        result[tag] = Array(bytes[(index + 2)..<(index + 2 + length)])
        index += 2 + length
    }
    return result
}
