import FoundationEssentials
import Glibc
import PCSC
import TamgaCore
import TamgaSupport

/// Runs a profile's commands on one card: every operation inside one PC/SC transaction, every
/// status word checked, PINs checked for length before anything is sent, PIN bytes wiped after
/// use. Never retries a PIN. Not thread-safe: one task uses a session at a time.
final class IDCardSession {
    let channel: CardChannel
    let profile: CardProfile

    init(channel: CardChannel, profile: CardProfile) {
        self.channel = channel
        self.profile = profile
    }

    /// Runs `body` in a transaction, turning PC/SC failures into card errors.
    private func transaction<T>(_ body: () throws -> T) throws -> T {
        do {
            return try channel.withTransaction(body)
        } catch let error as PCSCError {
            throw CardError.from(error)
        }
    }

    private static func name(of command: CommandAPDU) -> String {
        switch command.ins {
        case 0xA4: "SELECT"
        case 0xB0: "READ BINARY"
        case 0xCB: "GET DATA"
        case 0x22: "MSE:SET"
        case 0x2A: command.p1 == 0x90 ? "PSO:HASH" : "PSO:CDS"
        case 0x88: "INTERNAL AUTHENTICATE"
        default: "INS " + NumberText.hex(command.ins)
        }
    }

    /// Sends `command` and returns its data; anything but 9000 stops the operation.
    @discardableResult
    private func run(_ command: CommandAPDU) throws -> [UInt8] {
        let response = try channel.transmit(command)
        guard response.status.isSuccess else {
            if response.status == StatusWord(0x69, 0x82) && (command.ins == 0x2A || command.ins == 0x88) {
                // Security status not satisfied: the PIN's verification did not hold.
                throw CardError.unexpectedStatus(
                    response.status, command: Self.name(of: command) + " (PIN not verified)")
            }
            throw CardError.unexpectedStatus(response.status, command: Self.name(of: command))
        }
        return response.data
    }

    // MARK: Certificates and data

    func readCertificate(_ role: KeyRole) throws -> Certificate {
        let der = try transaction { () throws -> [UInt8] in
            for command in profile.selectCertificate(role) { try run(command) }
            return try readDERFile()
        }
        do {
            return try Certificate(der: Data(der))
        } catch {
            throw CardError.malformedResponse(command: "READ BINARY (certificate)")
        }
    }

    /// Reads the selected EF in blocks until its DER object is complete: the DER header says how
    /// long it is, which works whatever block size the card returns (Thales gives 0xB5).
    private func readDERFile() throws -> [UInt8] {
        var bytes = try run(.readBinary(offset: 0, length: profile.readBlockLength))
        guard bytes.count >= 4, bytes[0] == 0x30 else { throw CardError.malformedResponse(command: "READ BINARY") }
        let total: Int
        switch bytes[1] {
        case 0x82: total = 4 + (Int(bytes[2]) << 8 | Int(bytes[3]))
        case 0x81: total = 3 + Int(bytes[2])
        case let short where short < 0x80: total = 2 + Int(short)
        default: throw CardError.malformedResponse(command: "READ BINARY")
        }
        guard total <= 0x7FFF else { throw CardError.malformedResponse(command: "READ BINARY") }
        while bytes.count < total {
            let block = try run(
                .readBinary(offset: bytes.count, length: min(profile.readBlockLength, total - bytes.count)))
            guard !block.isEmpty else { throw CardError.malformedResponse(command: "READ BINARY") }
            bytes += block
        }
        return Array(bytes.prefix(total))
    }

    func retryCounter(_ kind: PINKind) throws -> RetryCounter {
        try transaction {
            for command in profile.selectApplication(for: kind) { try run(command) }
            let data = try run(profile.readRetryCounter(kind))
            guard let counter = profile.parseRetryCounter(data) else {
                throw CardError.malformedResponse(command: "GET DATA (retry counter)")
            }
            return counter
        }
    }

    /// Reads the personal data file, when the card has one: field name → text.
    func personalData() throws -> [String: String]? {
        guard let fields = profile.personalDataFields else { return nil }
        return try transaction {
            var result: [String: String] = [:]
            for field in fields {
                for command in field.select { try run(command) }
                let bytes = try run(.readBinary(offset: 0, length: 256))
                result[field.name] = String(decoding: bytes, as: UTF8.self).trimmed()
            }
            return result
        }
    }

    // MARK: PINs

    /// VERIFY with a PIN from the host, or on the reader's PIN pad when `pin` is nil.
    private func verify(_ kind: PINKind, pin: SecretBytes?) throws {
        let format = profile.pinFormat(kind)
        let status: StatusWord
        if let pin {
            var apdu = try pin.withUnsafeBytes { raw -> [UInt8] in
                guard let template = format.template(for: Array(raw)) else {
                    throw CardError.pinLength(kind, allowed: format.digits)
                }
                return [0x00, 0x20, 0x00, format.reference, UInt8(template.count)] + template
            }
            status = try channel.transmitWiping(&apdu).status
        } else {
            guard let code = channel.readerFeatures()[PINPadVerification.verifyPINDirect] else {
                throw CardError.cancelled
            }
            let answer = try channel.control(code, PINPadVerification.structure(format: format))
            guard answer.count == 2 else { throw CardError.malformedResponse(command: "VERIFY (PIN pad)") }
            status = StatusWord(answer[0], answer[1])
        }
        if let error = CardError.afterPINCommand(status, kind: kind, command: "VERIFY") {
            if case .pinLength = error { throw CardError.pinLength(kind, allowed: format.digits) }
            throw error
        }
    }

    /// True when the reader has its own PIN pad (FEATURE_VERIFY_PIN_DIRECT).
    var hasPINPad: Bool { channel.readerFeatures()[PINPadVerification.verifyPINDirect] != nil }

    /// Selection and MSE:SET, VERIFY, then the signature: all in one transaction so no other
    /// program can come between the PIN and the signature. `pin` nil means the PIN pad.
    func sign(hash: [UInt8], role: KeyRole, keyLength: Int, pin: SecretBytes?) throws -> [UInt8] {
        guard let steps = profile.signatureSteps(hash: hash, role: role, keyLength: keyLength) else {
            throw CardError.unexpectedStatus(
                StatusWord(0x6A, 0x80), command: "PSO (a \(hash.count)-byte hash is not supported by \(profile.name))")
        }
        return try transaction {
            for command in steps.prepare { try run(command) }
            try verify(role.pin, pin: pin)
            var result: [UInt8] = []
            for command in steps.compute { result = try run(command) }
            return result
        }
    }

    /// CHANGE REFERENCE DATA `00 24 00 <ref> 18 <current 12> <new 12>`.
    func changePIN(_ kind: PINKind, current: SecretBytes, new: SecretBytes) throws {
        let format = profile.pinFormat(kind)
        try transaction {
            for command in profile.selectApplication(for: kind) { try run(command) }
            var apdu = try current.withUnsafeBytes { old in
                try new.withUnsafeBytes { fresh -> [UInt8] in
                    guard let oldTemplate = format.template(for: Array(old)) else {
                        throw CardError.pinLength(kind, allowed: format.digits)
                    }
                    guard let newTemplate = format.template(for: Array(fresh)) else {
                        throw CardError.newPINRejected(kind)
                    }
                    return [0x00, 0x24, 0x00, format.reference, 24] + oldTemplate + newTemplate
                }
            }
            let status = try channel.transmitWiping(&apdu).status
            if let error = CardError.afterPINCommand(status, kind: kind, command: "CHANGE REFERENCE DATA") {
                throw error
            }
        }
    }

    /// VERIFY PUK, then RESET RETRY COUNTER `00 2C 02 <ref> 0C <new PIN>` (the IDEMIA form,
    /// docs/design/smartcard.md §1.5), which also sets the new PIN.
    func unblockPIN(_ kind: PINKind, puk: SecretBytes, new: SecretBytes) throws {
        let format = profile.pinFormat(kind)
        try transaction {
            for command in profile.selectApplication(for: .puk) { try run(command) }
            try verify(.puk, pin: puk)
            var apdu = try new.withUnsafeBytes { fresh -> [UInt8] in
                guard let template = format.template(for: Array(fresh)) else { throw CardError.newPINRejected(kind) }
                return [0x00, 0x2C, 0x02, format.reference, UInt8(template.count)] + template
            }
            let status = try channel.transmitWiping(&apdu).status
            if let error = CardError.afterPINCommand(status, kind: kind, command: "RESET RETRY COUNTER") { throw error }
        }
    }
}
