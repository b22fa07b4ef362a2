import ASiC
import Foundation
import PCSC
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import IDCard

/// Hands out PINs from a list, one per request, and records what it was asked. The signer must
/// ask at most once per operation; an exhausted list fails the test.
final class ScriptedPINs: PINProvider, @unchecked Sendable {  // unchecked: the lock guards both arrays
    private let lock = NSLock()
    private var pins: [String]
    private var requests: [PINRequest] = []

    init(_ pins: String...) { self.pins = pins }

    var asked: [PINRequest] { lock.withLock { requests } }

    func pin(for request: PINRequest) async throws -> SecretBytes {
        try lock.withLock {
            requests.append(request)
            guard !pins.isEmpty else { throw CardError.cancelled }
            return SecretBytes(Array(pins.removeFirst().utf8))
        }
    }
}

/// Base for ID-card tests: a private pcscd with vpcd readers and tamga-vcard cards, a folder.
class IDCardTestCase: XCTestCase {
    var folder: URL!
    var rig: PCSCRig?

    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("idcard") }
    override func tearDown() {
        rig?.stop()
        rig = nil
        TestEnvironment.removeFolder(folder)
    }

    /// One reader (two slots) per entry, each slot with the card given (nil = empty).
    func startRig(_ readers: [(String, [String?])]) throws {
        let started = try PCSCRig(readers: readers.map { PCSCRig.ReaderSpec(name: $0.0, cards: $0.1) })
        started.use()
        rig = started
    }

    func makeContainer(_ name: String = "card.asice") throws -> Container {
        let container = Container(creatingAt: folder.appendingPathComponent(name).path)
        try container.addDataFile(
            path: TestEnvironment.write("signed with a card\n", named: "document.txt", in: folder))
        try container.save()
        return try Container(openingAt: container.path)
    }

    func validate(_ path: String, minimum: SignatureProfile = .B) throws -> ValidationReport {
        try Container(openingAt: path).validate(
            ValidationOptions(trust: TestEnvironment.testTrust(), minimumProfile: minimum))
    }

    /// Asserts `body` throws exactly `expected`.
    func assertCardError<T>(
        _ expected: CardError, file: StaticString = #filePath, line: UInt = #line,
        _ body: () async throws -> T
    ) async {
        do {
            _ = try await body()
            XCTFail("expected \(expected), nothing was thrown", file: file, line: line)
        } catch let error as CardError {
            XCTAssertEqual(error, expected, file: file, line: line)
        } catch {
            XCTFail("expected \(expected), got \(error)", file: file, line: line)
        }
    }
}
