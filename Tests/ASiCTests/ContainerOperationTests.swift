import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// The DigiDoc `SignedContainer` operations: add, remove, list, extract, and their refusals.
final class ContainerOperationTests: ContainerTestCase {
    func testAddThenListInInsertionOrder() throws {
        let container = try makeContainer()
        try container.addDataFile(path: TestEnvironment.write("third", named: "c.pdf", in: folder))
        try container.save()
        let reopened = try Container(openingAt: container.path)
        XCTAssertEqual(reopened.dataFiles.map(\.name), ["b.txt", "my file ö #1.txt", "c.pdf"])
        XCTAssertEqual(reopened.dataFiles.map(\.mediaType), ["text/plain", "text/plain", "application/pdf"])
        XCTAssertEqual(reopened.dataFiles.map(\.size), [12, 6, 5])
    }

    func testDuplicateNamesEmptyFilesAndBadNamesAreRefused() throws {
        let container = try makeContainer()
        XCTAssertThrowsError(try container.addDataFile(path: path("b.txt"))) {
            XCTAssertEqual(($0 as? ContainerError)?.code, "data-file-exists")
        }
        try Data().write(to: folder.appendingPathComponent("empty.txt"))
        XCTAssertThrowsError(try container.addDataFile(path: path("empty.txt"))) {
            XCTAssertEqual(($0 as? ContainerError)?.code, "empty-data-file")
        }
        for bad in ["mimetype", "a/b.txt", "a\\b.txt", "..", "tab\there"] {
            XCTAssertThrowsError(try container.addDataFile(path: path("b.txt"), name: bad), bad) {
                XCTAssertEqual(($0 as? ContainerError)?.code, "invalid-data-file-name")
            }
        }
        XCTAssertThrowsError(try container.addDataFile(path: path("missing.txt"))) {
            XCTAssertEqual(($0 as? ContainerError)?.code, "file-not-found")
        }
    }

    func testRemovingAFileRewritesTheContainer() throws {
        let container = try makeContainer()
        try container.removeDataFile(named: "b.txt")
        XCTAssertEqual(try container.save(), .written)
        XCTAssertEqual(try Container(openingAt: container.path).dataFiles.map(\.name), ["my file ö #1.txt"])
        XCTAssertThrowsError(try container.removeDataFile(named: "nope")) {
            XCTAssertEqual(($0 as? ContainerError)?.code, "data-file-not-found")
        }
    }

    func testRemovingTheLastFileDeletesTheContainer() throws {
        let container = try makeContainer(files: ["only.txt": "x"])
        try container.removeDataFile(named: "only.txt")
        XCTAssertEqual(try container.save(), .deleted)
        XCTAssertFalse(FileManager.default.fileExists(atPath: container.path))
    }

    func testSignedContainerRefusesAddAndRemove() async throws {
        let container = try await signedContainer()
        let before = try TestEnvironment.bytes(container.path)
        XCTAssertThrowsError(try container.addDataFile(path: TestEnvironment.write("x", named: "new.txt", in: folder)))
        {
            XCTAssertEqual($0 as? ContainerError, .containerSigned)
        }
        XCTAssertThrowsError(try container.removeDataFile(named: "b.txt")) {
            XCTAssertEqual($0 as? ContainerError, .containerSigned)
        }
        XCTAssertEqual(try TestEnvironment.bytes(container.path), before)
    }

    func testExtractWritesEveryFileAndRefusesToOverwrite() throws {
        let container = try makeContainer()
        let out = folder.appendingPathComponent("out")
        let written = try container.extract(to: out.path)
        XCTAssertEqual(written.count, 2)
        XCTAssertEqual(
            try String(contentsOf: out.appendingPathComponent("my file ö #1.txt"), encoding: .utf8), "hello\n")
        try Data("keep me".utf8).write(to: out.appendingPathComponent("b.txt"))
        XCTAssertThrowsError(try container.extract(to: out.path)) {
            XCTAssertEqual(($0 as? ContainerError)?.code, "would-overwrite")
        }
        XCTAssertEqual(
            try String(contentsOf: out.appendingPathComponent("b.txt"), encoding: .utf8), "keep me",
            "nothing written on refusal")
        try container.extract(["b.txt"], to: out.path, overwrite: true)
        XCTAssertEqual(try String(contentsOf: out.appendingPathComponent("b.txt"), encoding: .utf8), "second file\n")
    }

    func testExtractDoesNotFollowAPlantedSymlinkOutOfTheFolder() throws {
        // A data file in a sub-folder whose name is, in the target, a symlink to elsewhere.
        let zipPath = path("sub.asice")
        let script = """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1], "w")
            z.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.etsi.asic-e+zip")
            z.writestr("dir/a.txt", "payload")
            z.writestr("META-INF/manifest.xml", '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.etsi.asic-e+zip"/><manifest:file-entry manifest:full-path="dir/a.txt" manifest:media-type="text/plain"/></manifest:manifest>')
            """
        XCTAssertEqual(try TestEnvironment.run("/usr/bin/python3", ["-c", script, zipPath]).status, 0)
        let container = try Container(openingAt: zipPath)
        let out = folder.appendingPathComponent("out2"), elsewhere = folder.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: out.appendingPathComponent("dir"), withDestinationURL: elsewhere)
        XCTAssertThrowsError(try container.extract(to: out.path)) {
            XCTAssertEqual(($0 as? ContainerError)?.code, "unsafe-entry-name")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("a.txt").path))
    }

    func testSafeFileNames() {
        XCTAssertEqual(Container.safeFileName("a\u{1}b"), "a_b")
        XCTAssertEqual(Container.safeFileName("-rf"), "_-rf")
        XCTAssertEqual(Container.safeFileName("ok ö.txt"), "ok ö.txt")
    }

    func testFailedSaveLeavesTheOriginalByteForByteAndNoTemporaryFiles() throws {
        let container = try makeContainer()
        let before = try TestEnvironment.bytes(container.path)
        let source = try TestEnvironment.write("will vanish", named: "vanishing.txt", in: folder)
        try container.addDataFile(path: source)
        try FileManager.default.removeItem(atPath: source)
        XCTAssertThrowsError(try container.save())
        XCTAssertEqual(try TestEnvironment.bytes(container.path), before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.contains(".tamga-")
        }
        XCTAssertEqual(leftovers, [])
    }

    func testCreatingWithoutFilesIsRefused() {
        XCTAssertThrowsError(try Container(creatingAt: path("none.asice")).save()) {
            XCTAssertEqual($0 as? ContainerError, .noDataFiles)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("none.asice")))
    }
}

/// What a killed run leaves beside a container is named after it and cleaned by the next write.
final class LeftoverTemporaryFileTests: ContainerTestCase {
    private func touch(_ name: String, age: TimeInterval) throws -> String {
        let file = path(name)
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(repeating: 7, count: 1024)))
        let when = Date().addingTimeInterval(-age)
        try FileManager.default.setAttributes([.modificationDate: when], ofItemAtPath: file)
        return file
    }

    func testTheNextWriteRemovesOnlyStaleUnlockedLeftoversOfTheSameTarget() throws {
        let container = try makeContainer("c.asice")
        let stale = try touch(".c.asice.tamga-Abc123", age: 600)
        let held = try touch(".c.asice.tamga-Held01", age: 600)
        let young = try touch(".c.asice.tamga-Young1", age: 0)
        let other = try touch(".d.asice.tamga-Abc123", age: 600)
        let notOurs = try touch(".c.asice.tamga-notmkstemp", age: 600)
        // A live writer holds its temporary file locked.
        let fd = open(held, O_RDONLY)
        XCTAssertEqual(flock(fd, LOCK_EX), 0)
        defer { close(fd) }
        try container.addDataFile(path: TestEnvironment.write("third\n", named: "c.txt", in: folder))
        try container.save()
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale), "a leftover of a killed run is removed")
        for kept in [held, young, other, notOurs] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: kept), kept)
        }
        XCTAssertEqual(AtomicOutputFile.temporaryPrefix(for: "c.asice"), ".c.asice.tamga-")
        XCTAssertLessThanOrEqual(
            AtomicOutputFile.temporaryPrefix(for: String(repeating: "ö", count: 300)).utf8.count, 210)
    }
}

/// Formats people still receive that are not ZIPs are read as what they are, not called truncated.
final class NonZipFormatTests: ContainerTestCase {
    func testADDOCFileIsReadAsDDOC() throws {
        let ddoc = try TestEnvironment.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <SignedDoc format="DIGIDOC-XML" version="1.3" xmlns="http://www.sk.ee/DigiDoc/v1.3.0#"><DataFile Id="D0">YWJj</DataFile></SignedDoc>
            """, named: "old.ddoc", in: folder)
        XCTAssertThrowsError(try Container(openingAt: ddoc)) { error in
            // Read as DigiDoc XML (DDOCValidationTests has the real ones): this one lacks a Filename.
            XCTAssertEqual((error as? ContainerError)?.code, "malformed-ddoc")
            XCTAssertTrue("\(error)".contains("DDOC") && "\(error)".contains("Filename"), "\(error)")
        }
        let junk = try TestEnvironment.write("not a container at all\n", named: "junk.asice", in: folder)
        XCTAssertThrowsError(try Container(openingAt: junk)) { error in
            XCTAssertEqual((error as? ContainerError)?.code, "malformed-zip")
        }
    }
}
