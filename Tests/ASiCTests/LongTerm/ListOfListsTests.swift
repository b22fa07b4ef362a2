import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// The test list of lists of `Fixtures/tsl/lotl` (scripts/make-test-lotl.py, signed with xmlsec1):
/// which pointers are followed, with which signers, and what a national list must be.
final class ListOfListsTests: XCTestCase {
    private func bytes(_ name: String) throws -> Data {
        try TestEnvironment.bytes(TestEnvironment.fixture("tsl/lotl/\(name)"))
    }
    private func certificate(_ name: String) throws -> Certificate { try Certificate(derOrPEM: bytes(name)) }

    func testTheLOTLYieldsOnePointerPerFollowedTerritoryWithItsSigners() throws {
        let lotl = try TrustedListSet.checkListOfLists(
            bytes("eu-lotl.xml"), signers: [certificate("lotl-signer.cert.pem")])
        XCTAssertEqual(lotl.kind, .listOfLists)
        XCTAssertEqual(lotl.territory, "EU")
        XCTAssertEqual(lotl.pointers.count, 5)
        let followed = lotl.pointers.filter(\.isFollowed)
        XCTAssertEqual(followed.map(\.territory), ["EE", "LV"])
        XCTAssertEqual(followed[0].signers, [try certificate("ee-tsl-signer.cert.pem")])
        XCTAssertEqual(followed[0].location, "http://lists.tamga.test/EE.xml")
        XCTAssertEqual(followed[0].locationFileName, "EE.xml")
        XCTAssertEqual(followed[0].cacheFileName, "EE.xml")
        let skipped = lotl.pointers.filter { !$0.isFollowed }.map { "\($0.territory): \($0.skipReason ?? "")" }
        XCTAssertEqual(
            skipped,
            [
                "EE: not an XML list (application/pdf)", "LT: the pointer names no signer certificate",
                "EU: a pointer to a list of lists",
            ])
        XCTAssertEqual(
            lotl.serviceCounts, ["ca": 0, "ocsp": 0, "tsa": 0], "a list of lists has no services of its own")
    }

    func testGreeceIsELAndHostileTerritoriesCannotNameAPath() throws {
        let text = String(decoding: try bytes("eu-lotl.xml"), as: UTF8.self)
        // Parse the pointer shapes without the signature (pointer parsing is independent of it).
        let document = try XMLDocument(
            data: Data(
                text.replacingOccurrences(
                    of: "<SchemeTerritory>LV</SchemeTerritory>", with: "<SchemeTerritory>GR</SchemeTerritory>"
                )
                .replacingOccurrences(
                    of: "<SchemeTerritory>EE</SchemeTerritory>", with: "<SchemeTerritory>../../etc/x</SchemeTerritory>"
                )
                .replacingOccurrences(of: "http://lists.tamga.test/EE.xml", with: "http://lists.tamga.test/").utf8),
            name: "t")
        let pointers = try XCTUnwrap(
            document.root?.child("SchemeInformation", in: TrustedList.namespace)?
                .child("PointersToOtherTSL", in: TrustedList.namespace)?.children(
                    "OtherTSLPointer", in: TrustedList.namespace)
        ).map(TrustedListPointer.init)
        XCTAssertEqual(pointers[2].territory, "EL")
        XCTAssertEqual(pointers[2].cacheFileName, "EL.xml")
        XCTAssertEqual(pointers[0].cacheFileName, "etcx.xml")
        XCTAssertNil(pointers[0].locationFileName, "a TSLLocation without a file name names no file beside the LOTL")
    }

    func testEachNationalListIsCheckedWithItsPointersSigners() throws {
        let lotl = try TrustedListSet.checkListOfLists(
            bytes("eu-lotl.xml"), signers: [certificate("lotl-signer.cert.pem")])
        let ee = try XCTUnwrap(lotl.pointers.first { $0.isFollowed && $0.territory == "EE" })
        let list = try TrustedListSet.checkNational(bytes("EE.xml"), pointer: ee)
        XCTAssertEqual(list.serviceCounts, ["ca": 1, "ocsp": 1, "tsa": 0])
        let cases: [(String, String)] = [
            ("bad/EE-wrong-signer.xml", "tsl-signer-not-in-pointer"), ("bad/EE-tampered.xml", "tsl-signature-invalid"),
            ("bad/EE-expired.xml", "tsl-expired"), ("bad/EE-is-lotl.xml", "tsl-pointer-depth"),
        ]
        for (file, code) in cases {
            XCTAssertThrowsError(try TrustedListSet.checkNational(bytes(file), pointer: ee), file) {
                XCTAssertEqual(($0 as? TrustedListError)?.code, code, "\(file): \($0)")
            }
        }
        XCTAssertNoThrow(try TrustedListSet.checkNational(bytes("bad/EE-expired.xml"), pointer: ee, allowExpired: true))
    }

    func testTheLOTLIsCheckedWithThePinnedSignersOnly() throws {
        XCTAssertThrowsError(
            try TrustedListSet.checkListOfLists(
                bytes("bad/eu-lotl-unpinned.xml"), signers: [certificate("lotl-signer.cert.pem")])
        ) {
            XCTAssertEqual(($0 as? TrustedListError)?.code, "lotl-signer-not-pinned")
        }
        XCTAssertThrowsError(
            try TrustedListSet.checkListOfLists(bytes("eu-lotl.xml"), signers: EULOTLSigners.certificates)
        ) {
            XCTAssertEqual(
                ($0 as? TrustedListError)?.code, "lotl-signer-not-pinned", "the test LOTL is not trusted by default")
        }
        XCTAssertThrowsError(
            try TrustedListSet.checkListOfLists(bytes("EE.xml"), signers: [certificate("ee-tsl-signer.cert.pem")])
        ) {
            XCTAssertEqual(($0 as? TrustedListError)?.code, "tsl-pointer-depth")
        }
        XCTAssertThrowsError(
            try TrustedListSet.checkListOfLists(
                bytes("bad/eu-lotl-expired.xml"), signers: [certificate("lotl-signer.cert.pem")])
        ) {
            XCTAssertTrue("\($0)".contains("expired on 2025-07-01T00:00:00Z"), "\($0)")
        }
    }

    func testTheUnionOfTheListsAnchorsWhatEachAnchorsAlone() throws {
        let set = try TrustedListSet.load(
            listOfLists: bytes("eu-lotl.xml"), signers: [certificate("lotl-signer.cert.pem")]
        ) { pointer in
            (try? TestEnvironment.bytes(TestEnvironment.fixture("tsl/lotl/\(pointer.cacheFileName)"))).map {
                ($0, pointer.cacheFileName)
            }
        }
        XCTAssertEqual(set.lists.map(\.territory), ["EE", "LV"])
        let union = try XCTUnwrap(set.union)
        XCTAssertEqual(union.territory, "EE+LV")
        let now = Date()
        XCTAssertTrue(
            union.certificates(of: [.certificateAuthority], at: now).contains(
                try TestEnvironment.certificate("issuing-ca")))
        XCTAssertTrue(union.certificates(of: [.timeStamping], at: now).contains(try TestEnvironment.certificate("tsa")))
    }

    func testAListIsParsedAndCheckedOncePerProcess() throws {
        let data = try bytes("LV.xml")
        let signers = [try certificate("lv-tsl-signer.cert.pem")]
        _ = try TrustedList(data: data, signers: signers)
        let before = TrustedListMemo.shared.checks
        for _ in 0..<5 { _ = try TrustedList(data: data, signers: signers) }
        XCTAssertEqual(TrustedListMemo.shared.checks, before, "served from the memo")
        XCTAssertThrowsError(
            try TrustedList(data: data, signers: [try certificate("ee-tsl-signer.cert.pem")]),
            "other signers are checked anew")
    }

    // MARK: - pivots

    private func pivots(_ uri: String) -> Data? {
        try? bytes("pivot/" + (URL(string: uri)?.lastPathComponent ?? ""))
    }

    func testALOTLByANewSignerIsAcceptedThroughThePivotThatAnnouncesIt() throws {
        let pinned = [try certificate("lotl-signer.cert.pem")]
        let lotl = try TrustedListSet.checkListOfLists(bytes("pivot/eu-lotl.xml"), signers: pinned, pivots: pivots)
        XCTAssertEqual(lotl.pointers.filter(\.isFollowed).map(\.territory), ["EE", "LV"])
        XCTAssertThrowsError(try TrustedListSet.checkListOfLists(bytes("pivot/eu-lotl.xml"), signers: pinned)) {
            XCTAssertEqual(
                ($0 as? TrustedListError)?.code, "lotl-signer-not-pinned", "no pivots without a way to read them")
        }
        XCTAssertThrowsError(
            try TrustedListSet.checkListOfLists(bytes("pivot/eu-lotl.xml"), signers: pinned, pivots: { _ in nil })
        ) {
            XCTAssertEqual($0 as? TrustedListError, .pivotUnavailable("http://lists.tamga.test/eu-lotl-pivot-1.xml"))
        }
    }

    func testAPivotAnnouncesOnlyTheSignersOfItsPointerToTheListOfLists() throws {
        // The rogue LOTL's pivot URI served with the genuine pivot, which announces lotl-signer-2, not rogue.
        XCTAssertThrowsError(
            try TrustedListSet.checkListOfLists(
                bytes("pivot/loop-lotl.xml"), signers: [certificate("lotl-signer.cert.pem")],
                pivots: { _ in try? self.bytes("pivot/eu-lotl-pivot-1.xml") })
        ) {
            XCTAssertEqual(($0 as? TrustedListError)?.code, "lotl-signer-not-pinned")
        }
    }

    func testPivotsThatLeadInACircleEndAtTheDepthBound() throws {
        XCTAssertThrowsError(
            try TrustedListSet.checkListOfLists(
                bytes("pivot/loop-lotl.xml"), signers: [certificate("lotl-signer.cert.pem")],
                pivots: pivots)
        ) {
            XCTAssertEqual(($0 as? TrustedListError)?.code, "lotl-pivot-depth", "\($0)")
        }
    }
}
