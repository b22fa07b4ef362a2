import TamgaCore
import TamgaTestSupport
import XCTest

final class TrustStoreTests: XCTestCase {
    func testChainThroughTheIssuingCAIsTrusted() throws {
        let verdict = try TestEnvironment.testTrust().verify(TestEnvironment.certificate("ec-p256"), at: Date())
        guard case .trusted(let chain) = verdict else { return XCTFail("\(verdict)") }
        XCTAssertEqual(chain.count, 3)
    }

    func testNoAnchorsMeansUnknownNotInvalid() throws {
        let verdict = TrustStore().verify(try TestEnvironment.certificate("ec-p256"), at: Date())
        guard case .unknown = verdict else { return XCTFail("\(verdict)") }
    }

    func testMissingIntermediateMeansUnknown() throws {
        let store = TrustStore(anchors: [try TestEnvironment.certificate("root")])
        guard case .unknown = store.verify(try TestEnvironment.certificate("ec-p256"), at: Date()) else {
            return XCTFail()
        }
    }

    func testAnIssuingCAAnchorIsEnough() throws {
        let store = TrustStore(anchors: [try TestEnvironment.certificate("issuing-ca")])
        guard case .trusted = store.verify(try TestEnvironment.certificate("ec-p256"), at: Date()) else {
            return XCTFail()
        }
    }

    func testAfterExpiryTheChainIsInvalid() throws {
        let cert = try TestEnvironment.certificate("ec-p256")
        let verdict = try TestEnvironment.testTrust().verify(cert, at: cert.notAfter.addingTimeInterval(86_400))
        guard case .invalid(let reason) = verdict else { return XCTFail("\(verdict)") }
        XCTAssertTrue(reason.contains("expired"), reason)
    }
}
