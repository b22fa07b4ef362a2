import Foundation

/// A page opened in headless Chromium (Debian's `chromium`, which `make test` installs): what it
/// logged to its console, a screenshot's size, and the compare report's chart as the browser
/// built it from the markup (`--dump-dom`). The console check is shown to work on a control page
/// that logs on purpose, so an empty list means the report logged nothing, not that the log was
/// not read.
public struct Chromium {
    public let consoleMessages: [String]
    public let screenshotSize: (width: Int, height: Int)
    /// `SIGNER:PHASE` of each bar segment (`rect.phase` in `g.signer`), in document order.
    public let segments: [String]
    /// The strip plot's dots per signer.
    public let runDots: [Int]

    public static let executable = "/usr/bin/chromium"

    struct Missing: Error, CustomStringConvertible {
        var description: String { "\(Chromium.executable) is missing: make test installs Debian's chromium package" }
    }

    static func run(_ arguments: [String]) throws -> TestEnvironment.ProcessResult {
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw Missing() }
        // Root (CI) needs --no-sandbox; a private profile folder so that runs never share state.
        let profile = try TestEnvironment.temporaryFolder("chromium-profile")
        defer { TestEnvironment.removeFolder(profile) }
        return try TestEnvironment.run("/usr/bin/timeout", ["120", executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                                            "--user-data-dir=\(profile.path)", "--enable-logging=stderr", "--v=0"] + arguments)
    }

    static func console(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") }.map(String.init)
    }

    public static func open(_ path: String, screenshot: String) throws -> Chromium {
        let url = URL(fileURLWithPath: path).absoluteString
        // The control: a page that logs is heard.
        let control = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("chromium-control.html")
        try Data("<!DOCTYPE html><html><body><script>console.error('tamga-console-check')</script></body></html>".utf8).write(to: control)
        defer { try? FileManager.default.removeItem(at: control) }
        let heard = try run(["--dump-dom", control.absoluteString])
        guard console(heard.error).contains(where: { $0.contains("tamga-console-check") }) else {
            throw NSError(domain: "Chromium", code: 1, userInfo: [NSLocalizedDescriptionKey: "the control page's console message was not seen: \(heard.error)"])
        }
        let dom = try run(["--dump-dom", url])
        let shot = try run(["--hide-scrollbars", "--window-size=1200,1700", "--screenshot=\(screenshot)", url])
        let png = try Data(contentsOf: URL(fileURLWithPath: screenshot))
        guard png.count > 24, png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw NSError(domain: "Chromium", code: 2, userInfo: [NSLocalizedDescriptionKey: "no PNG screenshot: \(shot.error)"])
        }
        func big(_ offset: Int) -> Int { png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return Chromium(consoleMessages: console(dom.error) + console(shot.error), screenshotSize: (big(16), big(20)),
                        segments: segments(dom.output), runDots: runDots(dom.output))
    }

    /// The page printed to PDF as Chromium prints it (its print CSS, no header or footer): each
    /// page's MediaBox in points.
    public static func printedPages(_ path: String, pdf: String) throws -> [[Double]] {
        let printed = try run(["--no-pdf-header-footer", "--print-to-pdf=\(pdf)", URL(fileURLWithPath: path).absoluteString])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: pdf))
        let text = String(decoding: bytes, as: UTF8.self)
        let boxes = text.components(separatedBy: "/MediaBox [").dropFirst().map { piece in
            (piece.components(separatedBy: "]").first ?? "").split(separator: " ").compactMap { Double($0) }
        }
        if boxes.isEmpty { throw NSError(domain: "Chromium", code: 3, userInfo: [NSLocalizedDescriptionKey: "no pages printed: \(printed.error)"]) }
        return boxes
    }

    /// The bars as the browser's DOM has them.
    static func segments(_ dom: String) -> [String] {
        var result: [String] = []
        let groups = dom.components(separatedBy: "<g class=\"signer\" data-signer=\"").dropFirst()
        for group in groups {
            let signer = group.prefix { $0 != "\"" }
            let body = group.components(separatedBy: "</g>").first ?? ""
            for piece in body.components(separatedBy: "<rect class=\"phase\" data-phase=\"").dropFirst() {
                result.append("\(signer):\(piece.prefix { $0 != "\"" })")
            }
        }
        return result
    }

    static func runDots(_ dom: String) -> [Int] {
        dom.components(separatedBy: "<g class=\"signer-runs\"").dropFirst().map { group in
            (group.components(separatedBy: "</g>").first ?? "").components(separatedBy: "<circle class=\"run\"").count - 1
        }
    }
}
