import Foundation

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

    /// Signatures and manifests: a signature over 1,000 data files has about 8,000 elements.
    static let signature = XMLLimits(maximumElements: 100_000, maximumAttributesPerElement: 64,
                                     maximumNamespaceDeclarations: 128, maximumDepth: 64)
    /// National trusted lists run to a few hundred thousand elements.
    static let trustedList = XMLLimits(maximumElements: 2_000_000, maximumAttributesPerElement: 64,
                                       maximumNamespaceDeclarations: 1_000, maximumDepth: 64)

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
            func starts(_ literal: StaticString, at position: Int) -> Bool {
                let length = literal.utf8CodeUnitCount
                guard position + length <= count else { return false }
                for offset in 0..<length where bytes[position + offset] != literal.utf8Start[offset] { return false }
                return true
            }
            func skip(past terminator: StaticString, from position: Int) -> Int {
                var cursor = position
                while cursor < count {
                    if bytes[cursor] == terminator.utf8Start[0], starts(terminator, at: cursor) { return cursor + terminator.utf8CodeUnitCount }
                    cursor += 1
                }
                return count
            }
            while index < count {
                guard bytes[index] == UInt8(ascii: "<") else { index += 1; continue }
                if starts("<!--", at: index) { index = skip(past: "-->", from: index + 4); continue }
                if starts("<![CDATA[", at: index) { index = skip(past: "]]>", from: index + 9); continue }
                if starts("<?", at: index) { index = skip(past: "?>", from: index + 2); continue }
                if starts("</", at: index) {
                    depth = max(0, depth - 1)
                    index = skip(past: ">", from: index + 2)
                    continue
                }
                if starts("<!", at: index) { index = skip(past: ">", from: index + 2); continue }
                // A start tag: count its attributes (each `=` outside a quoted value) and the
                // namespace declarations among them.
                elements += 1
                if elements > maximumElements { return "more than \(maximumElements) elements" }
                var cursor = index + 1
                var attributes = 0
                var quote: UInt8 = 0
                var nameStart = -1
                var selfClosing = false
                while cursor < count {
                    let byte = bytes[cursor]
                    if quote != 0 {
                        if byte == quote { quote = 0 }
                    } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                        quote = byte
                    } else if byte == UInt8(ascii: ">") {
                        selfClosing = cursor > index && bytes[cursor - 1] == UInt8(ascii: "/")
                        break
                    } else if byte == UInt8(ascii: "=") {
                        attributes += 1
                        if attributes > maximumAttributesPerElement { return "an element with more than \(maximumAttributesPerElement) attributes" }
                        if nameStart >= 0, starts("xmlns", at: nameStart) {
                            namespaces += 1
                            if namespaces > maximumNamespaceDeclarations {
                                return "more than \(maximumNamespaceDeclarations) namespace declarations"
                            }
                        }
                        nameStart = -1
                    } else if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                        nameStart = -1
                    } else if nameStart < 0 {
                        nameStart = cursor
                    }
                    cursor += 1
                }
                if !selfClosing {
                    depth += 1
                    if depth > maximumDepth { return "elements nested deeper than \(maximumDepth)" }
                }
                index = cursor + 1
            }
            return nil
        }
    }
}
