import Foundation
import IDCard
import PCSC
import TamgaTestSupport

/// A real connection to the virtual card through pcscd that removes the card (kills its
/// tamga-vcard, as pulling it out of the reader) right after the first PIN command, so the next
/// APDU meets a card that is gone: the one exact moment no real part can be asked for.
final class CardRemovedAfterVERIFY: CardChannel {
    private let connection: CardConnection
    private let removeCard: () -> Void
    private(set) var removed = false

    init(_ connection: CardConnection, removeCard: @escaping () -> Void) {
        self.connection = connection
        self.removeCard = removeCard
    }

    var readerName: String { connection.readerName }
    func withTransaction<T>(_ body: () throws -> T) throws -> T { try connection.withTransaction(body) }
    func transmit(_ command: CommandAPDU) throws -> ResponseAPDU { try connection.transmit(command) }
    func transmitWiping(_ command: inout [UInt8]) throws -> ResponseAPDU {
        let response = try connection.transmitWiping(&command)
        if !removed {
            removed = true
            removeCard()
            usleep(1_500_000)  // pcscd notices a vpcd card leaving within about a second
        }
        return response
    }
    func readerFeatures() -> [UInt8: UInt32] { connection.readerFeatures() }
    func control(_ code: UInt32, _ input: [UInt8]) throws -> [UInt8] { try connection.control(code, input) }
}

/// MOCK PIN-pad reader: vpcd cannot emulate a reader with a keypad, so this wrapper around a
/// real connection advertises FEATURE_VERIFY_PIN_DIRECT, checks the PIN_VERIFY_STRUCTURE it is
/// sent as a CCID reader would (PC/SC part 10 §2.5.2), "types" `keypadPIN` into the APDU
/// template the way the structure's format says, and sends that VERIFY to the real card.
final class PINPadReaderMock: CardChannel {
    static let verifyPINDirectCode: UInt32 = 0x4233_0006
    private let connection: CardConnection
    private let keypadPIN: String
    private(set) var structures: [[UInt8]] = []
    private(set) var problems: [String] = []

    init(_ connection: CardConnection, keypadPIN: String) {
        self.connection = connection
        self.keypadPIN = keypadPIN
    }

    var readerName: String { connection.readerName }
    func withTransaction<T>(_ body: () throws -> T) throws -> T { try connection.withTransaction(body) }
    func transmit(_ command: CommandAPDU) throws -> ResponseAPDU { try connection.transmit(command) }
    func transmitWiping(_ command: inout [UInt8]) throws -> ResponseAPDU {
        problems.append("the host sent a PIN although the reader has a PIN pad")
        return try connection.transmitWiping(&command)
    }
    func readerFeatures() -> [UInt8: UInt32] { [0x06: Self.verifyPINDirectCode] }

    func control(_ code: UInt32, _ input: [UInt8]) throws -> [UInt8] {
        guard code == Self.verifyPINDirectCode else {
            problems.append("unknown control code \(code)")
            return [0x6B, 0x00]
        }
        structures.append(input)
        guard input.count >= 19 else {
            problems.append("structure too short")
            return [0x6B, 0x80]
        }
        let formatString = input[2], minimum = Int(input[6]), maximum = Int(input[5])
        let dataLength = Int(input[15]) | Int(input[16]) << 8 | Int(input[17]) << 16 | Int(input[18]) << 24
        var apdu = Array(input[19...])
        guard apdu.count == dataLength, apdu.count >= 5 else {
            problems.append("ulDataLength \(dataLength) but \(apdu.count) APDU bytes")
            return [0x6B, 0x80]
        }
        guard formatString & 0x03 == 0x02 else {
            problems.append("PIN format is not ASCII")
            return [0x6B, 0x80]
        }
        // the pad refuses a wrong length
        guard (minimum...maximum).contains(keypadPIN.count) else { return [0x64, 0x03] }
        let position = 5 + Int(formatString >> 3 & 0x0F)
        for (index, digit) in keypadPIN.utf8.enumerated() { apdu[position + index] = digit }
        return try connection.transmitWiping(&apdu).bytesOfStatus
    }
}

extension ResponseAPDU {
    var bytesOfStatus: [UInt8] { [status.sw1, status.sw2] }
}

/// Collects what the signer's channel factory made, across its threads.
final class Collected<Item>: @unchecked Sendable {  // unchecked: `lock` guards `items`
    private let lock = NSLock()
    private var items: [Item] = []
    func append(_ item: Item) { lock.withLock { items.append(item) } }
    var all: [Item] { lock.withLock { items } }
}
