import XCTest

// The co-signer's HTTP flows again, on PostgreSQL: enrollment, relying-party SIGN and AUTH
// sessions, commit → prove → finish, device attestation, cancel, a failed finish locking the
// key, re-enrollment revoking the old device, the PIN's lockout and counters. Same tests, same
// assertions; only the store differs. Linux's test discovery lists only the methods a class
// declares itself, so each inherited test is named here (`testEveryTestRunsOnBothStores`
// fails when one is missing).
final class PostgreSQLCoSignerServiceTests: CoSignerServiceTests {
    override class var storeKind: TestStoreKind { .postgresql }
    override func testEnrollThenARelyingPartySessionIsSignedByTheDevice() async throws { try await super.testEnrollThenARelyingPartySessionIsSignedByTheDevice() }
    override func testHostileRequestsGet4xxAndChangeNothing() async throws { try await super.testHostileRequestsGet4xxAndChangeNothing() }
}

final class PostgreSQLDeviceAttestationTests: DeviceAttestationTests {
    override class var storeKind: TestStoreKind { .postgresql }
    override func testEveryDeviceCallMustBeSignedByTheEnrolledKeyOverAFreshNonce() async throws { try await super.testEveryDeviceCallMustBeSignedByTheEnrolledKeyOverAFreshNonce() }
    override func testANonceHandedToOneDeviceIsUselessToAnother() async throws { try await super.testANonceHandedToOneDeviceIsUselessToAnother() }
    override func testEnrollmentRegistersOnlyAKeyTheDeviceProvesItHolds() async throws { try await super.testEnrollmentRegistersOnlyAKeyTheDeviceProvesItHolds() }
    override func testOneCodeEnrollsAnAuthAndASignKeyEachOnce() async throws { try await super.testOneCodeEnrollsAnAuthAndASignKeyEachOnce() }
}

final class PostgreSQLAuthenticationSessionTests: AuthenticationSessionTests {
    override class var storeKind: TestStoreKind { .postgresql }
    override func testAnAuthSessionIsSignedOverTheChallengeAndTheDevicesOwnKey() async throws { try await super.testAnAuthSessionIsSignedOverTheChallengeAndTheDevicesOwnKey() }
    override func testTheDeviceRefusesAnAuthDigestItDidNotComputeItself() async throws { try await super.testTheDeviceRefusesAnAuthDigestItDidNotComputeItself() }
}

final class PostgreSQLSessionIsolationTests: SessionIsolationTests {
    override class var storeKind: TestStoreKind { .postgresql }
    override func testACancelSentToAnotherSessionDoesNotEndTheOpenOne() async throws { try await super.testACancelSentToAnotherSessionDoesNotEndTheOpenOne() }
    override func testACryptoFailureAtFinishFailsTheSessionAndLocksTheKeyDurably() async throws { try await super.testACryptoFailureAtFinishFailsTheSessionAndLocksTheKeyDurably() }
    override func testADeviceReachesOnlyTheKeysItEnrolledAndReEnrollmentRevokesTheOldDevice() async throws { try await super.testADeviceReachesOnlyTheKeysItEnrolledAndReEnrollmentRevokesTheOldDevice() }
}

final class PostgreSQLPINHardeningTests: PINHardeningTests {
    override class var storeKind: TestStoreKind { .postgresql }
    override func testACopiedFolderWithTheRightPINDoesNotOpenWithoutTheCoSigner() async throws { try await super.testACopiedFolderWithTheRightPINDoesNotOpenWithoutTheCoSigner() }
    override func testAWrongPINSeriesHitsTheCoSignersLockout() async throws { try await super.testAWrongPINSeriesHitsTheCoSignersLockout() }
    override func testTheCoSignersCounterResetsAfterTheRightPINOnly() async throws { try await super.testTheCoSignersCounterResetsAfterTheRightPINOnly() }
    override func testShortPINsAreRefusedBeforeAnyRequest() async throws { try await super.testShortPINsAreRefusedBeforeAnyRequest() }
    override func testWrongPINTriesAreRateLimitedPerKey() async throws { try await super.testWrongPINTriesAreRateLimitedPerKey() }
}
