import TamgaTestSupport
import XCTest

@testable import PCSC

/// APDU transport rules and failures, against pcscd + vpcd + tamga-vcard.
final class CardConnectionTests: XCTestCase {
    var rig: PCSCRig?

    override func tearDown() {
        rig?.stop()
        super.tearDown()
    }

    private func connect(_ card: String) throws -> (PCSCContext, CardConnection) {
        rig = try PCSCRig(readers: [.init(name: "Test Reader", cards: [card, nil])])
        rig!.use()
        let context = try PCSCContext()
        return (context, try CardConnection(context: context, reader: "Test Reader 00 00"))
    }

    func testGetResponseCollectsEverythingInT0Style() throws {
        let (_, card) = try connect("idemia+transport+t0")
        let response = try card.withTransaction {
            try card.transmit(CommandAPDU(ins: 0xCA, p1: 0x01, p2: 0x00, le: 256))
        }
        XCTAssertEqual(response.status, .success)
        XCTAssertEqual(response.data, (0..<300).map { UInt8($0 & 0xFF) })
    }

    func testWrongLengthIsResentWithTheLengthTheCardNames() throws {
        let (_, card) = try connect("idemia+transport")
        let response = try card.withTransaction {
            try card.transmit(CommandAPDU(ins: 0xCA, p1: 0x02, p2: 0x00, le: 256))
        }
        XCTAssertEqual(response.status, .success)
        XCTAssertEqual(response.data, [UInt8](repeating: 0xAB, count: 20))
    }

    func testOtherStatusWordsReachTheCaller() throws {
        let (_, card) = try connect("thales+transport")
        let response = try card.transmit(CommandAPDU(ins: 0x12))
        XCTAssertEqual(response.status, StatusWord(0x6D, 0x00))
        XCTAssertEqual(try card.transmit(.select(application: [0xA0, 0x00, 0x00, 0x00, 0x77])).status, .success)
    }

    func testAnEmptyReaderSaysThereIsNoCard() throws {
        rig = try PCSCRig(readers: [.init(name: "Test Reader", cards: [nil, nil])])
        rig!.use()
        XCTAssertThrowsError(try CardConnection(context: PCSCContext(), reader: "Test Reader 00 00")) {
            XCTAssertEqual($0 as? PCSCError, .noCard(reader: "Test Reader 00 00"))
        }
    }

    func testACardRemovedInTheMiddleOfATransactionGivesATypedErrorNotAHang() throws {
        let (_, card) = try connect("idemia+transport")
        let started = Date()
        XCTAssertThrowsError(
            try card.withTransaction { () throws -> ResponseAPDU in
                XCTAssertEqual(try card.transmit(.select(application: [0xA0])).status, .success)
                rig!.removeCard(port: rig!.port(reader: 0))
                usleep(1_500_000)  // pcscd notices within about 0.7 s
                return try card.transmit(CommandAPDU(ins: 0xCA, p1: 0x02, p2: 0x00, le: 20))
            }
        ) { error in
            XCTAssertTrue(
                [
                    PCSCError.cardRemoved(reader: "Test Reader 00 00"), .noCard(reader: "Test Reader 00 00"),
                    .unresponsiveCard(reader: "Test Reader 00 00"),
                ].contains(error as? PCSCError), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func testAPDUEncodings() {
        XCTAssertEqual(
            CommandAPDU(ins: 0xA4, p1: 4, p2: 0x0C, data: [1, 2]).bytes, [0x00, 0xA4, 0x04, 0x0C, 0x02, 0x01, 0x02])
        XCTAssertEqual(CommandAPDU(ins: 0xB0, le: 256).bytes, [0x00, 0xB0, 0x00, 0x00, 0x00])
        XCTAssertEqual(CommandAPDU(ins: 0xB0, le: 300).bytes, [0x00, 0xB0, 0x00, 0x00, 0x00, 0x01, 0x2C])
        XCTAssertEqual(
            CommandAPDU(ins: 0x2A, data: [UInt8](repeating: 1, count: 300), le: 65536).bytes.count, 4 + 3 + 300 + 2)
    }
}
