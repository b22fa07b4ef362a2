import ASiC
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// `tamga trust update/show` against the test LOTL of `Fixtures/tsl/lotl` (made by
/// scripts/make-test-lotl.py) served on loopback by scripts/test-trust-server.py, and `tamga
/// verify` with the cache this leaves (XDG_CACHE_HOME in a temporary folder). The server is
/// also the HTTP proxy through which the signed pointers' host `lists.tamga.test` is reached.
final class TrustCommandTests: XCTestCase {
    private var folder: URL!
    private var www: URL!
    private var server: Process?
    private var serverURL: URL!
    private var services: TestServices?

    override func setUpWithError() throws {
        folder = try TestEnvironment.temporaryFolder("trust")
        www = folder.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        for name in ["eu-lotl.xml", "EE.xml", "LV.xml"] { try serve(name, as: name) }
        let (process, url) = try TestEnvironment.startListeningServer("test-trust-server.py", ["--root", www.path])
        server = process
        serverURL = url
    }

    override func tearDown() {
        if let server { TestEnvironment.terminate(server) }
        services?.stop()
        TestEnvironment.removeFolder(folder)
    }

    private func tamga(
        _ words: [String], cache: String? = nil, onTerminal: Bool = false
    ) async -> (ExitCode, String, String) {
        await runTamgaInProcess(
            words, environment: ["XDG_CACHE_HOME": cache ?? folder.appendingPathComponent("cache").path],
            interactive: onTerminal)
    }

    private var cacheFolder: URL { folder.appendingPathComponent("cache/tamga/trust") }
    private func lotl(_ name: String) -> String { TestEnvironment.fixture("tsl/lotl/\(name)") }

    /// Puts a fixture at `name` on the server, removing any behaviour file of that name.
    private func serve(_ fixture: String, as name: String) throws {
        let target = www.appendingPathComponent(name)
        for suffix in ["", ".status", ".redirect", ".slow", ".huge"] {
            try? FileManager.default.removeItem(atPath: target.path + suffix)
        }
        try FileManager.default.copyItem(atPath: lotl(fixture), toPath: target.path)
    }

    private func behave(_ name: String, _ behaviour: String, _ content: String = "") throws {
        try Data(content.utf8).write(to: www.appendingPathComponent(name + "." + behaviour))
    }

    private func update(_ extra: [String] = []) async -> (ExitCode, [String: Any], String) {
        let (code, out, err) = await tamga(
            [
                "trust", "update", "--lotl", serverURL.appendingPathComponent("eu-lotl.xml").absoluteString,
                "--proxy", serverURL.absoluteString, "--lotl-cert", lotl("lotl-signer.cert.pem"),
                "--timeout", "3", "--json",
            ] + extra)
        let report = (try? JSONSerialization.jsonObject(with: Data(out.utf8))) as? [String: Any] ?? [:]
        // Every report these tests see conforms to docs/cli.md's schema (failed runs print an error object).
        if report["lists"] != nil { try? JSONOutputSchemaTests.conform(out, to: "trust-update") }
        return (code, report, out + err)
    }

    private func lines(_ report: [String: Any]) -> [String: [String: Any]] {
        var byTerritory: [String: [String: Any]] = [:]
        for line in report["lists"] as? [[String: Any]] ?? [] {
            byTerritory[line["territory"] as? String ?? "?"] = line
        }
        return byTerritory
    }

    /// An LT signature of Fixtures/pki ec-p256 with the loopback TSA and OCSP: its chain and OCSP
    /// are anchored by the EE list, its time-stamp only by the LV list.
    private func signedContainer() async throws -> String {
        let services = try TestServices()
        self.services = services
        let document = try TestEnvironment.write("trust me\n", named: "a.txt", in: folder)
        let container = folder.appendingPathComponent("signed.asice").path
        let (created, _, createErr) = await tamga(["container", "create", container, document, "-q"])
        XCTAssertEqual(created, .success, createErr)
        let (signed, _, signErr) = await tamga([
            "sign", container, "--with", "key:\(TestEnvironment.pki("ec-p256.key.pem"))",
            "--cert", TestEnvironment.pki("ec-p256.cert.pem"), "--certs", TestEnvironment.pki("issuing-ca.cert.pem"),
            "--tsa", services.url("tsa").absoluteString, "--ocsp", services.url("ocsp").absoluteString,
        ])
        XCTAssertEqual(signed, .success, signErr)
        return container
    }

    private func verify(
        _ container: String, _ extra: [String] = [], cache: String? = nil
    ) async throws -> (ExitCode, [String: Any], String) {
        let (code, out, err) = await tamga(["verify", container, "--json"] + extra, cache: cache)
        let report = (try? JSONSerialization.jsonObject(with: Data(out.utf8))) as? [String: Any] ?? [:]
        return (code, report, err)
    }

    // MARK: - update, show, verify from the cache

    func testUpdateFromALoopbackLOTLThenVerifyWithNoTrustFlags() async throws {
        let (code, report, output) = await update()
        XCTAssertEqual(code, .success, output)
        XCTAssertEqual(report["ok"] as? Bool, true, output)
        let byTerritory = lines(report)
        XCTAssertEqual(
            Set(byTerritory.keys), ["EU", "EE", "LV", "LT"], "the PDF pointer and the LOTL's own pointer are not lines")
        XCTAssertEqual(byTerritory["EU"]?["result"] as? String, "updated")
        XCTAssertEqual((byTerritory["EU"]?["services"] as? [String: Int])?["pointers"], 2)
        XCTAssertEqual(byTerritory["EE"]?["result"] as? String, "updated")
        XCTAssertEqual(byTerritory["EE"]?["sequenceNumber"] as? Int, 10)
        XCTAssertEqual(byTerritory["EE"]?["issued"] as? String, "2026-01-01T00:00:00Z")
        XCTAssertEqual(byTerritory["EE"]?["nextUpdate"] as? String, "2045-01-01T00:00:00Z")
        XCTAssertEqual(byTerritory["EE"]?["services"] as? [String: Int], ["ca": 1, "ocsp": 1, "tsa": 0])
        XCTAssertEqual(byTerritory["LV"]?["services"] as? [String: Int], ["ca": 0, "ocsp": 0, "tsa": 1])
        XCTAssertEqual(byTerritory["LT"]?["result"] as? String, "skipped")
        XCTAssertEqual((byTerritory["LT"]?["error"] as? [String: String])?["code"], "tsl-pointer-skipped")
        for name in ["eu-lotl.xml", "EE.xml", "LV.xml", "trust.json", "lotl-signers.pem"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: cacheFolder.appendingPathComponent(name).path), name)
        }
        XCTAssertEqual(
            try TestEnvironment.bytes(cacheFolder.appendingPathComponent("EE.xml").path),
            try TestEnvironment.bytes(lotl("EE.xml")))

        // Again: nothing changed; the text form has one line per list.
        let (again, text, _) = await tamga(["trust", "update", "--proxy", serverURL.absoluteString])
        XCTAssertEqual(again, .success, text)
        XCTAssertTrue(
            text.contains(
                "EE   EE.xml  seq 10  issued 2026-01-01T00:00:00Z  next update 2045-01-01T00:00:00Z  ca 1, ocsp 1, tsa 0  unchanged"
            ), text)

        let (shown, shownOut, _) = await tamga(["trust", "show", "--json"])
        XCTAssertEqual(shown, .success, shownOut)
        let show = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(shownOut.utf8)) as? [String: Any])
        XCTAssertEqual(show["configured"] as? Bool, true)
        XCTAssertEqual(show["lotlSigners"] as? String, "custom (lotl-signers.pem)")
        let shownLists = lines(show)
        XCTAssertEqual(shownLists["EE"]?["status"] as? String, "ok")
        XCTAssertEqual(shownLists["LV"]?["status"] as? String, "ok")
        XCTAssertEqual(shownLists["EU"]?["status"] as? String, "ok")

        let container = try await signedContainer()
        let (verified, verifiedReport, verifyErr) = try await verify(container)
        XCTAssertEqual(verified, .success, "\(verifiedReport) \(verifyErr)")
        XCTAssertEqual(verifiedReport["status"] as? String, "VALID", "\(verifiedReport)")
        XCTAssertEqual(verifyErr, "")

        // With --trust PEM anchors the cache is not used (and gives the same verdict here).
        let (anchored, anchoredReport, _) = try await verify(
            container, ["--trust", TestEnvironment.pki("root.cert.pem")])
        XCTAssertEqual(anchored, .success, "\(anchoredReport)")

        // No cache: said plainly, UNKNOWN.
        let empty = folder.appendingPathComponent("empty").path
        let (none, noneReport, noneErr) = try await verify(container, cache: empty)
        XCTAssertEqual(none, .trustNotEstablished, "\(noneReport)")
        XCTAssertTrue(noneErr.contains("no trust configured: run `tamga trust update` or give --trust/--tsl"), noneErr)
        XCTAssertEqual(
            (noneReport["findings"] as? [[String: Any]])?.first?["code"] as? String, "no-trust-configured",
            "\(noneReport)")
        XCTAssertEqual(noneReport["status"] as? String, "UNKNOWN")
        let (noShow, noShowOut, _) = await tamga(["trust", "show"], cache: empty)
        XCTAssertEqual(noShow, .trustNotEstablished)
        XCTAssertTrue(noShowOut.contains("run `tamga trust update`"), noShowOut)
    }

    /// verify reads the lists of the countries the signatures' certificates name first, and
    /// every list only when those do not settle the verdict: a broken list of another country
    /// is never read for a signature its own country's list settles (the reference also reads
    /// only the countries it meets), and is read (and reported) when the verdict needs more.
    func testVerifyReadsTheListsOfTheSignaturesCountriesFirst() async throws {
        let (code, _, output) = await update()
        XCTAssertEqual(code, .success, output)
        // LV.xml (the TSA's list) is tampered with in the cache: its signature no longer verifies.
        let lv = cacheFolder.appendingPathComponent("LV.xml")
        let text = try String(contentsOf: lv, encoding: .utf8)
        XCTAssertTrue(text.contains("<TSLSequenceNumber>10<"))
        try text.replacingOccurrences(of: "<TSLSequenceNumber>10<", with: "<TSLSequenceNumber>11<")
            .write(to: lv, atomically: true, encoding: .utf8)

        // A B-level signature by an EE signer: the EE list settles it, LV is never read.
        let document = try TestEnvironment.write("only EE\n", named: "b.txt", in: folder)
        let plain = folder.appendingPathComponent("b-level.asice").path
        let (created, _, createErr) = await tamga(["container", "create", plain, document, "-q"])
        XCTAssertEqual(created, .success, createErr)
        let (signed, _, signErr) = await tamga([
            "sign", plain, "--with", "key:\(TestEnvironment.pki("ec-p256.key.pem"))",
            "--cert", TestEnvironment.pki("ec-p256.cert.pem"),
            "--certs", TestEnvironment.pki("issuing-ca.cert.pem"), "--profile", "B", "-q",
        ])
        XCTAssertEqual(signed, .success, signErr)
        let (bCode, bReport, bErr) = try await verify(plain, ["--min-profile", "B"])
        XCTAssertEqual(bCode, .success, "\(bReport) \(bErr)")
        XCTAssertEqual(bReport["status"] as? String, "VALID", "\(bReport)")
        XCTAssertEqual(bErr, "", "the LV list was read for a signature the EE list settles")

        // LT: the TSA is on the LV list, so EE alone leaves it UNKNOWN; every list is then read,
        // and the broken one is reported.
        let container = try await signedContainer()
        let (ltCode, ltReport, ltErr) = try await verify(container)
        XCTAssertEqual(ltCode, .trustNotEstablished, "\(ltReport)")
        XCTAssertTrue(ltErr.contains("the LV list"), ltErr)
    }

    func testATerritoryFilterUpdatesOnlyThoseLists() async throws {
        let (code, report, output) = await update(["--territory", "lv"])
        XCTAssertEqual(code, .success, output)
        XCTAssertEqual(Set(lines(report).keys), ["EU", "LV"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: cacheFolder.appendingPathComponent("EE.xml").path))
    }

    func testProgressIsDrawnOnATerminalOnly() async throws {
        let arguments = [
            "trust", "update", "--lotl", serverURL.appendingPathComponent("eu-lotl.xml").absoluteString,
            "--proxy", serverURL.absoluteString, "--lotl-cert", lotl("lotl-signer.cert.pem"),
        ]
        let (code, _, err) = await tamga(arguments, onTerminal: true)
        XCTAssertEqual(code, .success, err)
        XCTAssertTrue(err.contains("downloading list of lists"), err)
        XCTAssertTrue(err.contains("downloading EE (1/3) http://lists.tamga.test/EE.xml"), err)
        let (_, _, quiet) = await tamga(arguments + ["-q"], onTerminal: true)
        XCTAssertEqual(quiet, "")
        let (_, _, piped) = await tamga(arguments)
        XCTAssertEqual(piped, "")
    }

    // MARK: - --tsl with a LOTL file, offline

    func testALOTLGivenWithTslReadsTheListsBesideItAndTakesTheirUnion() async throws {
        let container = try await signedContainer()
        let empty = folder.appendingPathComponent("empty").path
        let (code, report, err) = try await verify(
            container, ["--tsl", lotl("eu-lotl.xml"), "--tsl-cert", lotl("lotl-signer.cert.pem")], cache: empty)
        XCTAssertEqual(code, .success, "\(report) \(err)")
        XCTAssertEqual(report["status"] as? String, "VALID")

        // Only EE beside the LOTL: the TSA is anchored only by LV, so trust is not established.
        let offline = folder.appendingPathComponent("offline")
        try FileManager.default.createDirectory(at: offline, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: lotl("eu-lotl.xml"), toPath: offline.appendingPathComponent("eu-lotl.xml").path)
        try FileManager.default.copyItem(atPath: lotl("EE.xml"), toPath: offline.appendingPathComponent("EE.xml").path)
        let (partial, partialReport, _) = try await verify(
            container,
            [
                "--tsl", offline.appendingPathComponent("eu-lotl.xml").path,
                "--tsl-cert", lotl("lotl-signer.cert.pem"),
            ], cache: empty)
        XCTAssertEqual(partial, .trustNotEstablished, "\(partialReport)")
        let codes = ((partialReport["signatures"] as? [[String: Any]])?.first?["findings"] as? [[String: Any]] ?? [])
            .compactMap { $0["code"] as? String }
        XCTAssertTrue(codes.contains("signature-timestamp-untrusted"), "\(codes)")

        // A national list beside the LOTL signed by a key its pointer does not name is not used, and said so.
        try FileManager.default.removeItem(at: offline.appendingPathComponent("EE.xml"))
        try FileManager.default.copyItem(
            atPath: lotl("bad/EE-wrong-signer.xml"), toPath: offline.appendingPathComponent("EE.xml").path)
        let (wrong, _, wrongErr) = try await verify(
            container,
            [
                "--tsl", offline.appendingPathComponent("eu-lotl.xml").path,
                "--tsl-cert", lotl("lotl-signer.cert.pem"),
            ], cache: empty)
        XCTAssertEqual(wrong, .trustNotEstablished)
        XCTAssertTrue(wrongErr.contains("[tsl-signer-not-in-pointer]"), wrongErr)

        // The LOTL with a certificate that did not sign it.
        let (unpinned, unpinnedOut, _) = await tamga(
            ["verify", container, "--tsl", lotl("eu-lotl.xml"), "--tsl-cert", lotl("rogue-signer.cert.pem"), "--json"],
            cache: empty)
        XCTAssertEqual(unpinned, .inputRejected)
        XCTAssertTrue(unpinnedOut.contains("tsl-signer-not-pinned"), unpinnedOut)
    }

    // MARK: - bad downloads never replace a good list

    func testEveryBadNationalListKeepsTheLastGoodOne() async throws {
        let (first, _, firstOutput) = await update()
        XCTAssertEqual(first, .success, firstOutput)
        let goodEE = try TestEnvironment.bytes(cacheFolder.appendingPathComponent("EE.xml").path)

        let cases: [(String, () throws -> Void, String, String)] = [
            (
                "wrong signer", { try self.serve("bad/EE-wrong-signer.xml", as: "EE.xml") },
                "tsl-signer-not-in-pointer", "names for it"
            ),
            (
                "tampered", { try self.serve("bad/EE-tampered.xml", as: "EE.xml") }, "tsl-signature-invalid",
                "does not match"
            ),
            (
                "expired", { try self.serve("bad/EE-expired.xml", as: "EE.xml") }, "tsl-expired",
                "expired on 2025-07-01T00:00:00Z"
            ),
            (
                "an older list (rollback)", { try self.serve("bad/EE-older.xml", as: "EE.xml") }, "tsl-rollback",
                "sequence number 9, older than the cached one (10)"
            ),
            (
                "a list of lists", { try self.serve("bad/EE-is-lotl.xml", as: "EE.xml") }, "tsl-pointer-depth",
                "one level deep"
            ),
            ("HTTP 500", { try self.behave("EE.xml", "status", "500") }, "service-http-status", "500"),
            (
                "redirect loop", { try self.behave("EE.xml", "redirect") }, "service-response-rejected",
                "more than 5 redirects"
            ),
            ("timeout", { try self.behave("EE.xml", "slow") }, "service-unreachable", "timed out"),
            ("50 MB body", { try self.behave("EE.xml", "huge") }, "service-response-rejected", "50000000 bytes"),
            (
                "entity bomb",
                {
                    try Data(
                        ("<?xml version=\"1.0\"?><!DOCTYPE l [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]>"
                            + "<TrustServiceStatusList xmlns=\"http://uri.etsi.org/02231/v2#\">&b;</TrustServiceStatusList>")
                            .utf8
                    )
                    .write(to: self.www.appendingPathComponent("EE.xml"))
                }, "tsl-malformed", "DOCTYPE"
            ),
        ]
        for (name, setUp, code, words) in cases {
            try serve("EE.xml", as: "EE.xml")
            try setUp()
            let started = Date()
            let (exit, report, output) = await update(["--territory", "EE"])
            XCTAssertEqual(exit, .serviceFailed, "\(name): \(output)")
            XCTAssertEqual(report["ok"] as? Bool, false, name)
            let line = lines(report)["EE"] ?? [:]
            XCTAssertEqual(line["result"] as? String, "kept", "\(name): \(line)")
            XCTAssertEqual(line["sequenceNumber"] as? Int, 10, "the kept list is described: \(name)")
            let error = line["error"] as? [String: String] ?? [:]
            XCTAssertEqual(error["code"], code, "\(name): \(error)")
            XCTAssertTrue((error["message"] ?? "").contains(words), "\(name): \(error)")
            XCTAssertEqual(
                try TestEnvironment.bytes(cacheFolder.appendingPathComponent("EE.xml").path), goodEE,
                "\(name) replaced the good list")
            XCTAssertLessThan(Date().timeIntervalSince(started), 15, name)
        }

        // The list of lists: signed by an unpinned key, or expired; the cached one stays.
        let goodLOTL = try TestEnvironment.bytes(cacheFolder.appendingPathComponent("eu-lotl.xml").path)
        try serve("EE.xml", as: "EE.xml")
        for (fixture, code) in [
            ("bad/eu-lotl-unpinned.xml", "lotl-signer-not-pinned"), ("bad/eu-lotl-expired.xml", "tsl-expired"),
        ] {
            try serve(fixture, as: "eu-lotl.xml")
            let (exit, report, output) = await update()
            XCTAssertEqual(exit, .serviceFailed, output)
            let line = lines(report)["EU"] ?? [:]
            XCTAssertEqual(line["result"] as? String, "kept", "\(fixture): \(line)")
            XCTAssertEqual((line["error"] as? [String: String])?["code"], code, "\(fixture): \(line)")
            XCTAssertEqual(
                try TestEnvironment.bytes(cacheFolder.appendingPathComponent("eu-lotl.xml").path), goodLOTL, fixture)
            XCTAssertEqual(
                lines(report)["EE"]?["result"] as? String, "unchanged", "the kept LOTL's pointers are still followed")
        }
        // The list of lists' own download failing: the cached one stays, and so do its lists.
        for (behaviour, content, code, words) in [
            ("status", "500", "service-http-status", "500"),
            ("redirect", "", "service-response-rejected", "more than 5 redirects"),
            ("slow", "", "service-unreachable", "timed out"),
            ("huge", "", "service-response-rejected", "50000000 bytes"),
        ] {
            try serve("eu-lotl.xml", as: "eu-lotl.xml")
            try behave("eu-lotl.xml", behaviour, content)
            let started = Date()
            let (exit, report, output) = await update()
            XCTAssertEqual(exit, .serviceFailed, "\(behaviour): \(output)")
            let line = lines(report)["EU"] ?? [:]
            XCTAssertEqual(line["result"] as? String, "kept", "\(behaviour): \(line)")
            let error = line["error"] as? [String: String] ?? [:]
            XCTAssertEqual(error["code"], code, "\(behaviour): \(error)")
            XCTAssertTrue((error["message"] ?? "").contains(words), "\(behaviour): \(error)")
            XCTAssertEqual(
                try TestEnvironment.bytes(cacheFolder.appendingPathComponent("eu-lotl.xml").path), goodLOTL, behaviour)
            XCTAssertLessThan(Date().timeIntervalSince(started), 15, behaviour)
        }
        try serve("eu-lotl.xml", as: "eu-lotl.xml")

        // After all that, the cache still verifies.
        let container = try await signedContainer()
        let (verified, report, err) = try await verify(container)
        XCTAssertEqual(verified, .success, "\(report) \(err)")
    }

    func testAFirstUpdateThatFailsLeavesNoTrust() async throws {
        try serve("bad/eu-lotl-unpinned.xml", as: "eu-lotl.xml")
        let (exit, report, output) = await update()
        XCTAssertEqual(exit, .serviceFailed, output)
        let line = lines(report)["EU"] ?? [:]
        XCTAssertEqual(line["result"] as? String, "failed", "\(line)")
        XCTAssertTrue(
            ((line["error"] as? [String: String])?["message"] ?? "").contains("not signed by a pinned LOTL signer"),
            "\(line)")
        XCTAssertEqual(lines(report).count, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cacheFolder.appendingPathComponent("trust.json").path))

        // Without --lotl-cert the built-in EU signers are pinned: the test LOTL is refused.
        try serve("eu-lotl.xml", as: "eu-lotl.xml")
        let (builtIn, builtInOut, _) = await tamga([
            "trust", "update", "--lotl", serverURL.appendingPathComponent("eu-lotl.xml").absoluteString, "--json",
        ])
        XCTAssertEqual(builtIn, .serviceFailed)
        XCTAssertTrue(builtInOut.contains("lotl-signer-not-pinned"), builtInOut)
    }

    /// A cache folder that cannot be made is reported before anything is downloaded, naming the
    /// folder and XDG_CACHE_HOME (a plain message, not a failure per list).
    func testAnUnwritableCacheIsReportedNotIgnored() async throws {
        let blocked = try TestEnvironment.write("a file where the cache folder should be", named: "blocked", in: folder)
        let (code, out, err) = await tamga(
            [
                "trust", "update", "--lotl", serverURL.appendingPathComponent("eu-lotl.xml").absoluteString,
                "--proxy", serverURL.absoluteString, "--lotl-cert", lotl("lotl-signer.cert.pem"), "--json",
            ], cache: blocked)
        XCTAssertEqual(code, .writeFailed, out)
        XCTAssertTrue(out.contains("\"folder-not-writable\""), out)
        XCTAssertTrue(err.contains(blocked) && err.contains("XDG_CACHE_HOME"), err)
    }

    // MARK: - pivots

    func testANewLOTLSignerIsLearntFromThePivotListAndThePivotIsCached() async throws {
        try serve("pivot/eu-lotl.xml", as: "eu-lotl.xml")
        try serve("pivot/eu-lotl-pivot-1.xml", as: "eu-lotl-pivot-1.xml")
        let (code, report, output) = await update()
        XCTAssertEqual(code, .success, output)
        XCTAssertEqual(lines(report)["EU"]?["result"] as? String, "updated", output)
        XCTAssertEqual(lines(report)["EE"]?["result"] as? String, "updated", output)
        XCTAssertEqual(
            try TestEnvironment.bytes(cacheFolder.appendingPathComponent("eu-lotl-pivot-1.xml").path),
            try TestEnvironment.bytes(lotl("pivot/eu-lotl-pivot-1.xml")))
        // The cached pivot serves later loads, even when the server no longer has it.
        try FileManager.default.removeItem(at: www.appendingPathComponent("eu-lotl-pivot-1.xml"))
        let (again, _, againOutput) = await update()
        XCTAssertEqual(again, .success, againOutput)
        let container = try await signedContainer()
        let (verified, verifiedReport, err) = try await verify(container)
        XCTAssertEqual(verified, .success, "\(verifiedReport) \(err)")

        // Offline: the pivot beside the LOTL given with --tsl.
        let offline = folder.appendingPathComponent("offline-pivot")
        try FileManager.default.createDirectory(at: offline, withIntermediateDirectories: true)
        for (fixture, name) in [
            ("pivot/eu-lotl.xml", "eu-lotl.xml"), ("pivot/eu-lotl-pivot-1.xml", "eu-lotl-pivot-1.xml"),
            ("EE.xml", "EE.xml"), ("LV.xml", "LV.xml"),
        ] {
            try FileManager.default.copyItem(atPath: lotl(fixture), toPath: offline.appendingPathComponent(name).path)
        }
        let empty = folder.appendingPathComponent("empty").path
        let (offlineCode, offlineReport, offlineErr) = try await verify(
            container,
            [
                "--tsl", offline.appendingPathComponent("eu-lotl.xml").path,
                "--tsl-cert", lotl("lotl-signer.cert.pem"),
            ], cache: empty)
        XCTAssertEqual(offlineCode, .success, "\(offlineReport) \(offlineErr)")
    }

    func testPivotsInACircleAreRefusedAndKeepTheGoodList() async throws {
        let (first, _, firstOutput) = await update()
        XCTAssertEqual(first, .success, firstOutput)
        try serve("pivot/loop-lotl.xml", as: "eu-lotl.xml")
        try serve("pivot/loop-pivot-a.xml", as: "loop-pivot-a.xml")
        try serve("pivot/loop-pivot-b.xml", as: "loop-pivot-b.xml")
        let (code, report, output) = await update()
        XCTAssertEqual(code, .serviceFailed, output)
        let line = lines(report)["EU"] ?? [:]
        XCTAssertEqual(line["result"] as? String, "kept", "\(line)")
        XCTAssertEqual((line["error"] as? [String: String])?["code"], "lotl-pivot-depth", "\(line)")
        XCTAssertEqual(
            try TestEnvironment.bytes(cacheFolder.appendingPathComponent("eu-lotl.xml").path),
            try TestEnvironment.bytes(lotl("eu-lotl.xml")))
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: cacheFolder.appendingPathComponent("loop-pivot-a.xml").path),
            "unchecked pivots are not kept")
    }

    // MARK: - expiry

    func testAnExpiredPublishedListIsCachedOnlyWhenAllowedAndVerifyStillAsksForTheOption() async throws {
        try serve("bad/EE-expired.xml", as: "EE.xml")
        let (refused, refusedReport, refusedOutput) = await update(["--territory", "EE"])
        XCTAssertEqual(refused, .serviceFailed, refusedOutput)
        let refusedLine = lines(refusedReport)["EE"] ?? [:]
        XCTAssertEqual(refusedLine["result"] as? String, "failed", "\(refusedLine)")
        let error = refusedLine["error"] as? [String: String] ?? [:]
        XCTAssertEqual(error["code"], "tsl-expired")
        // What the message suggests exists where the message is read.
        XCTAssertTrue((error["message"] ?? "").contains("--allow-expired-trust (verify and trust update)"), "\(error)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: cacheFolder.appendingPathComponent("EE.xml").path))

        // All lists this time: the container's time-stamp is anchored by the LV list.
        let (allowed, allowedReport, allowedOutput) = await update(["--allow-expired-trust"])
        XCTAssertEqual(allowed, .success, allowedOutput)
        let line = lines(allowedReport)["EE"] ?? [:]
        XCTAssertEqual(line["result"] as? String, "updated", "\(line)")
        let warning = line["warning"] as? [String: String] ?? [:]
        XCTAssertEqual(warning["code"], "trust-list-expired", "\(line)")
        XCTAssertTrue(
            (warning["message"] ?? "").contains("EE trusted list expired on 2025-07-01T00:00:00Z"), "\(warning)")
        XCTAssertTrue(allowedOutput.contains("warning: The EE trusted list expired"), allowedOutput)
        XCTAssertEqual(
            try TestEnvironment.bytes(cacheFolder.appendingPathComponent("EE.xml").path),
            try TestEnvironment.bytes(lotl("bad/EE-expired.xml")))
        let (text, textOut, _) = await tamga([
            "trust", "update", "--lotl", serverURL.appendingPathComponent("eu-lotl.xml").absoluteString,
            "--proxy", serverURL.absoluteString, "--lotl-cert", lotl("lotl-signer.cert.pem"),
            "--allow-expired-trust",
        ])
        XCTAssertEqual(text, .success)
        XCTAssertTrue(textOut.contains("unchanged (expired: trust-list-expired)"), textOut)

        let container = try await signedContainer()
        let (strict, _, strictErr) = try await verify(container)
        XCTAssertEqual(strict, .trustNotEstablished, strictErr)
        let (lenient, lenientReport, lenientErr) = try await verify(container, ["--allow-expired-trust"])
        XCTAssertEqual(lenient, .success, "\(lenientReport) \(lenientErr)")
        XCTAssertEqual(lenientReport["status"] as? String, "WARNING")
    }

    func testAnExpiredCachedListIsRefusedUnlessAllowedAndTheReportSaysSo() async throws {
        let (first, _, firstOutput) = await update()
        XCTAssertEqual(first, .success, firstOutput)
        let container = try await signedContainer()
        // The EE list in the cache has since expired.
        let cachedEE = cacheFolder.appendingPathComponent("EE.xml")
        try FileManager.default.removeItem(at: cachedEE)
        try FileManager.default.copyItem(atPath: lotl("bad/EE-expired.xml"), toPath: cachedEE.path)
        let (refused, refusedReport, refusedErr) = try await verify(container)
        XCTAssertEqual(refused, .trustNotEstablished, "\(refusedReport)")
        XCTAssertTrue(refusedErr.contains("expired on 2025-07-01T00:00:00Z"), refusedErr)
        XCTAssertTrue(refusedErr.contains("--allow-expired-trust"), refusedErr)

        let (allowed, allowedReport, allowedErr) = try await verify(container, ["--allow-expired-trust"])
        XCTAssertEqual(allowed, .success, "\(allowedReport) \(allowedErr)")
        XCTAssertEqual(allowedReport["status"] as? String, "WARNING")
        let findings = allowedReport["findings"] as? [[String: Any]] ?? []
        XCTAssertEqual(findings.first?["code"] as? String, "trust-list-expired", "\(findings)")
        XCTAssertTrue(
            (findings.first?["message"] as? String ?? "").contains("EE trusted list expired on 2025-07-01T00:00:00Z"),
            "\(findings)")

        let (shown, shownOut, _) = await tamga(["trust", "show", "--json"])
        XCTAssertEqual(shown, .success)
        XCTAssertTrue(shownOut.contains("\"status\" : \"expired\""), shownOut)

        // An expired list of lists stops verify with the date.
        let cachedLOTL = cacheFolder.appendingPathComponent("eu-lotl.xml")
        try FileManager.default.removeItem(at: cachedLOTL)
        try FileManager.default.copyItem(atPath: lotl("bad/eu-lotl-expired.xml"), toPath: cachedLOTL.path)
        let (stopped, _, stoppedErr) = await tamga(["verify", container])
        XCTAssertEqual(stopped, .inputRejected)
        XCTAssertTrue(stoppedErr.contains("expired on 2025-07-01T00:00:00Z"), stoppedErr)

        // A cached list changed on disk is refused when loaded, never trusted.
        try FileManager.default.removeItem(at: cachedLOTL)
        try FileManager.default.copyItem(atPath: lotl("eu-lotl.xml"), toPath: cachedLOTL.path)
        try FileManager.default.removeItem(at: cachedEE)
        try FileManager.default.copyItem(atPath: lotl("bad/EE-tampered.xml"), toPath: cachedEE.path)
        let (tampered, _, tamperedErr) = try await verify(container)
        XCTAssertEqual(tampered, .trustNotEstablished)
        XCTAssertTrue(tamperedErr.contains("[tsl-signature-invalid]"), tamperedErr)
    }

    // MARK: - hostile input and the built-in signers

    func testAnOversizedListIsRefusedBeforeParsing() async throws {
        let huge = folder.appendingPathComponent("huge.xml")
        XCTAssertTrue(FileManager.default.createFile(atPath: huge.path, contents: nil))
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: UInt64(TrustedList.maximumSize + 10))  // sparse: no disk cost
        try handle.close()
        let document = try TestEnvironment.write("x", named: "x.txt", in: folder)
        let container = folder.appendingPathComponent("x.asice").path
        _ = await tamga(["container", "create", container, document, "-q"])
        let (code, out, _) = await tamga([
            "verify", container, "--tsl", huge.path, "--tsl-cert", lotl("lotl-signer.cert.pem"), "--json",
        ])
        XCTAssertEqual(code, .inputRejected)
        XCTAssertTrue(out.contains("tsl-too-large"), out)
        XCTAssertThrowsError(try TrustedList(data: Data(count: TrustedList.maximumSize + 1), signers: [])) {
            XCTAssertEqual(($0 as? TrustedListError)?.code, "tsl-too-large")
        }
    }

    func testTheBuiltInEULOTLSignersAreTheSixPinnedCertificates() {
        XCTAssertEqual(EULOTLSigners.certificates.count, 6)
        XCTAssertEqual(
            EULOTLSigners.certificates.map { $0.sha256Fingerprint.bytes.map { String(format: "%02X", $0) }.joined() },
            EULOTLSigners.fingerprints)
        XCTAssertEqual(
            EULOTLSigners.fingerprints.first, "D2064FDD70F6982DCC516B86D9D5C56AEA939417C624B2E478C0B29DE54F8474")
    }

    func testHelpAndManualCoverTrust() async {
        let (code, troff, _) = await tamga(["help", "--man"])
        let out = troff.replacingOccurrences(of: "\\-", with: "-")  // minus signs are written \- in troff
        XCTAssertEqual(code, .success)
        XCTAssertTrue(out.contains("trust update"), "manual page")
        XCTAssertTrue(out.contains("allow-expired-trust"), "manual page")
        let (bare, _, err) = await tamga(["trust"])
        XCTAssertEqual(bare, .usage)
        XCTAssertTrue(err.contains("trust needs a subcommand"), err)
        XCTAssertTrue(err.contains("  update") && err.contains("  show"), err)
    }
}
