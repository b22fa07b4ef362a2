/// File paths as text, with `NSString`'s rules for the parts the modules use: trailing
/// slashes do not make an empty last part, and the root stays `/`.
extension String {
    private var withoutTrailingSlashes: Substring {
        var text = Substring(self)
        while text.count > 1, text.hasSuffix("/") { text = text.dropLast() }
        return text
    }

    /// The last part: `b` for `/a/b` and `/a/b/`, `/` for `/`.
    public var lastPathPart: String {
        let text = withoutTrailingSlashes
        guard text != "/" else { return "/" }
        guard let slash = text.lastIndex(of: "/") else { return String(text) }
        return String(text[text.index(after: slash)...])
    }

    /// Everything before the last part: `/a` for `/a/b`, `/` for `/a`, empty for `a`.
    public var parentPath: String {
        let text = withoutTrailingSlashes
        guard text != "/", let slash = text.lastIndex(of: "/") else { return "" }
        guard slash != text.startIndex else { return "/" }
        var parent = text[..<slash]
        while parent.count > 1, parent.hasSuffix("/") { parent = parent.dropLast() }
        return String(parent)
    }

    /// The last part's extension without the dot (`asice` for `x/y.asice`), empty when it has
    /// none or the part only starts with a dot (`.profile`).
    public var fileExtension: String {
        let last = lastPathPart
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return "" }
        return String(last[last.index(after: dot)...])
    }

    /// The path without the last part's extension and its dot.
    public var removingFileExtension: String {
        let extensionText = fileExtension
        guard !extensionText.isEmpty else { return String(withoutTrailingSlashes) }
        return String(withoutTrailingSlashes.dropLast(extensionText.count + 1))
    }

    /// `part` added under this path with one slash between them.
    public func appendingPathPart(_ part: String) -> String {
        guard !isEmpty else { return part }
        return hasSuffix("/") ? self + part : self + "/" + part
    }
}
