import Foundation
import Threshold
import XCTest

/// The stored form of a signing session's and an enrollment's state (what a co-signer's
/// database row opens to): it round-trips, and any other size, kind, version or scalar is refused.
final class SigningSessionStateTests: XCTestCase {
    static let k = [UInt8](repeating: 0, count: 31) + [5]
    static let committed: [UInt8] = [1, 1] + [UInt8](repeating: 0x11, count: 160) + k
    static let proved: [UInt8] = [1, 2] + k
    static let enrollment: [UInt8] = [1, 3] + [UInt8](repeating: 0x22, count: 128) + k

    func testStoredStatesRoundTrip() throws {
        let state = try SigningSessionState(storageBytes: Self.committed)
        XCTAssertEqual(state.storageBytes, Self.committed)
        XCTAssertEqual(state.stateName, "COMMITTED")
        guard case .committed(let committed) = state else { return XCTFail("not committed") }
        XCTAssertEqual(committed.request.digest, [UInt8](repeating: 0x11, count: 32))
        let proved = try SigningSessionState(storageBytes: Self.proved)
        XCTAssertEqual(proved.storageBytes, Self.proved)
        XCTAssertEqual(proved.stateName, "PROVED")
        XCTAssertEqual(try PendingEnrollment(storageBytes: Self.enrollment).storageBytes, Self.enrollment)
    }

    func testEveryOtherShapeIsRefused() {
        for bytes in [Self.committed, Self.proved] {
            for count in 0..<bytes.count {
                XCTAssertThrowsError(
                    try SigningSessionState(storageBytes: Array(bytes.prefix(count))), "\(count) bytes")
            }
            XCTAssertThrowsError(try SigningSessionState(storageBytes: bytes + [0]), "one byte more")
            XCTAssertThrowsError(try SigningSessionState(storageBytes: [2] + bytes.dropFirst()), "another version")
        }
        XCTAssertThrowsError(
            try SigningSessionState(storageBytes: Self.enrollment), "an enrollment is no signing session")
        XCTAssertThrowsError(try PendingEnrollment(storageBytes: Self.committed), "nor the other way round")
        for count in 0..<Self.enrollment.count {
            XCTAssertThrowsError(try PendingEnrollment(storageBytes: Array(Self.enrollment.prefix(count))))
        }
        // Scalars: zero, and not below the group order.
        let zero = [UInt8](repeating: 0, count: 32), high = [UInt8](repeating: 0xFF, count: 32)
        for scalar in [zero, high] {
            XCTAssertThrowsError(try SigningSessionState(storageBytes: Array(Self.committed.prefix(162)) + scalar))
            XCTAssertThrowsError(try SigningSessionState(storageBytes: [1, 2] + scalar))
            XCTAssertThrowsError(try PendingEnrollment(storageBytes: Array(Self.enrollment.prefix(130)) + scalar))
        }
    }
}
