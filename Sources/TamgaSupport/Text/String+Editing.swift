/// The string edits the modules used from Foundation's `NSString` side, on Unicode scalars
/// rather than on Swift's grapheme clusters: a `\` or `/` followed by a combining mark is still
/// found, as it was before (a check on hostile names must not be blinded by one).
/// `@inlinable`: called from other modules, a generic extension would otherwise run
/// unspecialized, looking up witness tables and metadata at run time (a tenth of `tamga
/// readers`' start-up).
extension StringProtocol {
    /// Without leading and trailing white space and line ends (`.whitespacesAndNewlines`).
    @inlinable public func trimmed() -> String { trimming { $0.properties.isWhitespace } }

    /// Without leading and trailing spaces and tabs, line ends kept (`.whitespaces`).
    @inlinable public func trimmedSpaces() -> String {
        trimming { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
    }

    /// Without trailing white space (a table row's padding), leading kept.
    @inlinable public func trimmingTrailingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(decoding: utf8[startIndex..<scalars.index(after: last)], as: UTF8.self)
    }

    /// Without the leading and trailing scalars for which `drop` holds.
    @inlinable public func trimming(where drop: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !drop($0) }), let last = scalars.lastIndex(where: { !drop($0) })
        else { return "" }
        // The UTF-8 between two scalar boundaries, copied at once (not rebuilt scalar by scalar).
        return String(decoding: utf8[first..<scalars.index(after: last)], as: UTF8.self)
    }

    /// Every occurrence of `target` replaced by `replacement`, compared byte for byte (UTF-8,
    /// so a match always starts and ends on a scalar boundary).
    @inlinable public func replacingAll(_ target: String, with replacement: String) -> String {
        let haystack = Array(utf8), needle = Array(target.utf8)
        guard !needle.isEmpty, haystack.count >= needle.count else { return String(self) }
        var result: [UInt8] = []
        result.reserveCapacity(haystack.count)
        var index = 0
        while index < haystack.count {
            if haystack[index] == needle[0], haystack.count - index >= needle.count,
                haystack[index..<index + needle.count].elementsEqual(needle)
            {
                result.append(contentsOf: replacement.utf8)
                index += needle.count
            } else {
                result.append(haystack[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Whether `text` occurs in this string, compared scalar for scalar.
    @inlinable public func containsText(_ text: String) -> Bool {
        let needle = Array(text.utf8), haystack = Array(utf8)
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        // A plain scan (names and short texts): no generic collection algorithm to instantiate.
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            var index = 1
            while index < needle.count && haystack[start + index] == needle[index] { index += 1 }
            if index == needle.count { return true }
        }
        return false
    }

    /// Whether `text` occurs in this string with case ignored (both lower-cased first): a
    /// manufacturer's or model's name, not a security decision.
    @inlinable public func containsTextIgnoringCase(_ text: String) -> Bool {
        lowercased().containsText(text.lowercased())
    }

    /// Padded on the right with spaces to `width` characters (or left as it is when longer):
    /// a column in a text table.
    @inlinable public func padded(to width: Int) -> String {
        let text = String(self)
        return text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// Padded on the left with `fill` to `width` characters: `leftPadded(to: 4, with: "0")`
    /// is `%04d`'s zeros.
    @inlinable public func leftPadded(to width: Int, with fill: Character = " ") -> String {
        let text = String(self)
        return text.count >= width ? text : String(repeating: fill, count: width - text.count) + text
    }
}
