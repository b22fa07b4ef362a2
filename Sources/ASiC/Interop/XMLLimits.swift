import FoundationEssentials
import Glibc

/// Bounds on an XML member checked before libxml2 sees it, so that a small hostile file cannot
/// make parsing or canonicalization slow or large: libxml2 2.9 checks attributes for duplicates
/// quadratically (200,000 attributes on one element stall it), canonicalization grows much worse
/// than linearly with in-scope namespace declarations, and millions of empty elements (a few KB
/// compressed) take hundreds of MB as a tree. Real signatures, manifests and trusted lists stay
/// far below every limit.
struct XMLLimits: Sendable {
    var maximumElements: Int
    var maximumAttributesPerElement: Int
    var maximumNamespaceDeclarations: Int
    var maximumDepth: Int
    /// The sum over all elements of the namespace declarations in scope at each. libxml2's
    /// canonicalization looks through every declaration in scope at every element it writes,
    /// so 124 declarations above 95,000 empty elements (a 2 KB container) took 4.4 s of CPU,
    /// although each count alone was within its limit. Real documents declare a handful of
    /// namespaces at the root: about 5 × 8,000 = 40,000 for a signature over 1,000 data files, and
    /// 5 for each of the most elements a signature may have (500,000).
    var maximumNamespacesInScope: Int

    /// Signatures and manifests: a signature over 1,000 data files has about 8,000 elements.
    static let signature = XMLLimits(
        maximumElements: 100_000, maximumAttributesPerElement: 64,
        maximumNamespaceDeclarations: 128, maximumDepth: 64,
        maximumNamespacesInScope: 500_000)
    /// National trusted lists run to a few hundred thousand elements, with about ten namespaces
    /// declared at the root.
    static let trustedList = XMLLimits(
        maximumElements: 2_000_000, maximumAttributesPerElement: 64,
        maximumNamespaceDeclarations: 1_000, maximumDepth: 64,
        maximumNamespacesInScope: 32_000_000)

    /// Why `data` exceeds a limit, or nil. One pass over the bytes, tracking only whether it is
    /// inside a tag, a quoted attribute value, a comment, a CDATA section or a processing
    /// instruction; anything it cannot classify is left for libxml2 to refuse.
    func violation(in data: Data) -> String? {
        data.withUnsafeBytes { raw -> String? in
            let bytes = raw.bindMemory(to: UInt8.self)
            let count = bytes.count
            var index = 0
            var elements = 0
            var namespaces = 0
            var depth = 0
            // Declarations made by each open element (depth is bounded, so this stays small),
            // their sum, and the running total of declarations in scope over all elements.
            var declaredByOpen: [Int] = []
            var inScope = 0
            var inScopeTotal = 0
            func starts(_ literal: StaticString, at position: Int) -> Bool {
                let length = literal.utf8CodeUnitCount
                guard position + length <= count else { return false }
                for offset in 0..<length where bytes[position + offset] != literal.utf8Start[offset] { return false }
                return true
            }
            func skip(past terminator: StaticString, from position: Int) -> Int {
                var cursor = position
                while cursor < count {
                    if bytes[cursor] == terminator.utf8Start[0], starts(terminator, at: cursor) {
                        return cursor + terminator.utf8CodeUnitCount
                    }
                    cursor += 1
                }
                return count
            }
            guard let base = raw.baseAddress else { return nil }
            while index < count {
                // Text between tags is most of a large member: jump to the next `<` with memchr.
                guard bytes[index] == UInt8(ascii: "<") else {
                    guard let next = memchr(base + index, Int32(UInt8(ascii: "<")), count - index) else { break }
                    index = base.distance(to: UnsafeRawPointer(next))
                    continue
                }
                if starts("<!--", at: index) {
                    index = skip(past: "-->", from: index + 4)
                    continue
                }
                if starts("<![CDATA[", at: index) {
                    index = skip(past: "]]>", from: index + 9)
                    continue
                }
                if starts("<?", at: index) {
                    index = skip(past: "?>", from: index + 2)
                    continue
                }
                if starts("</", at: index) {
                    depth = max(0, depth - 1)
                    if let declared = declaredByOpen.popLast() { inScope -= declared }
                    index = skip(past: ">", from: index + 2)
                    continue
                }
                if starts("<!", at: index) {
                    index = skip(past: ">", from: index + 2)
                    continue
                }
                // A start tag: count its attributes (each `=` outside a quoted value) and the
                // namespace declarations among them.
                elements += 1
                if elements > maximumElements { return "more than \(maximumElements) elements" }
                var cursor = index + 1
                var attributes = 0
                var declared = 0
                var quote: UInt8 = 0
                // The attribute name an `=` belongs to is the last name token before it: XML
                // allows white space on either side of `=` (`xmlns:p ="u"`, with tabs or line
                // breaks too), so white space ends a token but does not forget it.
                var nameStart = -1
                var inName = false
                var selfClosing = false
                while cursor < count {
                    let byte = bytes[cursor]
                    if quote != 0 {
                        if byte == quote { quote = 0 }
                    } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                        quote = byte
                        inName = false
                    } else if byte == UInt8(ascii: ">") {
                        selfClosing = cursor > index && bytes[cursor - 1] == UInt8(ascii: "/")
                        break
                    } else if byte == UInt8(ascii: "=") {
                        attributes += 1
                        if attributes > maximumAttributesPerElement {
                            return "an element with more than \(maximumAttributesPerElement) attributes"
                        }
                        if nameStart >= 0, starts("xmlns", at: nameStart) {
                            namespaces += 1
                            declared += 1
                            if namespaces > maximumNamespaceDeclarations {
                                return "more than \(maximumNamespaceDeclarations) namespace declarations"
                            }
                        }
                        nameStart = -1
                        inName = false
                    } else if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                        inName = false
                    } else if !inName {
                        nameStart = cursor
                        inName = true
                    }
                    cursor += 1
                }
                inScopeTotal += inScope + declared
                if inScopeTotal > maximumNamespacesInScope {
                    return
                        "namespace declarations in scope at too many elements (more than \(maximumNamespacesInScope) in all)"
                }
                if !selfClosing {
                    depth += 1
                    if depth > maximumDepth { return "elements nested deeper than \(maximumDepth)" }
                    declaredByOpen.append(declared)
                    inScope += declared
                }
                index = cursor + 1
            }
            return nil
        }
    }

    /// The name of an encoding whose markup is not ASCII bytes, or nil. This scan, and the
    /// DOCTYPE search before it, read bytes as ASCII: in UTF-16 `</` is `<\0/\0` and nothing
    /// would be counted right. Every signature the reference and tamga write is UTF-8
    /// (docs/design/asice.md §1.3), so such members are refused with this reason rather than a wrong one.
    static func unreadableEncoding(_ data: Data) -> String? {
        let head = Array(data.prefix(4))
        if head.starts(with: [0x00, 0x00, 0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE, 0x00, 0x00]) {
            return "UTF-32 (byte-order mark)"
        }
        if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) { return "UTF-16 (byte-order mark)" }
        if head == [0x4C, 0x6F, 0xA7, 0x94] { return "EBCDIC" }
        // No character of UTF-8 XML is a NUL byte, and every ASCII character of UTF-16 or
        // UTF-32 holds one.
        let hasNUL = data.withUnsafeBytes { raw in raw.baseAddress.map { memchr($0, 0, raw.count) != nil } ?? false }
        return hasNUL ? "UTF-16 or UTF-32 (it holds NUL bytes)" : nil
    }
}
