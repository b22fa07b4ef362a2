/// VERIFY, CHANGE REFERENCE DATA and RESET RETRY COUNTER over a `CardState`, shared by the
/// applets; they differ only in the padding byte of the 12-byte PIN template (IDEMIA FF,
/// Thales 00) and in their PIN references.
final class PINCommands {
    let state: CardState
    let padding: UInt8
    /// The PUK's reference, for RESET RETRY COUNTER.
    let pukReference: UInt8
    /// References refused until changed once (Thales EstEID PIN2): VERIFY answers 6984.
    let mustBeChangedFirst: Set<UInt8>
    /// Verified references since power-on. PIN2's is consumed by one signature.
    private(set) var verified: Set<UInt8> = []

    init(state: CardState, padding: UInt8, pukReference: UInt8, mustBeChangedFirst: Set<UInt8> = []) {
        self.state = state
        self.padding = padding
        self.pukReference = pukReference
        self.mustBeChangedFirst = mustBeChangedFirst
    }

    func reset() { verified = [] }
    func consume(_ reference: UInt8) { verified.remove(reference) }
    func isVerified(_ reference: UInt8) -> Bool { verified.contains(reference) }

    /// The PIN text inside a 12-byte template (padding stripped), or nil when the template is
    /// malformed.
    private func unpad(_ template: ArraySlice<UInt8>) -> String? {
        let digits = template.prefix { $0 != padding }
        guard template.dropFirst(digits.count).allSatisfy({ $0 == padding }),
            digits.allSatisfy({ (0x30...0x39).contains($0) })
        else { return nil }
        return String(decoding: digits, as: UTF8.self)
    }

    /// VERIFY (INS 20). Without data: the retry counter as 63Cx (ISO 7816-4), 9000 if verified.
    func verify(reference: UInt8, data: [UInt8]) -> CardResponse {
        guard var record = state[reference] else { return .referenceNotFound }
        if data.isEmpty {
            if verified.contains(reference) { return .ok }
            return .status(0x63C0 | UInt16(record.triesLeft))
        }
        guard data.count == 12 else { return .wrongLength }
        guard !record.isBlocked else { return .blocked }
        guard let candidate = unpad(data[...]) else { return .wrongData }
        if mustBeChangedFirst.contains(reference) && !record.changed { return .referenceDataUnusable }
        if record.matches(candidate) {
            record.triesLeft = record.maximumTries
            state[reference] = record
            verified.insert(reference)
            return .ok
        }
        record.triesLeft -= 1
        state[reference] = record
        verified.remove(reference)
        return .status(0x63C0 | UInt16(record.triesLeft))
    }

    /// CHANGE REFERENCE DATA (INS 24, P1 00): old and new PIN, 12 bytes each.
    func change(reference: UInt8, data: [UInt8]) -> CardResponse {
        guard var record = state[reference] else { return .referenceNotFound }
        guard data.count == 24 else { return .wrongLength }
        guard !record.isBlocked else { return .blocked }
        guard let old = unpad(data[0..<12]), let new = unpad(data[12..<24]) else { return .wrongData }
        guard record.matches(old) else {
            record.triesLeft -= 1
            state[reference] = record
            return .status(0x63C0 | UInt16(record.triesLeft))
        }
        guard new.count >= record.minimumLength, new.count <= 12 else { return .wrongData }
        record.value = new
        record.triesLeft = record.maximumTries
        record.changed = true
        state[reference] = record
        return .ok
    }

    /// RESET RETRY COUNTER (INS 2C): P1 00 = PUK and new PIN in the data; P1 02 = new PIN only,
    /// after the PUK was verified in this session.
    func unblock(p1: UInt8, reference: UInt8, data: [UInt8]) -> CardResponse {
        guard var record = state[reference], var puk = state[pukReference] else { return .referenceNotFound }
        let newTemplate: ArraySlice<UInt8>
        switch p1 {
        case 0x00:
            guard data.count == 24 else { return .wrongLength }
            guard !puk.isBlocked else { return .blocked }
            guard let given = unpad(data[0..<12]) else { return .wrongData }
            guard puk.matches(given) else {
                puk.triesLeft -= 1
                state[pukReference] = puk
                return .status(0x63C0 | UInt16(puk.triesLeft))
            }
            puk.triesLeft = puk.maximumTries
            state[pukReference] = puk
            newTemplate = data[12..<24]
        case 0x02:
            guard verified.contains(pukReference) else { return .securityNotSatisfied }
            guard data.count == 12 else { return .wrongLength }
            newTemplate = data[...]
        default:
            return .wrongP1P2
        }
        guard let new = unpad(newTemplate), new.count >= record.minimumLength, new.count <= 12 else {
            return .wrongData
        }
        record.value = new
        record.triesLeft = record.maximumTries
        record.changed = true
        state[reference] = record
        return .ok
    }
}
