import TamgaTestSupport
import XCTest

@testable import PCSC

/// Against a real pcscd with vpcd readers and tamga-vcard cards (no mock).
final class ReaderListingTests: XCTestCase {
    var rig: PCSCRig?

    override func tearDown() {
        rig?.stop()
        unsetenv("PCSCLITE_CSOCK_NAME")
        super.tearDown()
    }

    func testNoServiceIsAClearError() throws {
        rig = try PCSCRig(readers: [], startDaemon: false)
        rig!.use()
        XCTAssertThrowsError(try PCSCContext().readers()) { XCTAssertEqual($0 as? PCSCError, .serviceNotRunning) }
    }

    func testAServiceWithoutReadersListsNothing() throws {
        rig = try PCSCRig(readers: [])
        rig!.use()
        XCTAssertEqual(try PCSCContext().readers(), [])
    }

    func testSeveralReadersWithAMixOfCards() throws {
        rig = try PCSCRig(readers: [
            .init(name: "Aktiv Rutoken ECP", cards: ["rutoken-ecp", nil]),
            .init(name: "ACS ACR39U ICC Reader", cards: ["idemia", "thales"]),
        ])
        rig!.use()
        // pcscd lists reader.conf.d entries in directory order: compare by name.
        let readers = try PCSCContext().readers().sorted {
            ReaderName($0.name).product.hasPrefix("Aktiv") && !ReaderName($1.name).product.hasPrefix("Aktiv")
                || ($0.name < $1.name && ReaderName($0.name).product == ReaderName($1.name).product)
        }
        XCTAssertEqual(
            readers.map(\.name),
            [
                "Aktiv Rutoken ECP 00 00", "Aktiv Rutoken ECP 00 01",
                "ACS ACR39U ICC Reader 00 00", "ACS ACR39U ICC Reader 00 01",
            ])
        XCTAssertEqual(readers.map(\.state.summary), ["present", "empty", "present", "present"])
        XCTAssertEqual(readers.map { $0.card?.name }, ["Rutoken ECP", nil, "EstEID IDEMIA", "EstEID Thales"])
        XCTAssertEqual(readers.map(\.mediaFamily), ["rutoken_ecp", "rutoken_ecp", nil, nil])
        XCTAssertEqual(readers[0].atrHex, "3B8B015275746F6B656E20445320C1")
    }
}
