import TamgaTestSupport
import XCTest

@testable import ASiC

/// Archives that other readers would interpret differently from tamga are refused, so what
/// tamga verifies is what anyone unpacks.
final class ZipStrictnessTests: ContainerTestCase {
    private func mutate(_ script: String, base: Container) throws -> String {
        let out = path("mutated.asice")
        let result = try TestEnvironment.run("/usr/bin/python3", ["-c", script, base.path, out])
        XCTAssertEqual(result.status, 0, result.error)
        return out
    }

    private func assertRefused(_ file: String, _ code: String = "malformed-zip", line: UInt = #line) {
        XCTAssertThrowsError(try Container(openingAt: file), line: line) {
            XCTAssertEqual(($0 as? ContainerError)?.code, code, "\($0)", line: line)
        }
    }

    func testAnExtraCentralDirectoryRecordBeyondTheCountIsRefused() async throws {
        let base = try await signedContainer()
        assertRefused(
            try mutate(
                """
                import sys, zipfile, struct, shutil
                n = len(zipfile.ZipFile(sys.argv[1]).infolist()); shutil.copy(sys.argv[1], sys.argv[2])
                with zipfile.ZipFile(sys.argv[2], "a") as z: z.writestr("evil.sh", "echo pwned\\n")
                b = bytearray(open(sys.argv[2], "rb").read()); e = b.rfind(b"PK\\x05\\x06")
                struct.pack_into("<HH", b, e + 8, n, n); open(sys.argv[2], "wb").write(b)
                """, base: base))
    }

    func testAnEntryHiddenInAGapIsRefused() async throws {
        let base = try await signedContainer()
        // Insert a complete local entry between two entries and fix the offsets after it.
        assertRefused(
            try mutate(
                """
                import sys, zipfile, struct, io
                src = zipfile.ZipFile(sys.argv[1]); raw = open(sys.argv[1], "rb").read()
                infos = src.infolist(); second = infos[1].header_offset
                hidden = io.BytesIO()
                with zipfile.ZipFile(hidden, "w") as h: h.writestr("hidden.txt", "surprise")
                blob = hidden.getvalue(); blob = blob[:blob.find(b"PK\\x01\\x02")]
                out = bytearray(raw[:second] + blob + raw[second:]); shift = len(blob)
                e = out.rfind(b"PK\\x05\\x06"); cd = struct.unpack_from("<I", out, e + 16)[0] + shift
                struct.pack_into("<I", out, e + 16, cd)
                p = cd
                while out[p:p+4] == b"PK\\x01\\x02":
                    off = struct.unpack_from("<I", out, p + 42)[0]
                    if off >= second: struct.pack_into("<I", out, p + 42, off + shift)
                    n, m, k = struct.unpack_from("<HHH", out, p + 28); p += 46 + n + m + k
                open(sys.argv[2], "wb").write(out)
                """, base: base))
    }

    func testBytesBeforeMimetypeAreRefused() async throws {
        let base = try await signedContainer()
        assertRefused(
            try mutate(
                """
                import sys, struct
                raw = bytearray(b"JUNK" + open(sys.argv[1], "rb").read())
                e = raw.rfind(b"PK\\x05\\x06"); cd = struct.unpack_from("<I", raw, e + 16)[0] + 4
                struct.pack_into("<I", raw, e + 16, cd)
                p = cd
                while raw[p:p+4] == b"PK\\x01\\x02":
                    struct.pack_into("<I", raw, p + 42, struct.unpack_from("<I", raw, p + 42)[0] + 4)
                    n, m, k = struct.unpack_from("<HHH", raw, p + 28); p += 46 + n + m + k
                open(sys.argv[2], "wb").write(raw)
                """, base: base))
    }

    func testAHostileZIP64LocatorDoesNotCrash() throws {
        let base = try makeContainer()
        assertRefused(
            try mutate(
                """
                import sys, struct
                raw = bytearray(open(sys.argv[1], "rb").read()); e = raw.rfind(b"PK\\x05\\x06")
                raw[e + 8:e + 12] = b"\\xff\\xff\\xff\\xff"
                raw = raw[:e] + struct.pack("<IIQI", 0x07064b50, 0, 2**64 - 16, 1) + raw[e:]
                open(sys.argv[2], "wb").write(raw)
                """, base: base))
    }

    func testAFileAndAFolderOfTheSameNameAreRefused() throws {
        let file = path("clash.asice")
        let script = """
            import sys, zipfile
            m = '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.etsi.asic-e+zip"/><manifest:file-entry manifest:full-path="a" manifest:media-type="text/plain"/><manifest:file-entry manifest:full-path="a/b" manifest:media-type="text/plain"/></manifest:manifest>'
            z = zipfile.ZipFile(sys.argv[1], "w")
            z.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.etsi.asic-e+zip")
            z.writestr("a", "file"); z.writestr("a/b", "file in folder a"); z.writestr("META-INF/manifest.xml", m)
            """
        XCTAssertEqual(try TestEnvironment.run("/usr/bin/python3", ["-c", script, file]).status, 0)
        assertRefused(file, "unsafe-entry-name")
    }
}
