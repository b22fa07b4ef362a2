import XCTest

@testable import PCSC

final class CardRegistryTests: XCTestCase {
    func testExactMaskedAndContainedATRs() {
        let h = CardRegistry.hex
        XCTAssertEqual(CardRegistry.recognize(h("3BDB960080B1FE451F830012233F536549440F9000F1"))?.name, "EstEID IDEMIA")
        XCTAssertEqual(
            CardRegistry.recognize(h("3BFF9600008031FE438031B85365494464B085051012233F1D"))?.name, "EstEID Thales")
        XCTAssertEqual(CardRegistry.recognize(h("3B7F9600008031B865B085050011122460829000"))?.name, "FinEID")
        XCTAssertEqual(
            CardRegistry.recognize(h("3B7F9600008031B865B085059999122460829000"))?.name, "FinEID",
            "bytes 12–13 are masked")
        XCTAssertNil(
            CardRegistry.recognize(h("3B7F9600008031B865B085050011122460829001")), "outside the mask nothing varies")
        XCTAssertEqual(CardRegistry.recognize(h("3B8B015275746F6B656E20445320C1"))?.mediaFamily, "rutoken_ecp")
        XCTAssertEqual(CardRegistry.recognize(h("3B8B015275746F6B656E6C697465C2"))?.mediaFamily, "rutoken_lt")
        XCTAssertEqual(CardRegistry.recognize(h("3BFD1300008131FE158073C021C057597562694B657940"))?.name, "YubiKey")
        XCTAssertNil(CardRegistry.recognize(h("3B9513810180 73FF01000B")))
    }

    func testMultiStringSplitting() {
        XCTAssertEqual(SCardContextHandle.multiString(Array("A 00 00\0B 00 01\0\0".utf8)), ["A 00 00", "B 00 01"])
        XCTAssertEqual(SCardContextHandle.multiString([0, 0]), [])
        XCTAssertEqual(SCardContextHandle.multiString(Array("unterminated".utf8)), ["unterminated"])
    }
}
