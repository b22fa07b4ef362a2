import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// `Container.timeStampArchive`: DigiDoc's time-stamped archive of a whole container, with the
/// loopback TSA. The layout is the reference's; the write is atomic and the input untouched.
final class TimeStampArchiveTests: LongTermTestCase {
    private func client(_ route: String = "tsa") -> TimeStampClient {
        TimeStampClient(url: services.url(route), transport: HTTPTransport(timeout: 5))
    }

    func testArchiveHasTheReferenceLayoutAndVerifies() async throws {
        let original = try await signedContainer(name: "x.asice")
        let before = try TestEnvironment.bytes(original.path)
        let archive = try await Container.timeStampArchive(
            of: original.path, to: path("x.asice.asics"), timeStamping: client())

        XCTAssertEqual(try TestEnvironment.bytes(original.path), before, "the input must be untouched")
        XCTAssertEqual(archive.kind, .asics)
        XCTAssertEqual(archive.dataFiles.map(\.name), ["x.asice"])
        let reader = try ZipReader(path: archive.path)
        XCTAssertEqual(reader.entries.map(\.name), ["mimetype", "x.asice", "META-INF/timestamp.tst"])
        XCTAssertEqual(reader.entries[0].method, .stored)
        XCTAssertEqual(try reader.read(reader.entries[0], limit: 100), Data(SimpleLayout.mimetype.utf8))
        XCTAssertEqual(try reader.read(reader.entries[1], limit: .max), before)

        let report = archive.validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
        XCTAssertEqual(report.status, .valid, "\(report)")
        XCTAssertEqual(report.signatures.first?.profile, "TimeStampToken")
        XCTAssertEqual(report.signatures.first?.signatureMethod, DigestAlgorithm.sha256.xmlURI)

        // An independent ZIP reader sees the same entries, with good CRCs.
        let zipCheck = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                "-c",
                """
                import sys, zipfile
                z = zipfile.ZipFile(sys.argv[1])
                assert z.testzip() is None
                print(",".join(i.filename + ":" + str(i.compress_type) for i in z.infolist()))
                """, archive.path,
            ])
        XCTAssertEqual(
            zipCheck.output.trimmingCharacters(in: .whitespacesAndNewlines),
            "mimetype:0,x.asice:0,META-INF/timestamp.tst:0", zipCheck.error)

        // OpenSSL agrees that the token covers the original container's bytes.
        let tokenPath = path("timestamp.tst")
        try reader.read(reader.entries[2], limit: 1 << 20).write(to: URL(fileURLWithPath: tokenPath))
        try assertExternalCheckPasses(
            "/usr/bin/openssl",
            [
                "ts", "-verify", "-data", original.path, "-in", tokenPath, "-token_in",
                "-CAfile", TestEnvironment.pki("root.cert.pem"),
                "-untrusted", TestEnvironment.pki("tsa.cert.pem"),
            ])
        // The inner container comes out byte for byte, and opens.
        let out = folder.appendingPathComponent("out").path
        let extracted = try archive.extract(to: out)
        XCTAssertEqual(try TestEnvironment.bytes(extracted[0]), before)
        XCTAssertEqual(try Container(openingAt: extracted[0]).signatures.count, 1)
    }

    func testTSAFailureLeavesNoOutput() async throws {
        let original = try makeContainer("y.asice")
        let target = path("y.asice.asics")
        for route in ["tsa/unavailable", "tsa/garbage", "tsa/rejection"] {
            do {
                _ = try await Container.timeStampArchive(of: original.path, to: target, timeStamping: client(route))
                XCTFail("\(route) gave an archive")
            } catch {
                XCTAssertTrue(error is CoreError, "\(route): \(error)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: target), route)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
                $0.hasPrefix(".tamga-")
            }
            XCTAssertEqual(leftovers, [], route)
        }
    }

    func testExistingOutputIsKeptWithoutOverwrite() async throws {
        let original = try makeContainer("z.asice")
        let target = try TestEnvironment.write("keep me", named: "z.asics", in: folder)
        do {
            _ = try await Container.timeStampArchive(of: original.path, to: target, timeStamping: client())
            XCTFail("overwrote without asking")
        } catch {
            XCTAssertEqual(error as? ContainerError, .alreadyExists(target))
        }
        XCTAssertEqual(try TestEnvironment.bytes(target), Data("keep me".utf8))
        _ = try await Container.timeStampArchive(of: original.path, to: target, timeStamping: client(), overwrite: true)
        XCTAssertEqual(try Container(openingAt: target).kind, .asics)
    }

    func testInputThatIsNotAContainerIsRefusedBeforeTheTSA() async throws {
        let text = try TestEnvironment.write("plain", named: "p.asice", in: folder)
        do {
            _ = try await Container.timeStampArchive(
                of: text, to: path("p.asics"), timeStamping: client("tsa/unavailable"))
            XCTFail("time-stamped a non-container")
        } catch {
            XCTAssertEqual((error as? ContainerError)?.code, "malformed-zip")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("p.asics")))
    }

    func testProgressIsReportedWhileWriting() async throws {
        let original = try makeContainer("q.asice")
        final class Seen: @unchecked Sendable { var events: [ProgressEvent] = [] }
        let seen = Seen()
        _ = try await Container.timeStampArchive(of: original.path, to: path("q.asics"), timeStamping: client()) {
            seen.events.append($0)
        }
        XCTAssertEqual(seen.events.last?.completed, seen.events.last?.total)
        XCTAssertEqual(seen.events.last?.item, "q.asice")
    }
}
