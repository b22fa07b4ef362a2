import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// One container, one reading, shown differentially: `scripts/zip-differential.py` builds a few
/// thousand tricky archives (the two probe shapes and their mutations, prefixes, overlaps,
/// duplicated central records, lying local headers, data descriptors, ZIP64 with and without
/// saturated fields, comments, names) and reads each with Python's zipfile, Info-ZIP unzip,
/// libarchive (seekable and streaming) and zlib's minizip (what the DigiDoc reference uses).
/// Here tamga reads each one in-process, as `Container` reads an archive (ZipReader, the name
/// checks, every entry streamed with its CRC-32 and size checks). For every archive tamga
/// accepts, each reader that opened it must show exactly tamga's names and bytes, and a reader
/// that failed part-way must not have delivered any other bytes under any of them.
final class ZipDifferentialTests: XCTestCase {
    /// What one reader made of one archive (readings.json).
    private struct Reading: Decodable {
        let opened: Bool
        let entries: [String: String]
        let error: String
    }

    private struct Case: Decodable {
        let id: String
        let file: String
        let family: String
        let description: String
        let readers: [String: Reading]
    }

    private struct Readings: Decodable {
        let readers: [String: String]
        let cases: [Case]
    }

    /// tamga's reading: hex of each file entry's name bytes → SHA-256 of its bytes; nil when refused.
    private func tamgaReads(_ path: String) -> (entries: [String: String]?, refusal: String) {
        do {
            let reader = try ZipReader(path: path)
            _ = try Container.checkEntryNames(reader.entries)
            var entries: [String: String] = [:]
            for entry in reader.entries where !entry.name.hasSuffix("/") {
                let digest = StreamingDigest(.sha256)
                try reader.stream(entry) { digest.update($0) }
                entries[Hex.encode(Array(entry.name.utf8))] = Hex.encode(digest.finish().bytes)
            }
            return (entries, "")
        } catch {
            return (nil, (error as? ContainerError)?.code ?? "\(error)")
        }
    }

    func testEveryArchiveTamgaReadsReadsTheSameInEveryReaderThatOpensIt() throws {
        let folder = try TestEnvironment.temporaryFolder("zip-differential")
        defer { TestEnvironment.removeFolder(folder) }
        // One fixed seed in `make test`, so a run is repeatable; TAMGA_ZIP_SEED explores others.
        let seed = ProcessInfo.processInfo.environment["TAMGA_ZIP_SEED"] ?? "1"
        let made = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                TestEnvironment.script("zip-differential.py"), folder.path,
                "--count", "3000", "--jobs", "2", "--seed", seed,
            ])
        XCTAssertEqual(made.status, 0, made.error)
        let readings = try JSONDecoder().decode(
            Readings.self, from: TestEnvironment.bytes(folder.appendingPathComponent("readings.json").path))
        XCTAssertEqual(
            Set(readings.readers.keys), ["python", "unzip", "bsdtar", "bsdtar-stream", "miniunzip"], "every reader ran")
        XCTAssertGreaterThan(readings.cases.count, 2_000)

        // TAMGA_ZIP_VERBOSE=1 lists every archive tamga accepts, to see what the readers agree on.
        let verbose = ProcessInfo.processInfo.environment["TAMGA_ZIP_VERBOSE"] == "1"
        var disagreements: [String] = []
        var accepted: [String: Int] = [:], refused: [String: Int] = [:]
        var openedByAll = 0
        for item in readings.cases {
            let (tamga, _) = tamgaReads(folder.appendingPathComponent(item.file).path)
            guard let tamga else {
                refused[item.family, default: 0] += 1
                continue
            }
            accepted[item.family, default: 0] += 1
            if verbose { print("accepted \(item.id) [\(item.family)] \(item.description)") }
            if item.readers.values.allSatisfy(\.opened) { openedByAll += 1 }
            for (name, reading) in item.readers.sorted(by: { $0.key < $1.key }) {
                let other = reading.entries.filter { tamga[$0.key] != $0.value }
                if reading.error.contains("delivered") && reading.error.contains(" times, entries holds the last") {
                    // The reader found one name twice where tamga lists it once: it saw an entry tamga did not.
                    disagreements.append(
                        "\(item.id) [\(item.family)] \(item.description): \(name) delivered a name twice (\(reading.error))"
                    )
                } else if reading.opened && reading.entries != tamga {
                    disagreements.append(
                        "\(item.id) [\(item.family)] \(item.description): \(name) reads "
                            + "\(Self.describe(reading.entries)), tamga \(Self.describe(tamga))")
                } else if !other.isEmpty {
                    disagreements.append(
                        "\(item.id) [\(item.family)] \(item.description): \(name) (failed: \(reading.error)) delivered "
                            + "\(Self.describe(other)) where tamga reads \(Self.describe(tamga))")
                }
            }
        }
        let families = Set(accepted.keys).union(refused.keys).sorted()
        print(
            "zip differential (seed \(seed)): \(readings.cases.count) archives; tamga accepts \(accepted.values.reduce(0, +)) "
                + "(\(openedByAll) of them opened by every reader), refuses \(refused.values.reduce(0, +)); by family: "
                + families.map { "\($0) \(accepted[$0] ?? 0)/\((accepted[$0] ?? 0) + (refused[$0] ?? 0))" }.joined(
                    separator: ", "))
        XCTAssertEqual(
            disagreements, [],
            "\(disagreements.count) archives read differently:\n" + disagreements.prefix(40).joined(separator: "\n"))
        // The harness is only worth something if tamga does accept archives, and ones that every reader reads.
        XCTAssertGreaterThan(accepted["valid"] ?? 0, 10)
        XCTAssertGreaterThan(openedByAll, 50)
        XCTAssertEqual(accepted["appended-archive"] ?? 0, 0, "no appended archive is read")
    }

    /// `name-hex → digest` as readable text: names decoded, digests shortened.
    private static func describe(_ entries: [String: String]) -> String {
        "{"
            + entries.sorted { $0.key < $1.key }.map { name, digest in
                "\"\(String(decoding: (try? Hex.decode(name)) ?? [], as: UTF8.self))\": \(digest.prefix(8))"
            }.joined(separator: ", ") + "}"
    }
}
