import FoundationEssentials

/// A URL's host in the one form tamga compares, resolves and checks certificates against.
/// `rp-api.smart-id.com.` (the absolute form, with its root dot) and `RP-API.Smart-ID.com` name
/// the same host as `rp-api.smart-id.com`; compared as written, the first two would miss the
/// Smart-ID pin (`ServicePins`) and fall back to the system's trust. So every host is put in
/// this form first, and the pin lookup, the proxy bypass list, the connection, SNI and the
/// certificate's name check all see the same text.
public enum HostName {
    /// The host in ASCII lower case with one trailing dot dropped; nil for what is not a plain
    /// ASCII host name or IP address: empty labels (`a..b`, two trailing dots, a leading dot),
    /// a label over 63 bytes or a name over 253, and any byte outside letters, digits, `-`, `_`
    /// and `.` — a non-ASCII name (`smart-id.com。`, whose ideographic full stop IDNA reads as a
    /// dot) would need IDNA mapping before it could be compared, which tamga does not do, so it
    /// is refused rather than compared wrongly. IPv6 literals (with `:`, as `URL.host` gives them,
    /// without brackets) keep their text, lower-cased.
    public static func canonical(_ host: String) -> String? {
        var bytes = Array(host.utf8)
        if bytes.contains(UInt8(ascii: ":")) {
            guard !bytes.isEmpty, bytes.count <= 45,
                bytes.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else {
                return nil
            }
            return String(decoding: bytes.map(lowercased), as: UTF8.self)
        }
        if bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
        guard !bytes.isEmpty, bytes.count <= 253 else { return nil }
        var label = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard label > 0 else { return nil }
                label = 0
                continue
            }
            guard isLetterOrDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") else { return nil }
            label += 1
            guard label <= 63 else { return nil }
        }
        guard label > 0 else { return nil }
        return String(decoding: bytes.map(lowercased), as: UTF8.self)
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
