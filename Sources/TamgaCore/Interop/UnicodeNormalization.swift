internal import CICU

/// Unicode normalisation through Debian's ICU (the Swift standard library has no compatibility
/// or decomposed forms in its public API, and FoundationEssentials none at all).
public enum UnicodeNormalization {
    /// `text` in NFKC; `text` itself if ICU fails (it only fails on memory exhaustion).
    public static func nfkc(_ text: String) -> String { normalize(text, CICU_NFKC) }

    /// `text` in NFD (accents as combining marks after their letters).
    public static func nfd(_ text: String) -> String { normalize(text, CICU_NFD) }

    /// `text` as a reader would compare it: NFKC (full-width and other compatibility forms
    /// become plain letters), accents dropped (NFD, then every non-spacing mark removed), lower
    /// case. What Foundation's `folding(options: [.caseInsensitive, .diacriticInsensitive,
    /// .widthInsensitive])` after `precomposedStringWithCompatibilityMapping` gave.
    public static func folded(_ text: String) -> String {
        let marksDropped = nfd(nfkc(text)).unicodeScalars.filter { $0.properties.generalCategory != .nonspacingMark }
        return String(String.UnicodeScalarView(marksDropped)).lowercased()
    }

    private static func normalize(_ text: String, _ form: cicu_form) -> String {
        let source = Array(text.utf16)
        guard source.count < Int32.max / 4 else { return text }
        // NFKC can expand (ﬃ is three letters, ﷺ eighteen): ask again with the length needed.
        var capacity = max(16, source.count * 2)
        for _ in 0..<2 {
            var tooSmall: Int32 = 0
            var output = [UInt16](repeating: 0, count: capacity)
            let length = output.withUnsafeMutableBufferPointer { out in
                source.withUnsafeBufferPointer {
                    cicu_normalize(form, $0.baseAddress, Int32($0.count), out.baseAddress, Int32(capacity), &tooSmall)
                }
            }
            if tooSmall != 0 {
                capacity = Int(length) + 1
                continue
            }
            guard length >= 0, Int(length) <= capacity else { return text }
            return String(decoding: output[0..<Int(length)], as: UTF16.self)
        }
        return text
    }
}
