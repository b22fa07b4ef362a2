/// The Thales applet (EstEID 2025– and FinEID) as `docs/design/smartcard.md` §1.4 records it: the PKCS#15
/// AID, certificates selected by path from the MF and read in blocks of at most 0xB5 bytes,
/// retry counters through `00 CB 00 FF 05 A0 03 83 01 <ref>`, VERIFY with a 00-padded template,
/// MSE:SET with the hash size in the algorithm byte, PSO:HASH then PSO:CDS.
///
/// Where this emulator departs from the recorded cards, it says so: the authentication
/// certificate EF (EstEID `ADF1 3411`, as libelectronic-id has it; FinEID `5016 4331`), the
/// counter reply laid out as well-formed BER-TLV (`A0 { 83 ref, 8C, 9C, DF21 left, A5 { DF27,
/// DF28, DF2F changed } }`), and authentication as MSE:SET AT + INTERNAL AUTHENTICATE where the
/// recorded FinEID card uses MSE:SET DST + PSO:HASH + PSO:CDS (docs/design/smartcard.md §1.4, §6).
final class ThalesApplet: Applet {
    static let aid: [UInt8] = [0xA0, 0x00, 0x00, 0x00, 0x63, 0x50, 0x4B, 0x43, 0x53, 0x2D, 0x31, 0x35]

    struct Layout {
        let signingCertificatePath: [UInt16]
        let authenticationCertificatePath: [UInt16]
        let pin1: UInt8, pin2: UInt8, puk: UInt8
        let signingKeyReference: UInt8, authenticationKeyReference: UInt8
        let maximumTries: Int
        let pin2MinimumLength: Int
        /// EstEID Thales: PIN2 is unusable until the holder has changed it once.
        let pin2MustBeChanged: Bool

        static let estEID = Layout(
            signingCertificatePath: [0xADF2, 0x3421], authenticationCertificatePath: [0xADF1, 0x3411],
            pin1: 0x81, pin2: 0x82, puk: 0x83, signingKeyReference: 0x05, authenticationKeyReference: 0x01,
            maximumTries: 3, pin2MinimumLength: 5, pin2MustBeChanged: true)
        static let finEID = Layout(
            signingCertificatePath: [0x5016, 0x4332], authenticationCertificatePath: [0x5016, 0x4331],
            pin1: 0x11, pin2: 0x82, puk: 0x83, signingKeyReference: 0x02, authenticationKeyReference: 0x01,
            maximumTries: 5, pin2MinimumLength: 6, pin2MustBeChanged: false)

        /// PIN2 starts as changed unless `pin2Inactive` models a card fresh from issuance.
        func defaultPINs(pin2Inactive: Bool) -> [UInt8: PINRecord] {
            [
                pin1: PINRecord(
                    value: "1234", maximumTries: maximumTries, triesLeft: maximumTries, minimumLength: 4, changed: true),
                pin2: PINRecord(
                    value: pin2MinimumLength > 5 ? "123456" : "12345", maximumTries: maximumTries,
                    triesLeft: maximumTries,
                    minimumLength: pin2MinimumLength, changed: !pin2Inactive),
                puk: PINRecord(
                    value: "17258403", maximumTries: maximumTries, triesLeft: maximumTries, minimumLength: 8,
                    changed: true),
            ]
        }
    }

    private let layout: Layout
    private let files = CardFileSystem()
    private let pins: PINCommands
    private let signingKey: CardKey
    private let authenticationKey: CardKey
    private var selected = false
    private var securityEnvironment: (key: UInt8, hashLength: Int?)?
    private var hash: [UInt8]?

    init(layout: Layout, signingKey: CardKey, authenticationKey: CardKey, state: CardState) {
        self.layout = layout
        self.signingKey = signingKey
        self.authenticationKey = authenticationKey
        pins = PINCommands(
            state: state, padding: 0x00, pukReference: layout.puk,
            mustBeChangedFirst: layout.pin2MustBeChanged ? [layout.pin2] : [])
        files.addFile(layout.signingCertificatePath, signingKey.certificateDER)
        files.addFile(layout.authenticationCertificatePath, authenticationKey.certificateDER)
    }

    func reset() {
        files.reset()
        pins.reset()
        selected = false
        securityEnvironment = nil
        hash = nil
    }

    func answer(_ apdu: VirtualAPDU) -> CardResponse {
        guard apdu.cla == 0x00 else { return .unknownClass }
        if apdu.ins == 0xA4 && apdu.p1 == 0x04 {
            guard apdu.data == Self.aid else { return .notFound }
            selected = true
            files.reset()
            return .ok
        }
        guard selected else { return .conditionsNotSatisfied }
        switch apdu.ins {
        case 0xA4:
            do {
                let size = try files.select(p1: apdu.p1, data: apdu.data)
                return apdu.p2 & 0x0C == 0x0C ? .ok : CardResponse(fileControlParameters(size: size))
            } catch {
                return error.response
            }
        case 0xB0:
            return files.read(offset: Int(apdu.p1 & 0x7F) << 8 | Int(apdu.p2), length: apdu.le ?? 256, limit: 0xB5)
        case 0xCB: return retryCounter(apdu)
        case 0x20: return pins.verify(reference: apdu.p2, data: apdu.data)
        case 0x24:
            guard apdu.p1 == 0x00 else { return .wrongP1P2 }
            return pins.change(reference: apdu.p2, data: apdu.data)
        case 0x2C: return pins.unblock(p1: apdu.p1, reference: apdu.p2, data: apdu.data)
        case 0x22: return manageSecurityEnvironment(apdu)
        case 0x2A where apdu.p1p2 == 0x90A0: return hashData(apdu)
        case 0x2A where apdu.p1p2 == 0x9E9A: return computeDigitalSignature()
        case 0x2A: return .wrongP1P2
        case 0x88: return internalAuthenticate(apdu)
        default: return .unknownInstruction
        }
    }

    private func retryCounter(_ apdu: VirtualAPDU) -> CardResponse {
        let d = apdu.data
        guard apdu.p1p2 == 0x00FF, d.count == 5, d[0] == 0xA0, d[2] == 0x83, d[3] == 0x01 else { return .wrongData }
        guard let record = pins.state[d[4]] else { return .referenceNotFound }
        let a5: [UInt8] = [
            0xDF, 0x27, 0x02, 0xFF, 0xFF, 0xDF, 0x28, 0x01, 0x0C, 0xDF, 0x2F, 0x01, record.changed ? 1 : 0,
        ]
        let inner: [UInt8] =
            [
                0x83, 0x01, d[4], 0x8C, 0x04, 0xF0, 0, 0, 0, 0x9C, 0x04, 0xF0, 0, 0, 0,
                0xDF, 0x21, 0x01, UInt8(record.triesLeft), 0xA5, UInt8(a5.count),
            ] + a5
        return CardResponse([0xA0, UInt8(inner.count)] + inner)
    }

    /// `00 22 41 B6|A4 06 80 01 <algo> 84 01 <key>`; algo = 04 | hash bits (30/40/50/60 →
    /// SHA-224/256/384/512), or 04 alone for authentication.
    private func manageSecurityEnvironment(_ apdu: VirtualAPDU) -> CardResponse {
        guard apdu.p1 == 0x41, apdu.p2 == 0xB6 || apdu.p2 == 0xA4 else { return .wrongP1P2 }
        let tlv = simpleTLV(apdu.data)
        guard let key = tlv[0x84], key.count == 1, let algorithm = tlv[0x80], algorithm.count == 1 else {
            return .wrongData
        }
        let expectedKey = apdu.p2 == 0xB6 ? layout.signingKeyReference : layout.authenticationKeyReference
        guard key[0] == expectedKey else { return .referenceNotFound }
        guard algorithm[0] & 0x0F == 0x04 else { return .wrongData }
        let hashLength: Int? =
            switch algorithm[0] & 0xF0 {
            case 0x30: 28
            case 0x40: 32
            case 0x50: 48
            case 0x60: 64
            case 0x00: nil
            default: -1
            }
        guard hashLength != -1 else { return .wrongData }
        securityEnvironment = (key[0], hashLength)
        hash = nil
        return .ok
    }

    /// PSO:HASH `00 2A 90 A0 <2+n> 90 <n> <hash>`: the host-computed hash, its length as MSE:SET said.
    private func hashData(_ apdu: VirtualAPDU) -> CardResponse {
        guard let environment = securityEnvironment, environment.key == layout.signingKeyReference else {
            return .conditionsNotSatisfied
        }
        guard let value = simpleTLV(apdu.data)[0x90], value.count == environment.hashLength else { return .wrongData }
        hash = value
        return .ok
    }

    /// PSO:CDS `00 2A 9E 9A 00` over the hash PSO:HASH gave, after PIN2 (consumed).
    private func computeDigitalSignature() -> CardResponse {
        guard let hash else { return .conditionsNotSatisfied }
        guard pins.isVerified(layout.pin2) else { return .securityNotSatisfied }
        pins.consume(layout.pin2)
        self.hash = nil
        return signingKey.sign(hash)
    }

    private func internalAuthenticate(_ apdu: VirtualAPDU) -> CardResponse {
        guard let environment = securityEnvironment, environment.key == layout.authenticationKeyReference else {
            return .conditionsNotSatisfied
        }
        guard pins.isVerified(layout.pin1) else { return .securityNotSatisfied }
        guard !apdu.data.isEmpty, apdu.data.count <= 64 else { return .wrongLength }
        return authenticationKey.sign(apdu.data)
    }
}
