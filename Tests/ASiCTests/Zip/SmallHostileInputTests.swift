import TamgaTestSupport
import XCTest

@testable import ASiC

#if canImport(Glibc)
import Glibc
#endif

/// The smaller findings of the hostile-input probe: extraction that maps
/// two names to one file or leaves a partial tree, inputs that are not regular files, and data
/// descriptors that disagree with the central directory.
final class SmallHostileInputTests: ContainerTestCase {
    private static let manifestHead =
        #"<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.etsi.asic-e+zip"/>"#

    /// A container whose data files are `files` (in that order), written by Python's zipfile
    /// (stored); `corrupt` names a file whose stored bytes are changed after its CRC was taken.
    private func pythonContainer(_ name: String, files: [(String, String)], corrupt: String? = nil) throws -> String {
        let out = path(name)
        let entries = files.map { "(\(pyString($0.0)), \(pyString($0.1)))" }.joined(separator: ", ")
        let script = """
            import sys, zipfile
            files = [\(entries)]
            m = \(pyString(Self.manifestHead)) + "".join('<manifest:file-entry manifest:full-path="%s" manifest:media-type="text/plain"/>' % n for n, _ in files) + "</manifest:manifest>"
            z = zipfile.ZipFile(sys.argv[1], "w")
            z.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.etsi.asic-e+zip")
            for n, d in files: z.writestr(zipfile.ZipInfo(n), d)
            z.writestr("META-INF/manifest.xml", m); z.close()
            bad = \(corrupt.map(pyString) ?? "None")
            if bad:
                raw = bytearray(open(sys.argv[1], "rb").read())
                d = dict(files)[bad].encode(); i = raw.find(d); raw[i] ^= 1
                open(sys.argv[1], "wb").write(raw)
            """
        let result = try TestEnvironment.run("/usr/bin/python3", ["-c", script, out])
        XCTAssertEqual(result.status, 0, result.error)
        return out
    }

    private func pyString(_ text: String) -> String {
        "\""
            + text.unicodeScalars.map {
                $0.isASCII && $0 != "\"" && $0 != "\\" ? String($0) : "\\U\(String(format: "%08x", $0.value))"
            }.joined() + "\""
    }

    /// Every path under `root`, relative, sorted (folders end in `/`).
    private func tree(_ root: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        return walker.compactMap { item -> String? in
            guard let relative = item as? String else { return nil }
            var isFolder: ObjCBool = false
            guard
                FileManager.default.fileExists(
                    atPath: root.appendingPathComponent(relative).path, isDirectory: &isFolder)
            else { return nil }
            return isFolder.boolValue ? relative + "/" : relative
        }.sorted()
    }

    // MARK: 1. Two names, one file

    func testTwoDataFilesMappedToOneFileAreRefusedBeforeAnythingIsWritten() throws {
        let container = try makeContainer(files: ["-x.txt": "dash\n", "_-x.txt": "underscore\n", "a.txt": "a\n"])
        let out = folder.appendingPathComponent("out")
        XCTAssertThrowsError(try container.extract(to: out.path)) { error in
            guard case .extractionCollision(let first, let second, let target)? = error as? ContainerError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(Set([first, second]), ["-x.txt", "_-x.txt"])
            XCTAssertTrue(target.hasSuffix("/out/_-x.txt"), target)
            XCTAssertEqual((error as? ContainerError)?.code, "extraction-collision")
            XCTAssertTrue("\(error)".contains("\"-x.txt\"") && "\(error)".contains("\"_-x.txt\""), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "nothing is written, not even the folder")
        // One at a time, each into its own folder, works.
        try container.extract(["-x.txt"], to: out.path)
        try container.extract(["_-x.txt"], to: folder.appendingPathComponent("other").path)
        XCTAssertEqual(try String(contentsOf: out.appendingPathComponent("_-x.txt"), encoding: .utf8), "dash\n")
    }

    func testAFileWhereAnotherNeedsAFolderIsRefused() throws {
        let file = try pythonContainer("folder.asice", files: [("-a", "file"), ("_-a/b.txt", "in a folder")])
        let container = try Container(openingAt: file)
        let out = folder.appendingPathComponent("out")
        XCTAssertThrowsError(try container.extract(to: out.path)) {
            XCTAssertEqual(($0 as? ContainerError)?.code, "extraction-collision", "\($0)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
    }

    func testNamesAreComparedByteForByte() throws {
        // On Linux the NFC and NFD spellings of "é" are two files: not a collision (decision
        // recorded in Container+Extraction.swift); the same data file named twice is written once.
        XCTAssertNoThrow(
            try Container.refuseCollisions([("\u{E9}", ["\u{E9}"]), ("e\u{301}", ["e\u{301}"])], in: "/x"))
        XCTAssertThrowsError(try Container.refuseCollisions([("-x", ["_-x"]), ("_-x", ["_-x"])], in: "/x"))
        let container = try makeContainer(files: ["a.txt": "a\n"])
        XCTAssertEqual(try container.extract(["a.txt", "a.txt"], to: path("twice")).count, 1)
    }

    func testNamesThatDifferOnlyInCaseAreRefusedAtOpenAndWhenAdded() throws {
        // One file on Windows and macOS: extracted there, the second would overwrite the first.
        for (first, second) in [
            ("a.txt", "A.txt"), ("stra\u{DF}e.txt", "STRASSE.txt"), ("dir/x.txt", "DIR/x.txt"),
            ("\u{3C3}.txt", "\u{3A3}.txt"), ("caf\u{E9}.txt", "CAFE\u{301}.txt"),
        ] {
            let file = try pythonContainer("case.asice", files: [(first, "one"), (second, "two")])
            XCTAssertThrowsError(try Container(openingAt: file), "\(first) \(second)") { error in
                XCTAssertEqual((error as? ContainerError)?.code, "ambiguous-zip", "\(error)")
                XCTAssertTrue("\(error)".contains("differ only in case"), "\(error)")
            }
        }
        let container = Container(creatingAt: path("new.asice"))
        try container.addDataFile(path: TestEnvironment.write("one", named: "a.txt", in: folder))
        XCTAssertThrowsError(try container.addDataFile(path: TestEnvironment.write("two", named: "A.txt", in: folder)))
        {
            XCTAssertEqual(($0 as? ContainerError)?.code, "data-file-exists")
            XCTAssertTrue("\($0)".contains("\"a.txt\""), "\($0)")
        }
        // Names that only look alike stay two names: a Latin and a Cyrillic "a".
        XCTAssertNoThrow(
            try Container(openingAt: pythonContainer("alike.asice", files: [("a.txt", "one"), ("\u{430}.txt", "two")])))
    }

    func testASlashFollowedByACombiningMarkIsStillASlash() throws {
        // "/" + U+0301 is one Swift Character: compared as Characters, "../\u{301}x" has no ".."
        // segment and "/\u{301}x" no leading "/", but unzip and every other reader see both.
        for hostile in ["../\u{301}x.txt", "/\u{301}x.txt", "a/\u{301}/../../x.txt", "a/\u{301}b.txt"] {
            let file = try pythonContainer("combining.asice", files: [(hostile, "payload")])
            XCTAssertThrowsError(try Container(openingAt: file), hostile) {
                XCTAssertEqual(($0 as? ContainerError)?.code, "unsafe-entry-name", "\($0)")
            }
        }
        XCTAssertThrowsError(try Container.validateNewDataFileName("a/\u{301}b"))
        XCTAssertNoThrow(try Container.validateArchivePath("caf\u{E9}/e\u{301}.txt", isDirectory: false))
    }

    // MARK: 2. A failed extraction leaves the target as it was

    func testAFailedExtractionRemovesEverythingItMadeAndNothingElse() throws {
        let file = try pythonContainer(
            "corrupt.asice",
            files: [
                ("a.txt", "first file"), ("sub/dir/b.txt", "second file"),
                ("sub/new/c.txt", "third file is corrupt"),
            ],
            corrupt: "sub/new/c.txt")
        let container = try Container(openingAt: file)
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(
            at: out.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: out.appendingPathComponent("keep.txt"))
        try Data("old a".utf8).write(to: out.appendingPathComponent("a.txt"))
        let before = tree(out)
        XCTAssertEqual(before, ["a.txt", "keep.txt", "sub/"])

        XCTAssertThrowsError(try container.extract(to: out.path, overwrite: true)) {
            XCTAssertEqual(($0 as? ContainerError)?.code, "corrupt-entry", "\($0)")
        }
        XCTAssertEqual(tree(out), before, "no new file, folder or temporary file is left")
        XCTAssertEqual(
            try String(contentsOf: out.appendingPathComponent("a.txt"), encoding: .utf8), "old a",
            "the existing file was not replaced")

        // Into a folder that does not exist yet: the folder goes too.
        let fresh = folder.appendingPathComponent("fresh/deeper")
        XCTAssertThrowsError(try container.extract(to: fresh.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("fresh").path))
    }

    func testAFileWhereAFolderIsNeededFailsWithoutLeavingAnything() throws {
        let file = try pythonContainer(
            "blocked.asice", files: [("a.txt", "first"), ("sub/b.txt", "second"), ("sub/deeper/c.txt", "third")])
        let container = try Container(openingAt: file)
        let out = folder.appendingPathComponent("blocked")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data("a plain file".utf8).write(to: out.appendingPathComponent("sub"))
        XCTAssertThrowsError(try container.extract(to: out.path)) {
            XCTAssertEqual(($0 as? ContainerError)?.code, "io-failure", "\($0)")
        }
        XCTAssertEqual(tree(out), ["sub"], "a.txt, written before the failure, is gone again")
    }

    // MARK: 3. Inputs that are not regular files

    func testAFIFOIsRefusedWithoutBlocking() throws {
        let fifo = path("pipe.asice")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        final class Outcome: @unchecked Sendable { var error: Error? }  // written before the signal, read after it
        let done = DispatchSemaphore(value: 0)
        let result = Outcome()
        DispatchQueue.global().async {
            do { _ = try Container(openingAt: fifo) } catch { result.error = error }
            done.signal()
        }
        if done.wait(timeout: .now() + 5) == .timedOut {
            // Unblock the reader (a writer that opens and closes gives it end of file).
            let writer = open(fifo, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            _ = done.wait(timeout: .now() + 5)
            return XCTFail("opening a FIFO blocked")
        }
        guard case .unreadableInput(_, let why)? = result.error as? ContainerError else {
            return XCTFail("\(String(describing: result.error))")
        }
        XCTAssertTrue(why.contains("named pipe (FIFO)"), why)
    }

    func testFoldersAndDevicesAreRefused() throws {
        for (input, kind) in [(folder.path, "a folder"), ("/dev/null", "a character device")] {
            XCTAssertThrowsError(try Container(openingAt: input)) { error in
                guard case .unreadableInput(_, let why)? = error as? ContainerError else { return XCTFail("\(error)") }
                XCTAssertTrue(why.contains(kind), why)
            }
        }
    }

    // MARK: 5. Data descriptors

    /// A container written by hand whose data file `a.txt` has a data descriptor; `variant`
    /// says what is wrong with it: nothing, its CRC, its size, or the local header's CRC.
    /// A container whose a.txt has a data descriptor (bit 3), stored or deflated.
    private func descriptorContainer(_ variant: String, signature: Bool = true, deflated: Bool = false) throws -> String
    {
        let out = path("descriptor-\(variant)-\(signature)-\(deflated).asice")
        let script = """
            import sys, struct, zlib
            variant, with_signature, deflated = sys.argv[2], sys.argv[3] == "1", sys.argv[4] == "1"
            manifest = \(pyString(Self.manifestHead)) + '<manifest:file-entry manifest:full-path="a.txt" manifest:media-type="text/plain"/></manifest:manifest>'
            items = [("mimetype", b"application/vnd.etsi.asic-e+zip", False), ("a.txt", b"hello descriptor\\n", True),
                     ("META-INF/manifest.xml", manifest.encode(), False)]
            body, central = b"", b""
            for name, data, descriptor in items:
                crc, size, n = zlib.crc32(data), len(data), name.encode()
                offset = len(body)
                flags = 8 if descriptor else 0
                method = 8 if descriptor and deflated else 0
                local_crc = crc if not descriptor else (crc ^ 1 if variant == "local-crc" else 0)
                local_size = size if not descriptor else 0
                stored = data[:-1] + b"?" if descriptor and variant == "data" else data
                if method == 8:
                    packer = zlib.compressobj(6, zlib.DEFLATED, -15); stored = packer.compress(stored) + packer.flush()
                csize = len(stored)
                body += struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, flags, method, 0, 0x21, local_crc, local_size, local_size, len(n), 0) + n + stored
                if descriptor:
                    d_crc = crc ^ 0x10 if variant == "crc" else crc
                    d_size = size + 1 if variant == "size" else size
                    body += (struct.pack("<I", 0x08074b50) if with_signature else b"") + struct.pack("<III", d_crc, csize, d_size)
                central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, flags, method, 0, 0x21, crc, csize, size, len(n), 0, 0, 0, 0, 0, offset) + n
            end = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, len(items), len(items), len(central), len(body), 0)
            open(sys.argv[1], "wb").write(body + central + end)
            """
        let result = try TestEnvironment.run(
            "/usr/bin/python3", ["-c", script, out, variant, signature ? "1" : "0", deflated ? "1" : "0"])
        XCTAssertEqual(result.status, 0, result.error)
        return out
    }

    func testADataDescriptorThatAgreesIsRead() throws {
        for (signature, deflated) in [(true, false), (true, true), (false, true)] {
            let container = try Container(
                openingAt: descriptorContainer("ok", signature: signature, deflated: deflated))
            let out = folder.appendingPathComponent("ok-\(signature)-\(deflated)")
            try container.extract(to: out.path)
            XCTAssertEqual(
                try String(contentsOf: out.appendingPathComponent("a.txt"), encoding: .utf8), "hello descriptor\n")
        }
    }

    func testAStoredEntryWithADescriptorButNoSignatureIsRefused() throws {
        // A streaming reader finds the end of a stored entry only by its descriptor's signature
        // (libarchive; Java's ZipInputStream refuses stored entries with descriptors outright).
        XCTAssertThrowsError(try Container(openingAt: descriptorContainer("ok", signature: false))) { error in
            XCTAssertEqual((error as? ContainerError)?.code, "ambiguous-zip", "\(error)")
            XCTAssertTrue(
                "\(error)".contains("a.txt is stored with a data descriptor that has no signature"), "\(error)")
        }
    }

    func testDataThatDisagreesWithItsDescriptorAndDirectoryIsRefusedWhenRead() throws {
        let container = try Container(openingAt: descriptorContainer("data"))
        let out = folder.appendingPathComponent("data")
        XCTAssertThrowsError(try container.extract(to: out.path)) {
            XCTAssertEqual(($0 as? ContainerError)?.code, "corrupt-entry", "\($0)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
    }

    func testADataDescriptorWhoseCRCOrSizeDisagreesIsRefused() throws {
        for variant in ["crc", "size", "local-crc"] {
            for (signature, deflated) in [(true, false), (true, true), (false, true)] {
                XCTAssertThrowsError(
                    try Container(openingAt: descriptorContainer(variant, signature: signature, deflated: deflated)),
                    "\(variant)"
                ) { error in
                    XCTAssertEqual((error as? ContainerError)?.code, "data-descriptor-mismatch", "\(variant): \(error)")
                    XCTAssertTrue("\(error)".contains("a.txt"), "\(error)")
                }
            }
        }
    }
}
