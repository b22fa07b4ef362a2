internal import CLibXML2
import FoundationEssentials
import Glibc

/// Namespaces of ASiC-E, XML-DSig and XAdES.
enum XMLNamespace {
    static let asic = "http://uri.etsi.org/02918/v1.2.1#"
    static let ds = "http://www.w3.org/2000/09/xmldsig#"
    static let xades = "http://uri.etsi.org/01903/v1.3.2#"
    static let xades141 = "http://uri.etsi.org/01903/v1.4.1#"
    static let manifest = "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"
}

/// The canonicalization algorithms XML-DSig names, with libxml2's mode for each.
enum Canonicalization: String, CaseIterable {
    case c14n10 = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315"
    case c14n10WithComments = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments"
    case c14n11 = "http://www.w3.org/2006/12/xml-c14n11"
    case c14n11WithComments = "http://www.w3.org/2006/12/xml-c14n11#WithComments"
    case exclusive = "http://www.w3.org/2001/10/xml-exc-c14n#"
    case exclusiveWithComments = "http://www.w3.org/2001/10/xml-exc-c14n#WithComments"

    fileprivate var mode: Int32 {
        switch self {
        case .c14n10, .c14n10WithComments: Int32(XML_C14N_1_0.rawValue)
        case .c14n11, .c14n11WithComments: Int32(XML_C14N_1_1.rawValue)
        case .exclusive, .exclusiveWithComments: Int32(XML_C14N_EXCLUSIVE_1_0.rawValue)
        }
    }
    fileprivate var withComments: Int32 { rawValue.hasSuffix("#WithComments") ? 1 : 0 }
}

/// A parsed XML document (owns the `xmlDoc*`). Parsing never touches the network, never loads
/// a DTD or external entity, and refuses any document that has a DOCTYPE at all: manifests and
/// signatures have no use for one, and refusing it closes XXE and entity-expansion bombs.
final class XMLDocument: @unchecked Sendable {  // unchecked: read-only after parsing
    fileprivate let pointer: xmlDocPtr
    let name: String

    /// libxml2 reports what it meets outside the parser (canonicalization's errors, for one)
    /// through its error handler, which by default prints to stderr: a hostile file could put
    /// "C14N error : …" lines on a terminal or into a service's log. tamga reads every error it
    /// needs back with xmlGetLastError, so the handler does nothing. Set before libxml2's first
    /// use on any thread: for this thread (libxml2's main thread then) and as every other
    /// thread's default.
    private static let quietErrors: Void = {
        let ignore: xmlStructuredErrorFunc = { _, _ in }
        xmlThrDefSetStructuredErrorFunc(nil, ignore)
        xmlSetStructuredErrorFunc(nil, ignore)
    }()

    init(data: Data, name: String, limits: XMLLimits = .signature) throws {
        _ = Self.quietErrors
        // First: the checks below read the bytes as ASCII markup.
        if let encoding = XMLLimits.unreadableEncoding(data) {
            throw ContainerError.malformedXML(
                file: name,
                reason: "it is encoded in \(encoding); tamga reads XML in UTF-8, as every signature is written")
        }
        if Self.contains(data, "<!DOCTYPE") || Self.contains(data, "<!ENTITY") {
            throw ContainerError.malformedXML(file: name, reason: "a DOCTYPE or entity declaration is not allowed")
        }
        if let violation = limits.violation(in: data) {
            throw ContainerError.xmlTooComplex(file: name, reason: violation)
        }
        let options = Int32(
            XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue
                | XML_PARSE_NOWARNING.rawValue)
        let parsed: xmlDocPtr? = data.withUnsafeBytes { raw in
            xmlReadMemory(raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(raw.count), nil, nil, options)
        }
        guard let parsed else {
            var reason = "not well-formed XML"
            if let error = xmlGetLastError(), let message = error.pointee.message {
                reason = String(cString: message).trimmed() + " (line \(error.pointee.line))"
            }
            xmlResetLastError()
            throw ContainerError.malformedXML(file: name, reason: reason)
        }
        if parsed.pointee.intSubset != nil || parsed.pointee.extSubset != nil {
            xmlFreeDoc(parsed)
            throw ContainerError.malformedXML(file: name, reason: "a DOCTYPE is not allowed")
        }
        pointer = parsed
        self.name = name
    }
    deinit { xmlFreeDoc(pointer) }

    /// A byte search: Foundation's `Data.range(of:)` costs ~3 ms per MB, which a 10 MB trusted
    /// list would pay twice before parsing. C's memchr and memcmp, not a Swift loop: a 16 MB member is
    /// searched twice per parse, and a debug build spent a tenth of a verification here.
    /// memchr finds each candidate first byte, memcmp checks the rest.
    private static func contains(_ data: Data, _ needle: String) -> Bool {
        data.withUnsafeBytes { ByteSearch.firstIndex(of: Array(needle.utf8), in: $0) != nil }
    }

    var root: XMLElement? {
        guard let node = xmlDocGetRootElement(pointer) else { return nil }
        return XMLElement(node: node, document: self)
    }

    /// Every element in document order whose attribute `Id` equals `id` (to detect duplicates).
    func elements(withID id: String) -> [XMLElement] {
        guard let root else { return [] }
        var found: [XMLElement] = []
        root.walk { if $0.attribute("Id") == id { found.append($0) } }
        return found
    }

    /// The canonical form of one element and its subtree, with the namespace context it
    /// inherits (what XML-DSig signs when it references or canonicalizes an element).
    /// - Parameter excluding: a descendant left out with its subtree (the enveloped-signature
    ///   transform removes the `ds:Signature` from the list it signs).
    func canonicalize(_ element: XMLElement, _ method: Canonicalization, excluding: XMLElement? = nil) throws -> Data {
        let visible: xmlC14NIsVisibleCallback = { userData, node, parent in
            guard let userData, let node else { return 0 }
            let bounds = userData.assumingMemoryBound(to: (xmlNodePtr, xmlNodePtr?).self).pointee
            // Namespace and attribute nodes are judged by the element that carries them.
            var cursor: xmlNodePtr? =
                node.pointee.type == XML_NAMESPACE_DECL || node.pointee.type == XML_ATTRIBUTE_NODE
                ? parent : node
            while let current = cursor {
                if let excluded = bounds.1, current == excluded { return 0 }
                if current == bounds.0 { return 1 }
                cursor = current.pointee.parent
            }
            return 0
        }
        guard let buffer = xmlAllocOutputBuffer(nil) else {
            throw ContainerError.malformedXML(file: name, reason: "out of memory")
        }
        defer { xmlOutputBufferClose(buffer) }
        var bounds: (xmlNodePtr, xmlNodePtr?) = (element.node, excluding?.node)
        let result = withUnsafeMutablePointer(to: &bounds) { pointer in
            xmlC14NExecute(
                self.pointer, visible, UnsafeMutableRawPointer(pointer), method.mode, nil, method.withComments, buffer)
        }
        guard result >= 0, let content = xmlOutputBufferGetContent(buffer) else {
            throw ContainerError.malformedXML(file: name, reason: "canonicalization failed")
        }
        return Data(bytes: content, count: Int(xmlOutputBufferGetSize(buffer)))
    }
}

extension XMLDocument {
    /// Appends a new element as the last child of `parent`, in namespace `namespace`, reusing an
    /// in-scope prefix for it or declaring `prefix` on the new element. Used only to add
    /// unsigned properties; signed parts are never touched.
    @discardableResult
    func appendElement(
        to parent: XMLElement, namespace: String, prefix: String, localName: String,
        attributes: [(String, String)] = [], text: String? = nil
    ) -> XMLElement {
        let node = xmlNewDocNode(pointer, nil, localName, nil)!
        xmlAddChild(parent.node, node)
        if let ns = xmlSearchNsByHref(pointer, node, namespace) {
            xmlSetNs(node, ns)
        } else {
            let ns = xmlNewNs(node, namespace, prefix)
            xmlSetNs(node, ns)
        }
        for (name, value) in attributes { xmlNewProp(node, name, value) }
        if let text { xmlNodeAddContent(node, text) }
        return XMLElement(node: node, document: self)
    }

    /// The document as UTF-8 bytes, unformatted (no whitespace added), with the XML declaration.
    func serialized() -> Data {
        var buffer: UnsafeMutablePointer<xmlChar>? = nil
        var size: Int32 = 0
        xmlDocDumpFormatMemoryEnc(pointer, &buffer, &size, "UTF-8", 0)
        guard let buffer else { return Data() }
        defer { cxml_free(buffer) }
        return Data(bytes: buffer, count: Int(size))
    }
}

/// An element inside an `XMLDocument`; keeps its document alive.
struct XMLElement {
    fileprivate let node: xmlNodePtr
    let document: XMLDocument

    fileprivate init(node: xmlNodePtr, document: XMLDocument) {
        self.node = node
        self.document = document
    }

    var localName: String { String(cString: node.pointee.name) }
    var namespace: String? { node.pointee.ns.flatMap { $0.pointee.href }.map { String(cString: $0) } }

    func `is`(_ localName: String, in namespace: String) -> Bool {
        Self.matches(node, localName, namespace)
    }

    /// Compares the C strings in place: no Swift string per node (a trusted list has a million).
    private static func matches(_ node: xmlNodePtr, _ localName: String, _ namespace: String) -> Bool {
        guard let name = node.pointee.name, let href = node.pointee.ns?.pointee.href else { return false }
        return localName.withCString { strcmp($0, UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self)) == 0 }
            && namespace.withCString { strcmp($0, UnsafeRawPointer(href).assumingMemoryBound(to: CChar.self)) == 0 }
    }

    /// An attribute without a namespace (such as `Id`, `URI`, `Algorithm`).
    func attribute(_ name: String) -> String? {
        guard let value = xmlGetNoNsProp(node, name) else { return nil }
        defer { cxml_free(value) }
        return String(cString: value)
    }

    /// An attribute in a namespace (such as `manifest:full-path`).
    func attribute(_ name: String, namespace: String) -> String? {
        guard let value = xmlGetNsProp(node, name, namespace) else { return nil }
        defer { cxml_free(value) }
        return String(cString: value)
    }

    /// The concatenated text of this element's subtree.
    var text: String {
        guard let value = xmlNodeGetContent(node) else { return "" }
        defer { cxml_free(value) }
        return String(cString: value)
    }

    /// Child elements, in order.
    var children: [XMLElement] {
        var out: [XMLElement] = []
        var child = node.pointee.children
        while let c = child {
            if c.pointee.type == XML_ELEMENT_NODE { out.append(XMLElement(node: c, document: document)) }
            child = c.pointee.next
        }
        return out
    }

    /// True when the element has non-whitespace text directly inside it (outside child elements).
    var hasOwnText: Bool {
        var child = node.pointee.children
        while let c = child {
            if c.pointee.type == XML_TEXT_NODE || c.pointee.type == XML_CDATA_SECTION_NODE,
                let content = c.pointee.content,
                !String(cString: content).allSatisfy({ $0.isWhitespace })
            {
                return true
            }
            child = c.pointee.next
        }
        return false
    }

    func children(_ localName: String, in namespace: String) -> [XMLElement] {
        var out: [XMLElement] = []
        var child = node.pointee.children
        while let c = child {
            if c.pointee.type == XML_ELEMENT_NODE, Self.matches(c, localName, namespace) {
                out.append(XMLElement(node: c, document: document))
            }
            child = c.pointee.next
        }
        return out
    }

    func child(_ localName: String, in namespace: String) -> XMLElement? {
        var child = node.pointee.children
        while let c = child {
            if c.pointee.type == XML_ELEMENT_NODE, Self.matches(c, localName, namespace) {
                return XMLElement(node: c, document: document)
            }
            child = c.pointee.next
        }
        return nil
    }

    /// Depth-first over this element and all descendant elements. Follows the node pointers
    /// without building a children array per node (a trusted list has a million nodes).
    func walk(_ visit: (XMLElement) -> Void) {
        visit(self)
        var child = node.pointee.children
        while let c = child {
            if c.pointee.type == XML_ELEMENT_NODE { XMLElement(node: c, document: document).walk(visit) }
            child = c.pointee.next
        }
    }

    /// True when `self` lies inside `ancestor`'s subtree (or is it).
    func isInside(_ ancestor: XMLElement) -> Bool {
        var cursor: xmlNodePtr? = node
        while let current = cursor {
            if current == ancestor.node { return true }
            cursor = current.pointee.parent
        }
        return false
    }

    static func == (a: XMLElement, b: XMLElement) -> Bool { a.node == b.node }
}
