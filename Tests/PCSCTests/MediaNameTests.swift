import XCTest

@testable import PCSC

/// Media names and reader names from docs/design/smartcard.md §2.3–2.4: the spellings its
/// fixture table marks "in MediaNameTests".
final class MediaNameTests: XCTestCase {
    func testMediaNameForms() {
        XCTAssertEqual(
            MediaName("rutoken_ecp_4a1b2c3d")?.kind, .token(family: "rutoken_ecp", serial: "4a1b2c3d", viaPKCS11: false)
        )
        XCTAssertEqual(
            MediaName("rutoken_lt_40d27c56")?.kind, .token(family: "rutoken_lt", serial: "40d27c56", viaPKCS11: false))
        XCTAssertEqual(
            MediaName("pkcs11_rutoken_ecp_435461fa")?.kind,
            .token(family: "rutoken_ecp", serial: "435461fa", viaPKCS11: true))
        XCTAssertEqual(MediaName("NO_MEDIA")?.kind, .noMedia)
        XCTAssertEqual(MediaName("NO_UNIQUE")?.kind, .noUnique)
        XCTAssertNil(MediaName("rutoken_ecp_xyz"))
        XCTAssertNil(MediaName("floppy"))
        XCTAssertEqual(MediaName(family: "rutoken_ecp", serial: 0x1234abcd).description, "rutoken_ecp_1234abcd")
        XCTAssertEqual(
            MediaName(family: "rutoken_ecp", serial: 0x2a, viaPKCS11: true).description, "pkcs11_rutoken_ecp_0000002a")
    }

    func testReaderNamesFromTheFixtureTable() {
        let table: [(String, product: String, index: Int?, family: String?)] = [
            ("Aktiv Rutoken ECP 00 00", "Aktiv Rutoken ECP", 0, "rutoken_ecp"),
            ("Aktiv Rutoken ECP 01 00", "Aktiv Rutoken ECP", 1, "rutoken_ecp"),
            ("Aktiv Rutoken lite 00 00", "Aktiv Rutoken lite", 0, "rutoken_lt"),
            ("Aktiv Rutoken lite 01 00", "Aktiv Rutoken lite", 1, "rutoken_lt"),
            ("Aktiv Rutoken ECP BT 1", "Aktiv Rutoken ECP BT", 1, "rutoken_ecp"),
            ("Aktiv Rutoken ECP B 00 00", "Aktiv Rutoken ECP B", 0, "rutoken_ecp"),
            ("Aktiv Co. Rutoken S 00 00", "Aktiv Co. Rutoken S", 0, "rutoken"),
            ("Aktiv Rutoken ECP 0", "Aktiv Rutoken ECP", 0, "rutoken_ecp"),
            ("ACS ACR38U-CCID 00 00", "ACS ACR38U-CCID", 0, nil),
            ("ACS ACR 38U-CCID 00 00", "ACS ACR 38U-CCID", 0, nil),
            ("ACS ACR39U ICC Reader 00 00", "ACS ACR39U ICC Reader", 0, nil),
            ("Gemalto PC Twin Reader (A5B0A38B) 00 00", "Gemalto PC Twin Reader", 0, nil),
            (
                "SCM Microsystems Inc. SCR 3310 [CCID Interface] (53312028233379) 00 00",
                "SCM Microsystems Inc. SCR 3310", 0, nil
            ),
            ("Yubico YubiKey OTP+FIDO+CCID 00 00", "Yubico YubiKey OTP+FIDO+CCID", 0, nil),
            (
                "HID Global OMNIKEY 3x21 Smart Card Reader [OMNIKEY 3x21 Smart Card Reader] 00 00",
                "HID Global OMNIKEY 3x21 Smart Card Reader", 0, nil
            ),
            ("Broadcom Corp 58200 [Contacted SmartCard] (0123456789ABCD) 01 00", "Broadcom Corp 58200", 1, nil),
            ("Virtual PCD 00 01", "Virtual PCD", 0, nil),
            ("Feitian R502 CL Reader 0", "Feitian R502 CL Reader", 0, nil),
        ]
        for (raw, product, index, family) in table {
            let name = ReaderName(raw)
            XCTAssertEqual(name.product, product, raw)
            XCTAssertEqual(name.index, index, raw)
            XCTAssertEqual(name.mediaFamily, family, raw)
        }
        XCTAssertEqual(
            ReaderName("SCM Microsystems Inc. SCR 3310 [CCID Interface] (53312028233379) 00 00").serial,
            "53312028233379")
        XCTAssertEqual(
            ReaderName("SCM Microsystems Inc. SCR 3310 [CCID Interface] (53312028233379) 00 00").interface,
            "CCID Interface")
        XCTAssertEqual(ReaderName("Virtual PCD 00 01").slot, 1)
    }

    func testMediaMatchesReadersOfItsFamilyInBothSpellings() {
        let ecp = MediaName("rutoken_ecp_4a1b2c3d")!
        XCTAssertTrue(ecp.matches(readerName: "Aktiv Rutoken ECP 00 00"))
        XCTAssertTrue(ecp.matches(readerName: "Aktiv Rutoken ECP BT 1"))
        XCTAssertTrue(MediaName("pkcs11_rutoken_ecp_435461fa")!.matches(readerName: "Aktiv Rutoken ECP 01 00"))
        XCTAssertFalse(ecp.matches(readerName: "Aktiv Rutoken lite 00 00"))
        XCTAssertFalse(ecp.matches(readerName: "ACS ACR39U ICC Reader 00 00"))
        XCTAssertFalse(MediaName("NO_MEDIA")!.matches(readerName: "Aktiv Rutoken ECP 00 00"))
    }
}
