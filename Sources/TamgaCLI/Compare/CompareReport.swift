import ASiC
import FoundationEssentials
import Glibc
import TamgaSupport

/// `tamga compare --report FILE`: the comparison as a picture a person can judge. `.html` is
/// one self-contained page (inline CSS and SVG, no script, nothing fetched, printable on A4):
/// a stacked bar per signer, as long as its median total and split by the phases, with the
/// total's p95 as a whisker, a strip plot of every run's total, the properties that decide a choice side by side, and how the
/// report can be reproduced. `.svg` is the bar chart alone, for slides and README files.
///
/// Both are made from the JSON that `--json` prints (decoded into `Model`), never from the
/// command's own values, so the report and the JSON cannot disagree.
enum CompareReport {
    enum Format: Equatable {
        case html, svg
        init?(path: String) {
            switch path.fileExtension.lowercased() {
            case "html", "htm": self = .html
            case "svg": self = .svg
            default: return nil
            }
        }
    }

    struct Model: Decodable {
        struct Statistic: Decodable { let median: Double, p95: Double }
        struct Failure: Decodable { let code: String, message: String }
        struct Column: Decodable {
            let with: String, label: String, location: String, algorithm: String, subject: String
            let phases: [String: Statistic]
            let runs: [[String: Double]]?
            let properties: SignerProperties?
            let signatureValueBytes: Int?, signatureFileBytes: Int?
            let validation: String?, output: String?
            let error: Failure?
        }
        struct Combined: Decodable { let path: String, signatures: Int, validation: String }
        let container: String, runs: Int, profile: String
        let signers: [Column]
        let combined: Combined?
        let tamga: String, date: String, command: [String]
        let machine: MachineDescription
    }

    /// The phases in the order they happen, with their colours: Okabe and Ito's palette, told
    /// apart with any of the common colour vision deficiencies, each dark enough for white to
    /// be unneeded (labels are beside the bars, not on them).
    static let phases: [(key: String, title: String, colour: String)] = [
        ("prepare", "prepare", "#0072B2"), ("unlock", "PIN/unlock", "#E69F00"), ("sign", "signature", "#009E73"),
        ("timeStamp", "TSA", "#CC79A7"), ("ocsp", "OCSP", "#56B4E9"), ("write", "write", "#D55E00"),
    ]

    static func model(_ json: [UInt8]) throws -> Model {
        try JSONDecoder().decode(Model.self, from: Data(json))
    }

    /// Renders `json` (compare's `--json` output) as `format` and writes it to `path` beside
    /// itself and renamed into place, so a failed report never leaves half a file.
    static func write(json: [UInt8], to path: String, force: Bool) throws {
        guard let format = Format(path: path) else { throw UsageError("--report takes a file ending in .html or .svg") }
        let model = try model(json)
        let text = format == .html ? html(model) : svg(model, standalone: true)
        if !force && FileManager.default.fileExists(atPath: path) { throw ContainerError.alreadyExists(path) }
        try AtomicFile.write(Array(text.utf8), to: path)
    }

    // MARK: - The bar chart

    /// Milliseconds for people: "0.42", "15.8", "122".
    static func milliseconds(_ seconds: Double) -> String {
        let value = seconds * 1000
        if value < 1 { return NumberText.fixed(value, digits: 2) }
        if value < 100 { return NumberText.fixed(value, digits: 1) }
        return NumberText.fixed(value, digits: 0)
    }

    /// An axis label: as many decimals as the step needs ("0", "20", "0.5", "0.02").
    static func tickLabel(_ seconds: Double, step: Double) -> String {
        let stepMilliseconds = step * 1000
        let digits = stepMilliseconds >= 1 ? 0 : stepMilliseconds >= 0.1 ? 1 : 2
        return NumberText.fixed(seconds * 1000, digits: digits)
    }

    /// A round step for about `count` ticks up to `maximum`: 1, 2 or 5 times a power of ten.
    static func tickStep(_ maximum: Double, count: Int = 6) -> Double {
        guard maximum > 0, maximum.isFinite else { return 1 }
        let raw = maximum / Double(count)
        var power = 1.0
        while power * 10 <= raw { power *= 10 }
        while power > raw { power /= 10 }
        for factor in [1.0, 2.0, 5.0, 10.0] where power * factor >= raw { return power * factor }
        return power * 10
    }

    static let chartWidth = 960.0, labelWidth = 250.0, plotWidth = 650.0, rowHeight = 46.0, barHeight = 22.0

    /// The stacked bars. `standalone` adds the XML declaration and namespace an .svg file needs.
    static func svg(_ model: Model, standalone: Bool) -> String {
        let scaleMax =
            model.signers.compactMap { column in column.phases["total"].map { max($0.p95, $0.median) } }.max() ?? 0
        let step = tickStep(scaleMax)
        let axisMax = max(step, (scaleMax / step).rounded(.up) * step)
        let x = { (seconds: Double) -> Double in labelWidth + seconds / axisMax * plotWidth }
        let top = 56.0
        let height = top + Double(model.signers.count) * rowHeight + 70
        var out = ""
        if standalone { out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" }
        out +=
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"phases-chart\" viewBox=\"0 0 \(number(chartWidth)) \(number(height))\" "
            + "width=\"\(number(chartWidth))\" height=\"\(number(height))\" role=\"img\" aria-labelledby=\"phases-title\" "
            + "font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"13\" fill=\"#1a1a1a\">\n"
        out +=
            "<title id=\"phases-title\">\(escape("Median time per phase for \(model.container), \(model.profile), \(model.runs) run(s); whisker: the total's p95"))</title>\n"
        out += "<rect x=\"0\" y=\"0\" width=\"\(number(chartWidth))\" height=\"\(number(height))\" fill=\"#ffffff\"/>\n"
        out +=
            "<text x=\"\(number(labelWidth))\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Median total (ms), split by the phases' medians; whisker to its p95</text>\n"
        // The grid and the axis.
        var tick = 0.0
        while tick <= axisMax + step / 2 {
            let position = x(tick)
            out +=
                "<line class=\"grid\" x1=\"\(number(position))\" y1=\"\(number(top - 8))\" x2=\"\(number(position))\" y2=\"\(number(top + Double(model.signers.count) * rowHeight))\" stroke=\"#d0d0d0\" stroke-width=\"1\"/>\n"
            out +=
                "<text class=\"tick\" x=\"\(number(position))\" y=\"\(number(top + Double(model.signers.count) * rowHeight + 18))\" text-anchor=\"middle\">\(escape(tickLabel(tick, step: step)))</text>\n"
            tick += step
        }
        for (index, column) in model.signers.enumerated() {
            let y = top + Double(index) * rowHeight
            out += "<g class=\"signer\" data-signer=\"\(index)\" data-with=\"\(escape(column.with))\">\n"
            out +=
                "<text class=\"signer-name\" x=\"\(number(labelWidth - 10))\" y=\"\(number(y + 15))\" text-anchor=\"end\" font-weight=\"bold\">\(escape(shortened(column.with, 28)))</text>\n"
            out +=
                "<text class=\"signer-kind\" x=\"\(number(labelWidth - 10))\" y=\"\(number(y + 31))\" text-anchor=\"end\" font-size=\"11\" fill=\"#444444\">\(escape(shortened(column.location, 38)))</text>\n"
            if let error = column.error {
                out +=
                    "<text class=\"failed\" x=\"\(number(labelWidth + 6))\" y=\"\(number(y + 20))\" fill=\"#a00000\">\(escape("FAILED: \(error.code)"))<title>\(escape(error.message))</title></text>\n"
                out += "</g>\n"
                continue
            }
            // The bar is as long as the total's median, which its label gives: the phases' own
            // medians need not add up to it (each is the middle of its own runs), so they split the
            // bar in their proportions. Each segment's title gives the phase's own median and p95.
            let phaseSum = phases.reduce(0.0) { $0 + max(0, column.phases[$1.key]?.median ?? 0) }
            let barTotal = column.phases["total"]?.median ?? phaseSum
            let share = phaseSum > 0 ? barTotal / phaseSum : 1
            var start = 0.0
            for phase in phases {
                guard let statistic = column.phases[phase.key], statistic.median > 0 else { continue }
                let width = max(0.5, statistic.median * share / axisMax * plotWidth)
                out +=
                    "<rect class=\"phase\" data-phase=\"\(phase.key)\" x=\"\(number(x(start)))\" y=\"\(number(y + 4))\" width=\"\(number(width))\" height=\"\(number(barHeight))\" fill=\"\(phase.colour)\">"
                    + "<title>\(escape("\(column.with): \(phase.title) \(milliseconds(statistic.median)) ms median, \(milliseconds(statistic.p95)) ms p95"))</title></rect>\n"
                start += statistic.median * share
            }
            if let total = column.phases["total"] {
                let middle = y + 4 + barHeight / 2
                out +=
                    "<g class=\"whisker\"><line x1=\"\(number(x(total.median)))\" y1=\"\(number(middle))\" x2=\"\(number(x(total.p95)))\" y2=\"\(number(middle))\" stroke=\"#1a1a1a\" stroke-width=\"1.5\"/>"
                    + "<line x1=\"\(number(x(total.p95)))\" y1=\"\(number(middle - 6))\" x2=\"\(number(x(total.p95)))\" y2=\"\(number(middle + 6))\" stroke=\"#1a1a1a\" stroke-width=\"1.5\"/>"
                    + "<title>\(escape("\(column.with): total \(milliseconds(total.median)) ms median, \(milliseconds(total.p95)) ms p95"))</title></g>\n"
                out +=
                    "<text class=\"total\" x=\"\(number(x(max(total.p95, start)) + 8))\" y=\"\(number(middle + 4))\">\(escape("\(milliseconds(total.median)) ms"))</text>\n"
            }
            out += "</g>\n"
        }
        // The legend, in the bars' order.
        var legendX = labelWidth
        let legendY = top + Double(model.signers.count) * rowHeight + 40
        for phase in phases {
            out +=
                "<g class=\"legend\" data-phase=\"\(phase.key)\"><rect x=\"\(number(legendX))\" y=\"\(number(legendY - 11))\" width=\"14\" height=\"14\" fill=\"\(phase.colour)\"/>"
                + "<text x=\"\(number(legendX + 19))\" y=\"\(number(legendY))\">\(escape(phase.title))</text></g>\n"
            legendX += 22 + Double(phase.title.count) * 8 + 18
        }
        out += "</svg>\n"
        return out
    }

    /// Every run's total, a dot per run on its signer's line, so spread and outliers show.
    static func stripPlot(_ model: Model) -> String {
        let totals = model.signers.map { ($0.runs ?? []).compactMap { $0["total"] } }
        let maximum = totals.flatMap { $0 }.max() ?? 0
        let step = tickStep(maximum)
        let axisMax = max(step, (maximum / step).rounded(.up) * step)
        let x = { (seconds: Double) -> Double in labelWidth + seconds / axisMax * plotWidth }
        let top = 40.0, row = 34.0
        let height = top + Double(model.signers.count) * row + 34
        var out =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"runs-chart\" viewBox=\"0 0 \(number(chartWidth)) \(number(height))\" width=\"\(number(chartWidth))\" "
            + "height=\"\(number(height))\" role=\"img\" aria-labelledby=\"runs-title\" font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"13\" fill=\"#1a1a1a\">\n"
        out += "<title id=\"runs-title\">Every run's total time per signer</title>\n"
        out +=
            "<text x=\"\(number(labelWidth))\" y=\"20\" font-size=\"15\" font-weight=\"bold\">Every run's total (ms)</text>\n"
        var tick = 0.0
        while tick <= axisMax + step / 2 {
            out +=
                "<line class=\"grid\" x1=\"\(number(x(tick)))\" y1=\"\(number(top - 6))\" x2=\"\(number(x(tick)))\" y2=\"\(number(top + Double(model.signers.count) * row))\" stroke=\"#d0d0d0\"/>\n"
            out +=
                "<text class=\"tick\" x=\"\(number(x(tick)))\" y=\"\(number(top + Double(model.signers.count) * row + 18))\" text-anchor=\"middle\">\(escape(tickLabel(tick, step: step)))</text>\n"
            tick += step
        }
        for (index, column) in model.signers.enumerated() {
            let y = top + Double(index) * row + row / 2
            out += "<g class=\"signer-runs\" data-signer=\"\(index)\">"
            out +=
                "<text x=\"\(number(labelWidth - 10))\" y=\"\(number(y + 4))\" text-anchor=\"end\" font-weight=\"bold\">\(escape(shortened(column.with, 28)))</text>\n"
            for (run, total) in totals[index].enumerated() {
                // A fixed jitter by run number: the same report draws the same picture.
                let offset = Double((run * 7) % 9 - 4) * 2.2
                out +=
                    "<circle class=\"run\" cx=\"\(number(x(total)))\" cy=\"\(number(y + offset))\" r=\"4\" fill=\"#0072B2\" fill-opacity=\"0.75\" stroke=\"#1a1a1a\" stroke-width=\"0.6\">"
                    + "<title>\(escape("\(column.with): run \(run + 1), \(milliseconds(total)) ms"))</title></circle>\n"
            }
            out += "</g>\n"
        }
        out += "</svg>\n"
        return out
    }

    // MARK: - The page

    static func html(_ model: Model) -> String {
        var rows: [(String, [String])] = [
            (
                "Where the key lives",
                model.signers.map { $0.properties?.keyLocation ?? ($0.location.isEmpty ? "—" : $0.location) }
            ),
            ("Can the key leave it?", model.signers.map { $0.properties?.keyLeaves ?? "—" }),
            ("What unlocks it", model.signers.map { $0.properties?.unlock ?? "—" }),
            ("Tries before it locks", model.signers.map { $0.properties?.triesBeforeLock ?? "—" }),
            ("Who can unblock it", model.signers.map { $0.properties?.unblock ?? "—" }),
            ("Certificate", model.signers.map { $0.subject.isEmpty ? "—" : $0.subject }),
            (
                "Qualification",
                model.signers.map { column in
                    guard let qualification = column.properties?.qualification else { return "—" }
                    return
                        "\(qualification.qualified ? "qualified (QC)" : "not qualified") · \(qualification.qscd ? "on a QSCD" : "no QSCD"); from \(qualification.source)"
                }
            ),
            (
                "Signature",
                model.signers.map { column in
                    let text =
                        (column.properties?.signature ?? column.algorithm)
                        + (column.signatureFileBytes.map { ", \($0) B of XML" } ?? "")
                    return text.isEmpty ? "—" : text
                }
            ),
            ("With the device alone", model.signers.map { $0.properties?.deviceAlone ?? "—" }),
            ("With the server alone", model.signers.map { $0.properties?.serverAlone ?? "—" }),
            (
                "Validation",
                model.signers.map { $0.error.map { "FAILED: \($0.code): \($0.message)" } ?? $0.validation ?? "—" }
            ),
        ]
        rows.append(
            (
                "Median total",
                model.signers.map {
                    $0.phases["total"].map { "\(milliseconds($0.median)) ms (p95 \(milliseconds($0.p95)) ms)" } ?? "—"
                }
            ))
        var page = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
            <title>\(escape("tamga compare: \(model.container)"))</title>
            <style>
            body { font-family: "DejaVu Sans", Verdana, sans-serif; color: #1a1a1a; background: #ffffff; margin: 24px; font-size: 14px; line-height: 1.4; }
            h1 { font-size: 22px; margin: 0 0 4px 0; }
            h2 { font-size: 17px; margin: 28px 0 8px 0; }
            p.lead { color: #333333; margin: 0 0 16px 0; }
            svg { max-width: 100%; height: auto; display: block; }
            table { border-collapse: collapse; width: 100%; }
            th, td { border: 1px solid #bdbdbd; padding: 6px 8px; text-align: left; vertical-align: top; }
            thead th { background: #eeeeee; }
            tbody th { background: #f7f7f7; width: 16%; font-weight: bold; }
            td.failed { color: #a00000; }
            dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; }
            dt { font-weight: bold; }
            dd { margin: 0; }
            code { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; overflow-wrap: anywhere; }
            @page { size: A4; margin: 14mm; }
            @media print {
              body { margin: 0; font-size: 10pt; }
              section { break-inside: avoid; }
              th, td { padding: 3px 5px; }
            }
            </style>
            </head>
            <body>
            <h1>\(escape("tamga compare: \(model.container)"))</h1>
            <p class="lead">\(escape("\(model.signers.count) signer(s), \(model.profile) signatures, \(model.runs) run(s) each, median and p95 of each phase."))</p>
            <section id="phases">
            <h2>Time per phase</h2>

            """
        page += svg(model, standalone: false)
        page += "</section>\n<section id=\"runs\">\n<h2>Every run</h2>\n" + stripPlot(model) + "</section>\n"
        page +=
            "<section id=\"properties\">\n<h2>What each protects against</h2>\n<table class=\"properties\">\n<thead><tr><th></th>"
        for column in model.signers { page += "<th scope=\"col\">\(escape(column.with))</th>" }
        page += "</tr></thead>\n<tbody>\n"
        for (title, cells) in rows {
            page += "<tr><th scope=\"row\">\(escape(title))</th>"
            for (index, cell) in cells.enumerated() {
                page +=
                    model.signers[index].error != nil && title == "Validation"
                    ? "<td class=\"failed\">\(escape(cell))</td>" : "<td>\(escape(cell))</td>"
            }
            page += "</tr>\n"
        }
        page += "</tbody>\n</table>\n"
        if let combined = model.combined {
            page +=
                "<p>\(escape("Combined: \(combined.path) holds \(combined.signatures) signature(s): \(combined.validation)."))</p>\n"
        }
        page += "</section>\n<section id=\"reproduce\">\n<h2>How to make this report again</h2>\n<dl>\n"
        let reproduce = [
            ("Command", shellWords(model.command)), ("tamga", model.tamga), ("Date", model.date),
            ("System", model.machine.system), ("Kernel", model.machine.kernel),
            ("Processor", "\(model.machine.processor), \(model.machine.cores) core(s) online"),
        ]
        for (title, value) in reproduce {
            page +=
                "<dt>\(escape(title))</dt><dd>" + (title == "Command" ? "<code>\(escape(value))</code>" : escape(value))
                + "</dd>\n"
        }
        page +=
            "</dl>\n<p>PINs came from the environment or a prompt and are not in the command. The machine is shared: compare signers within one report, not across reports.</p>\n</section>\n</body>\n</html>\n"
        return page
    }

    // MARK: - Text

    /// Text for XML and HTML: the five markup characters as references, controls dropped
    /// (a name a relying party chose is shown, never interpreted).
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n": out.unicodeScalars.append(" ")
            default:
                // XML 1.0 allows no C0 controls but tab and line ends, nor U+FFFE/U+FFFF.
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0xFFFE
                    || scalar.value == 0xFFFF
                {
                    continue
                }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// At most `length` characters: a path's folders become "…/" first (`key:…/ec-p256.p12`),
    /// then the middle goes, so both the kind of signer and its name stay readable.
    static func shortened(_ text: String, _ length: Int) -> String {
        guard text.count > length else { return text }
        if let slash = text.lastIndex(of: "/"), let colon = text.firstIndex(of: ":"), colon < slash {
            let folded = String(text[...colon]) + "…" + String(text[slash...])
            if folded.count <= length { return folded }
        }
        let keep = length - 1
        return String(text.prefix(keep - keep / 3)) + "…" + String(text.suffix(keep / 3))
    }

    /// The command as a POSIX shell would take it back: words with anything but safe characters
    /// in single quotes.
    static func shellWords(_ words: [String]) -> String {
        words.map { word in
            let safe =
                !word.isEmpty
                && word.unicodeScalars.allSatisfy {
                    $0.isASCII
                        && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
                            || "-_./:=,@+%".unicodeScalars.contains($0))
                }
            return safe ? word : "'" + word.replacingAll("'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }

    /// A coordinate with at most two decimals ("12.5", "300").
    static func number(_ value: Double) -> String {
        let text = NumberText.fixed(value, digits: 2)
        guard text.contains(".") else { return text }
        var trimmed = Substring(text)
        while trimmed.hasSuffix("0") { trimmed = trimmed.dropLast() }
        if trimmed.hasSuffix(".") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}
