import TamgaCore
import XCTest

/// Names as a person reads them, as the DigiDoc clients show a signer.
final class ReadableNameTests: XCTestCase {
    func testAPersonIsGivenNameSurnameAndCode() {
        let card =
            #"CN=TESTCARD IDEMIA\,JAAK-KRISTJAN\,38001085718,SN=TESTCARD IDEMIA,GN=JAAK-KRISTJAN,serialNumber=PNOEE-38001085718,C=EE"#
        XCTAssertEqual(DistinguishedName.readableName(rfc4514: card), "JAAK-KRISTJAN TESTCARD IDEMIA, 38001085718")
        XCTAssertEqual(
            DistinguishedName.readableName(
                rfc4514: "CN=TEST SIGNER EC256,SN=SIGNER,GN=TEST,serialNumber=PNOEE-30303039914,C=EE"),
            "TEST SIGNER, 30303039914")
        // Other semantics prefixes go too; a serial without one stays whole.
        XCTAssertEqual(
            DistinguishedName.readableName(rfc4514: "CN=A B,SN=B,GN=A,serialNumber=IDCLV-010101-12345,C=LV"),
            "A B, 010101-12345")
        XCTAssertEqual(
            DistinguishedName.readableName(rfc4514: "CN=Org Seal,serialNumber=12345678,O=Org,C=EE"),
            "Org Seal, 12345678")
    }

    func testTheCommonNameWhenItAlreadyHoldsTheCodeOrThereIsNoPerson() {
        // A common name that ends in the code is shown as the other signers are: `NAME, CODE`,
        // and `SURNAME,GIVENNAME,CODE` as given name, surname, code.
        XCTAssertEqual(
            DistinguishedName.readableName(
                rfc4514: #"CN=THRESHOLD SIGNING KEY\,38001085718,serialNumber=PNOEE-38001085718,C=EE"#),
            "THRESHOLD SIGNING KEY, 38001085718")
        XCTAssertEqual(
            DistinguishedName.readableName(
                rfc4514: #"CN=TESTCARD IDEMIA\,JAAK-KRISTJAN\,38001085718,serialNumber=PNOEE-38001085718,C=EE"#),
            "JAAK-KRISTJAN TESTCARD IDEMIA, 38001085718")
        XCTAssertEqual(
            DistinguishedName.readableName(rfc4514: #"CN=Acme\, Inc.,serialNumber=12345678,C=EE"#),
            "Acme, Inc., 12345678",
            "a comma that is not before the code stays")
        XCTAssertEqual(
            DistinguishedName.readableName(rfc4514: "CN=tamga Test TSA,O=tamga TEST ONLY,C=EE"), "tamga Test TSA")
        // Nothing to read a name from, or not a name at all: the text as it is.
        XCTAssertEqual(
            DistinguishedName.readableName(rfc4514: "O=Only An Organisation,C=EE"), "O=Only An Organisation,C=EE")
        XCTAssertEqual(DistinguishedName.readableName(rfc4514: "not = a , = name"), "not = a , = name")
    }
}
