import TamgaTestSupport
import XCTest

// The co-signer's HTTP flows again, on PostgreSQL: enrollment, relying-party SIGN and AUTH
// sessions, commit → prove → finish, device attestation, cancel, a failed finish locking the
// key, re-enrollment revoking the old device, the PIN's lockout and counters. Same tests, same
// assertions; only the store differs. Linux's test discovery lists only the methods a class
// declares itself, so each inherited test is named here (`testEveryTestRunsOnBothStores`
// fails when one is missing).
final class PostgreSQLCoSignerServiceTests: CoSignerServiceTests {
    override class var storeKind: TestStoreKind { .postgresql }
    override func testEnrollThenARelyingPartySessionIsSignedByTheDevice() async throws {
        try await super.testEnrollThenARelyingPartySessionIsSignedByTheDevice()
    }
    override func testHostileRequestsGet4xxAndChangeNothing() async throws {
        try await super.testHostileRequestsGet4xxAndChangeNothing()
    }
}

final class PostgreSQLDeviceAttestationTests: DeviceAttestationTests {
    override class var storeKind: TestStoreKind { .postgresql }
    override func testEveryDeviceCallMustBeSignedByTheEnrolledKeyOverAFreshNonce() async throws {
        try await super.testEveryDeviceCallMustBeSignedByTheEnrolledKeyOverAFreshNonce()
    }
    override func testANonceHandedToOneDeviceIsUselessToAnother() async throws {
        try await super.testANonceHandedToOneDeviceIsUselessToAnother()
    }
    override func testEnrollmentRegistersOnlyAKeyTheDeviceProvesItHolds() async throws {
        try await super.testEnrollmentRegistersOnlyAKeyTheDeviceProvesItHolds()
    }
    override func testOneCodeEnrollsAnAuthAndASignKeyEachOnce() async throws {
        try await super.testOneCodeEnrollsAnAuthAndASignKeyEachOnce()
    }
}

final class PostgreSQLAuthenticationSessionTests: AuthenticationSessionTests {
    override class var storeKind: TestStoreKind { .postgresql }
    override func testAnAuthSessionIsSignedOverTheChallengeAndTheDevicesOwnKey() async throws {
        try await super.testAnAuthSessionIsSignedOverTheChallengeAndTheDevicesOwnKey()
    }
    override func testTheDeviceRefusesAnAuthDigestItDidNotComputeItself() async throws {
        try await super.testTheDeviceRefusesAnAuthDigestItDidNotComputeItself()
    }
}

final class PostgreSQLSessionIsolationTests: SessionIsolationTests {
    override class var storeKind: TestStoreKind { .postgresql }
    override func testACancelSentToAnotherSessionDoesNotEndTheOpenOne() async throws {
        try await super.testACancelSentToAnotherSessionDoesNotEndTheOpenOne()
    }
    override func testACryptoFailureAtFinishFailsTheSessionAndLocksTheKeyDurably() async throws {
        try await super.testACryptoFailureAtFinishFailsTheSessionAndLocksTheKeyDurably()
    }
    override func testADeviceReachesOnlyTheKeysItEnrolledAndReEnrollmentRevokesTheOldDevice() async throws {
        try await super.testADeviceReachesOnlyTheKeysItEnrolledAndReEnrollmentRevokesTheOldDevice()
    }
}

final class PostgreSQLPINHardeningTests: PINHardeningTests {
    override class var storeKind: TestStoreKind { .postgresql }
    override func testACopiedFolderWithTheRightPINDoesNotOpenWithoutTheCoSigner() async throws {
        try await super.testACopiedFolderWithTheRightPINDoesNotOpenWithoutTheCoSigner()
    }
    override func testAWrongPINSeriesHitsTheCoSignersLockout() async throws {
        try await super.testAWrongPINSeriesHitsTheCoSignersLockout()
    }
    override func testTheCoSignersCounterResetsAfterTheRightPINOnly() async throws {
        try await super.testTheCoSignersCounterResetsAfterTheRightPINOnly()
    }
    override func testShortPINsAreRefusedBeforeAnyRequest() async throws {
        try await super.testShortPINsAreRefusedBeforeAnyRequest()
    }
    override func testWrongPINTriesAreRateLimitedPerKey() async throws {
        try await super.testWrongPINTriesAreRateLimitedPerKey()
    }
}

/// `/v3/health`, `/v3/ready` (a schema migrated past this program's answers 503) and the
/// metrics' database counts, on PostgreSQL.
final class PostgreSQLOperationsEndpointTests: OperationsEndpointTests {
    override class var storeKind: TestStoreKind { .postgresql }
    override func testHealthIsLiveAndReadyFollowsTheDatabaseSchema() throws {
        try super.testHealthIsLiveAndReadyFollowsTheDatabaseSchema()
    }
    override func testMetricsAreValidPrometheusTextWithRoutePatternsAndDatabaseCounts() async throws {
        try await super.testMetricsAreValidPrometheusTextWithRoutePatternsAndDatabaseCounts()
    }
    override func testConcurrentRequestsAreEachCountedOnce() async throws {
        try await super.testConcurrentRequestsAreEachCountedOnce()
    }
    override func testMetricsAreOffUnlessAskedFor() throws { try super.testMetricsAreOffUnlessAskedFor() }
}

/// Eight clients signing at once through the pool of connections, serializable transactions and
/// all: every signature verifies and none is lost or answered 503 (200 of them here: the SQLite
/// run's 500 add nothing on this path but time).
final class PostgreSQLCoSignerLoadTests: CoSignerLoadTests {
    override class var storeKind: TestStoreKind { .postgresql }
    override class var signatures: Int { 200 }
    override func testEightClientsFiveHundredSignatures() async throws {
        try await super.testEightClientsFiveHundredSignatures()
    }
}

/// Each PostgreSQL subclass names every test of its SQLite class: a test added there and not
/// here would silently run on one store only.
final class BothStoresCoverageTests: XCTestCase {
    func testEveryTestRunsOnBothStores() throws {
        let folder = TestEnvironment.repository.appendingPathComponent("Tests/CoSignerTests")
        let sources = try ["CoSignerServiceTests.swift", "PINHardeningTests.swift", "OperationsTests.swift"].map {
            try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)
        }.joined(separator: "\n")
        let mirror = try String(
            contentsOf: folder.appendingPathComponent("PostgreSQLStoreTests.swift"), encoding: .utf8)
        let mirrored = Self.classBodies(mirror, prefix: "final class PostgreSQL")
        XCTAssertEqual(mirrored.count, 7)
        for (name, body) in mirrored {
            let base = String(name.dropFirst("PostgreSQL".count))
            let original = try XCTUnwrap(Self.classBodies(sources, prefix: "class ")[base], "no class \(base)")
            XCTAssertEqual(Self.tests(body), Self.tests(original), "\(name) must name every test of \(base)")
        }
    }

    /// Class name → its body, for classes declared at the start of a line with `prefix`.
    static func classBodies(_ text: String, prefix: String) -> [String: String] {
        var bodies: [String: String] = [:]
        for chunk in text.components(separatedBy: "\n" + prefix).dropFirst() {
            let name = String(chunk.prefix { $0.isLetter || $0.isNumber })
            bodies[(prefix.hasSuffix("PostgreSQL") ? "PostgreSQL" : "") + name] =
                chunk.components(separatedBy: "\n}\n").first ?? ""
        }
        return bodies
    }

    static func tests(_ body: String) -> Set<String> {
        Set(
            body.components(separatedBy: "func test").dropFirst().map {
                String($0.prefix { $0.isLetter || $0.isNumber })
            })
    }
}
