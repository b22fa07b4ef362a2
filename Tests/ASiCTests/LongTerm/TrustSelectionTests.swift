import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// TrustSelection, the one policy that picks the trusted lists for `tamga verify` and for a
/// library user: from the test list of lists of `Fixtures/tsl/lotl` (EE and LV followed), a
/// national list alone, PEM anchors alone, and no trust at all.
final class TrustSelectionTests: XCTestCase {
    private func path(_ name: String) -> String { TestEnvironment.fixture("tsl/lotl/\(name)") }
    private func certificate(_ name: String) throws -> Certificate {
        try Certificate(derOrPEM: TestEnvironment.bytes(path(name)))
    }

    func testAListOfListsGivesItsNationalListsWholeOrForSomeTerritories() throws {
        let selection = TrustSelection(
            source: .file(path: path("eu-lotl.xml"), signers: [try certificate("lotl-signer.cert.pem")]), cache: nil)
        let whole = try selection.resolve(territories: nil)
        let list = try XCTUnwrap(whole.list)
        XCTAssertEqual(Set(list.territory.split(separator: "+").map(String.init)), ["EE", "LV"])
        XCTAssertFalse(whole.isSubset)
        XCTAssertEqual(whole.notices, [])

        let estonia = try selection.resolve(territories: ["EE"])
        XCTAssertEqual(estonia.list?.territory, "EE")
        XCTAssertTrue(estonia.isSubset, "only some territories were read: a verdict that is not VALID reads all")
    }

    func testANationalListIsUsedAloneAndAnUnreadableOneIsAnError() throws {
        let national = TrustSelection(
            source: .file(path: path("EE.xml"), signers: [try certificate("ee-tsl-signer.cert.pem")]), cache: nil)
        let resolved = try national.resolve(territories: ["LV"])
        XCTAssertEqual(resolved.list?.kind, .national)
        XCTAssertEqual(resolved.list?.territory, "EE", "a national list given is used whatever the signers' countries")
        XCTAssertFalse(resolved.isSubset)

        let missing = TrustSelection(source: .file(path: path("no-such.xml"), signers: []), cache: nil)
        XCTAssertThrowsError(try missing.resolve(territories: nil)) {
            guard case .unreadableFile = $0 as? CoreError else { return XCTFail("\($0)") }
        }
    }

    func testAnchorsAloneReadNoListAndNoTrustAtAllSaysSo() throws {
        let anchors = try TrustSelection(source: .anchors, cache: nil).resolve(territories: nil)
        XCTAssertNil(anchors.list)
        XCTAssertEqual(anchors.notices, [])
        XCTAssertEqual(anchors.problems, [])

        let nothing = try TrustSelection(source: .cache, cache: nil).resolve(territories: nil)
        XCTAssertNil(nothing.list)
        XCTAssertEqual(nothing.notices, [.noTrustConfigured], "nothing can be VALID, and the report says why")
        XCTAssertEqual(nothing.problems, ["tamga: \(TrustedListError.noTrustConfigured)"])
    }
}
