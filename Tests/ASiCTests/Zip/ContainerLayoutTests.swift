import TamgaTestSupport
import XCTest

@testable import ASiC

/// The ZIP layout checked byte by byte and with Python's zipfile (an independent reader).
final class ContainerLayoutTests: ContainerTestCase {
    func testMimetypeIsFirstStoredWithoutExtraFieldAndPayloadAtByte38() throws {
        let container = try makeContainer()
        let bytes = [UInt8](try TestEnvironment.bytes(container.path))
        XCTAssertEqual(Array(bytes[0..<4]), [0x50, 0x4B, 0x03, 0x04])
        XCTAssertEqual(bytes[8], 0, "method stored")
        XCTAssertEqual(Int(bytes[26]) | Int(bytes[27]) << 8, 8, "name length")
        XCTAssertEqual(Int(bytes[28]) | Int(bytes[29]) << 8, 0, "no extra field")
        XCTAssertEqual(String(decoding: bytes[30..<38], as: UTF8.self), "mimetype")
        XCTAssertEqual(String(decoding: bytes[38..<69], as: UTF8.self), "application/vnd.etsi.asic-e+zip")
    }

    func testPythonZipfileReadsEverythingAndCRCsAreRight() throws {
        let container = try makeContainer()
        let script = """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            names = [i.filename for i in z.infolist()]
            print("|".join(names))
            print(z.read("mimetype").decode())
            print(z.getinfo("b.txt").compress_type)
            """
        let result = try TestEnvironment.run("/usr/bin/python3", ["-c", script, container.path])
        XCTAssertEqual(result.status, 0, result.error)
        let lines = result.output.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[0], "mimetype|b.txt|my file ö #1.txt|META-INF/manifest.xml")
        XCTAssertEqual(lines[1], "application/vnd.etsi.asic-e+zip")
        XCTAssertEqual(lines[2], "8", "small text is deflated")
    }

    func testManifestHasRootEntryFirstAndRawUTF8Paths() throws {
        let container = try makeContainer()
        let result = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                "-c", "import sys,zipfile;print(zipfile.ZipFile(sys.argv[1]).read('META-INF/manifest.xml').decode())",
                container.path,
            ])
        XCTAssertTrue(
            result.output.contains(
                """
                  <manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.etsi.asic-e+zip"/>
                  <manifest:file-entry manifest:full-path="b.txt" manifest:media-type="text/plain"/>
                  <manifest:file-entry manifest:full-path="my file ö #1.txt" manifest:media-type="text/plain"/>
                """), result.output)
    }

    func testAlreadyCompressedAndRandomDataAreStoredTextIsDeflated() throws {
        var random = [UInt8](repeating: 0, count: 300_000)
        for i in random.indices { random[i] = UInt8.random(in: 0...255) }
        try Data(random).write(to: folder.appendingPathComponent("noise.bin"))
        try Data(random.prefix(5000)).write(to: folder.appendingPathComponent("photo.jpg"))
        try Data(String(repeating: "lorem ipsum dolor sit amet ", count: 20_000).utf8).write(
            to: folder.appendingPathComponent("text.log"))
        let container = Container(creatingAt: path("mixed.asice"))
        for name in ["noise.bin", "photo.jpg", "text.log"] { try container.addDataFile(path: path(name)) }
        try container.save()
        let reopened = try Container(openingAt: path("mixed.asice"))
        let stored = Dictionary(uniqueKeysWithValues: reopened.dataFiles.map { ($0.name, $0.isStored) })
        XCTAssertEqual(stored, ["noise.bin": true, "photo.jpg": true, "text.log": false])
        XCTAssertEqual(reopened.dataFiles.first { $0.name == "photo.jpg" }?.mediaType, "image/jpeg")
        let text = reopened.dataFiles.first { $0.name == "text.log" }!
        XCTAssertLessThan(text.compressedSize!, text.size / 10)
    }

    func testLargeFileOverFourGiBUsesZIP64AndStreams() async throws {
        // A sparse 4.3 GiB file: cheap on disk, but every byte goes through CRC, deflate and SHA-256.
        let big = path("big.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: big, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: big))
        try handle.truncate(atOffset: 4_400_000_000)
        try handle.seek(toOffset: 4_399_999_990)
        handle.write(Data("tail bytes".utf8))
        try handle.close()
        let container = Container(creatingAt: path("big.asice"))
        container.compression = .deflate
        try container.addDataFile(path: big)
        try container.save()
        try await container.sign(with: TestEnvironment.signer("ec-p256"), options: .baselineB)
        let reopened = try Container(openingAt: path("big.asice"))
        XCTAssertEqual(reopened.dataFiles.first?.size, 4_400_000_000)
        XCTAssertEqual(try validate(reopened).status, .valid)
        // An independent reader sees the ZIP64 sizes.
        let result = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sys,zipfile;i=zipfile.ZipFile(sys.argv[1]).getinfo('big.bin');print(i.file_size, i.extract_version)",
                path("big.asice"),
            ])
        XCTAssertEqual(result.output.trimmingCharacters(in: .whitespacesAndNewlines), "4400000000 45", result.error)
    }
}
