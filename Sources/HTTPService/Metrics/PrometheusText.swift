import FoundationEssentials

/// The Prometheus text exposition format 0.0.4, as the services' `GET /metrics` writes it:
/// families with their HELP and TYPE lines, samples with escaped labels, numbers as Go's
/// strconv writes them. Shared so that the co-signer and the validation service agree on it.
public struct PrometheusText: Sendable {
    public private(set) var text = ""
    /// The content type a scraper expects for this text.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public init() {}

    public mutating func family(_ name: String, _ type: String, _ help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    public mutating func sample(_ name: String, _ labels: [(String, String)], _ value: String) {
        let rendered = labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",")
        text += labels.isEmpty ? "\(name) \(value)\n" : "\(name){\(rendered)} \(value)\n"
    }

    /// The `_bucket`, `_sum` and `_count` samples of one histogram.
    public mutating func histogram(_ name: String, _ labels: [(String, String)], _ histogram: LatencyHistogram) {
        for (index, bound) in histogram.bounds.enumerated() {
            sample(name + "_bucket", labels + [("le", Self.number(bound))], String(histogram.buckets[index]))
        }
        sample(name + "_bucket", labels + [("le", "+Inf")], String(histogram.count))
        sample(name + "_sum", labels, Self.number(histogram.sum))
        sample(name + "_count", labels, String(histogram.count))
    }

    /// The answer to a scrape.
    public var response: HTTPResponse {
        HTTPResponse(status: 200, headers: ["Content-Type": Self.contentType], body: Array(text.utf8))
    }

    /// A label value as the format wants it: backslash, double quote and line feed escaped.
    public static func escape(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A float as Go's strconv would write it for Prometheus ("0.005", "1", "2.5").
    public static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// Cumulative latency buckets, as a Prometheus histogram counts them.
public struct LatencyHistogram: Sendable {
    public let bounds: [Double]
    public private(set) var buckets: [UInt64]
    public private(set) var count: UInt64 = 0
    public private(set) var sum: Double = 0

    /// Bucket bounds in seconds, ascending.
    public init(bounds: [Double]) {
        self.bounds = bounds
        buckets = [UInt64](repeating: 0, count: bounds.count)
    }

    public mutating func record(_ seconds: Double) {
        for (index, bound) in bounds.enumerated() where seconds <= bound { buckets[index] += 1 }
        count += 1
        sum += seconds
    }
}
