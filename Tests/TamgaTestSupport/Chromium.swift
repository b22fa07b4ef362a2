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
    /// Where the page's last section (`#reproduce`: system, kernel, processor, the PIN note)
    /// ends, in CSS pixels from the top, laid out 1200 pixels wide as the screenshot is.
    public let footerBottom: Int
    /// Each signer's bar as drawn: where its last segment ends and where its total's label
    /// starts (x, in the chart's units), and both read back as milliseconds on the chart's axis.
    public let bars: [Bar]

    public struct Bar: Equatable {
        public let endX: Double, labelX: Double
        public let endMilliseconds: Double, labelMilliseconds: Double
    }

    public static let executable = "/usr/bin/chromium"

    struct Missing: Error, CustomStringConvertible {
        var description: String { "\(Chromium.executable) is missing: make test installs Debian's chromium package" }
    }

    static func run(_ arguments: [String]) throws -> TestEnvironment.ProcessResult {
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw Missing() }
        // Root (CI) needs --no-sandbox; a private profile folder so that runs never share state.
        let profile = try TestEnvironment.temporaryFolder("chromium-profile")
        defer { TestEnvironment.removeFolder(profile) }
        return try TestEnvironment.run(
            "/usr/bin/timeout",
            [
                "120", executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--user-data-dir=\(profile.path)", "--enable-logging=stderr", "--v=0",
            ] + arguments)
    }

    static func console(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") }.map(String.init)
    }

    public static func open(_ path: String, screenshot: String) throws -> Chromium {
        let url = URL(fileURLWithPath: path).absoluteString
        // The control: a page that logs is heard.
        let control = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(
            "chromium-control.html")
        try Data("<!DOCTYPE html><html><body><script>console.error('tamga-console-check')</script></body></html>".utf8)
            .write(to: control)
        defer { try? FileManager.default.removeItem(at: control) }
        let heard = try run(["--dump-dom", control.absoluteString])
        guard console(heard.error).contains(where: { $0.contains("tamga-console-check") }) else {
            throw NSError(
                domain: "Chromium", code: 1,
                userInfo: [NSLocalizedDescriptionKey: "the control page's console message was not seen: \(heard.error)"]
            )
        }
        let dom = try run(["--dump-dom", url])
        // The screenshot as `make demo` takes it (scripts/page-screenshot.py: the whole page).
        let shot = try TestEnvironment.run(
            "/usr/bin/python3", [TestEnvironment.script("page-screenshot.py"), path, screenshot])
        // The footer's place, measured here on a copy of our own that may run one script.
        let measuring = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(
            "chromium-measure.html")
        var page = try String(contentsOfFile: path, encoding: .utf8)
        if let policy = page.range(
            of: "<meta http-equiv=\"Content-Security-Policy\"[^>]*>", options: .regularExpression)
        {
            page.removeSubrange(policy)
        }
        let probe =
            "<script>document.body.setAttribute('data-footer-bottom', String(Math.ceil(document.getElementById('reproduce').getBoundingClientRect().bottom + window.scrollY)))</script>"
        try Data(page.replacingOccurrences(of: "</body>", with: probe + "</body>").utf8).write(to: measuring)
        defer { try? FileManager.default.removeItem(at: measuring) }
        let measured = try run(["--hide-scrollbars", "--window-size=1200,800", "--dump-dom", measuring.absoluteString])
            .output
        let footer =
            measured.range(of: "data-footer-bottom=\"").map {
                Int(measured[$0.upperBound...].prefix { $0.isNumber }) ?? 0
            } ?? 0
        let png = try Data(contentsOf: URL(fileURLWithPath: screenshot))
        guard png.count > 24, png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw NSError(
                domain: "Chromium", code: 2, userInfo: [NSLocalizedDescriptionKey: "no PNG screenshot: \(shot.error)"])
        }
        func big(_ offset: Int) -> Int { png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return Chromium(
            consoleMessages: console(dom.error) + console(shot.error), screenshotSize: (big(16), big(20)),
            segments: segments(dom.output), runDots: runDots(dom.output), footerBottom: footer, bars: bars(dom.output))
    }

    /// A number attribute of the first element in `markup` (`x="12.5"`).
    static func attribute(_ name: String, in markup: Substring) -> Double? {
        guard let start = markup.range(of: " \(name)=\"") else { return nil }
        return Double(markup[start.upperBound...].prefix { $0 != "\"" })
    }

    static func bars(_ dom: String) -> [Bar] {
        // The axis: tick labels (ms) at their x, in the phases chart only.
        let chart = dom.components(separatedBy: "class=\"runs-chart\"").first ?? dom
        let ticks: [(x: Double, value: Double)] = chart.components(separatedBy: "<text class=\"tick\"").dropFirst()
            .compactMap { piece in
                guard let x = attribute("x", in: Substring(piece)), let close = piece.firstIndex(of: ">") else {
                    return nil
                }
                let label = piece[piece.index(after: close)...].prefix { $0 != "<" }
                return Double(label).map { (x, $0) }
            }
        guard let first = ticks.first, let last = ticks.last, last.x > first.x else { return [] }
        let perUnit = (last.value - first.value) / (last.x - first.x)
        func milliseconds(_ x: Double) -> Double { first.value + (x - first.x) * perUnit }
        var result: [Bar] = []
        for group in chart.components(separatedBy: "<g class=\"signer\" data-signer=\"").dropFirst() {
            let body = group.components(separatedBy: "<g class=\"whisker\"").first ?? ""
            let ends = body.components(separatedBy: "<rect class=\"phase\"").dropFirst().compactMap {
                piece -> Double? in
                guard let x = attribute("x", in: Substring(piece)), let width = attribute("width", in: Substring(piece))
                else { return nil }
                return x + width
            }
            guard let end = ends.max(),
                let label = group.components(separatedBy: "<text class=\"total\"").dropFirst().first,
                let labelX = attribute("x", in: Substring(label)), let close = label.firstIndex(of: ">")
            else { continue }
            let text = label[label.index(after: close)...].prefix { $0 != "<" }
            guard let value = Double(text.replacingOccurrences(of: " ms", with: "")) else { continue }
            result.append(Bar(endX: end, labelX: labelX, endMilliseconds: milliseconds(end), labelMilliseconds: value))
        }
        return result
    }

    /// The page printed to PDF as Chromium prints it (its print CSS, no header or footer): each
    /// page's MediaBox in points.
    public static func printedPages(_ path: String, pdf: String) throws -> [[Double]] {
        let printed = try run([
            "--no-pdf-header-footer", "--print-to-pdf=\(pdf)", URL(fileURLWithPath: path).absoluteString,
        ])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: pdf))
        let text = String(decoding: bytes, as: UTF8.self)
        let boxes = text.components(separatedBy: "/MediaBox [").dropFirst().map { piece in
            (piece.components(separatedBy: "]").first ?? "").split(separator: " ").compactMap { Double($0) }
        }
        if boxes.isEmpty {
            throw NSError(
                domain: "Chromium", code: 3, userInfo: [NSLocalizedDescriptionKey: "no pages printed: \(printed.error)"]
            )
        }
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
            (group.components(separatedBy: "</g>").first ?? "").components(separatedBy: "<circle class=\"run\"").count
                - 1
        }
    }
}
