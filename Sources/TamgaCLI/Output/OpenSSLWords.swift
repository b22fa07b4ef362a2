/// OpenSSL's own error strings, as they reach findings through the checks that call it
/// (`error:13800065:OCSP routines::certificate verify error`, `unable to get local issuer
/// certificate`), said in words a person acts on. The text report uses these;
/// `--verbose` and `--json` keep OpenSSL's text, which is what one searches for.
enum OpenSSLWords {
    /// X.509 verification results (X509_verify_cert_error_string) and what they mean here.
    static let verification: [(String, String)] = [
        (
            "unable to get local issuer certificate",
            "its issuer's certificate is not among the trusted or given certificates (add it with --certs, or trust its CA)"
        ),
        (
            "unable to get issuer certificate",
            "its issuer's certificate is not among the trusted or given certificates (add it with --certs, or trust its CA)"
        ),
        ("self-signed certificate in certificate chain", "the chain ends at a root certificate that is not trusted"),
        ("self signed certificate in certificate chain", "the chain ends at a root certificate that is not trusted"),
        ("self-signed certificate", "the certificate is self-signed and not itself trusted"),
        ("certificate has expired", "a certificate of the chain had expired at that time"),
        ("certificate is not yet valid", "a certificate of the chain was not yet valid at that time"),
        (
            "unsupported certificate purpose",
            "a certificate of the chain is not allowed for this use (its extended key usage)"
        ),
        ("certificate signature failure", "a certificate's own signature does not verify under its issuer's key"),
    ]

    /// OpenSSL error-queue reasons (`error:XXXXXXXX:LIBRARY::REASON`), by library and reason.
    static func reason(library: String, _ reason: String) -> String {
        switch (library, reason) {
        case ("OCSP routines", "certificate verify error"):
            "the OCSP responder's certificate does not chain to a trusted CA"
        case ("OCSP routines", "signature failure"): "the OCSP response's signature does not verify"
        case ("time stamp routines", "message imprint mismatch"): "the time-stamp covers other bytes than these"
        case ("time stamp routines", "certificate verify error"):
            "the time-stamping authority's certificate does not chain to a trusted CA"
        case ("time stamp routines", "signature failure"): "the time-stamp's signature does not verify"
        case (_, "signature failure"), (_, "bad signature"): "the signature does not verify"
        default: "\(library.replacingAll(" routines", with: "")): \(reason)"
        }
    }

    /// `text` with every OpenSSL string it holds said in words.
    static func plain(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        // error:HHHHHHHH:LIBRARY:FUNCTION:REASON, the reason up to a separator of the message.
        while let start = Self.firstRange(of: "error:", in: rest) {
            result += rest[..<start.lowerBound]
            let after = rest[start.upperBound...]
            let fields = after.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4, fields[0].count == 8, fields[0].allSatisfy({ $0.isHexDigit }) else {
                result += "error:"
                rest = after
                continue
            }
            let reasonText = fields[3].prefix { !";)(\n".contains($0) }
            let trimmed = reasonText.trimmingSuffix(while: { $0 == " " || $0 == "," || $0 == "." })
            result += reason(library: String(fields[1]), String(trimmed))
            rest = fields[3][trimmed.endIndex...]
        }
        result += rest
        // Only where OpenSSL's text was appended (after ": " or "("), never tamga's own words.
        for (raw, words) in verification where result.contains(raw) {
            result = result.replacingAll(": " + raw, with: ": " + words).replacingAll("(" + raw, with: "(" + words)
        }
        return result
    }
}

extension OpenSSLWords {
    /// Where `needle` first starts in `haystack` (messages are short: a plain scan).
    static func firstRange(of needle: String, in haystack: Substring) -> Range<Substring.Index>? {
        var index = haystack.startIndex
        while index < haystack.endIndex {
            if haystack[index...].hasPrefix(needle) { return index..<haystack.index(index, offsetBy: needle.count) }
            index = haystack.index(after: index)
        }
        return nil
    }
}

private extension Substring {
    func trimmingSuffix(while predicate: (Character) -> Bool) -> Substring {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return self[startIndex..<end]
    }
}
