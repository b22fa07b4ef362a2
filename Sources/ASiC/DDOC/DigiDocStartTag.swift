import FoundationEssentials

/// What the DDOC reader takes from a start tag (`SignedDoc`, `DataFile`): its attributes and the
/// namespace it declares. libxml2's element gives it, and so does `DigiDocStartTag`.
protocol DigiDocStartTagAttributes {
    func attribute(_ name: String) -> String?
    var namespace: String? { get }
}

extension XMLElement: DigiDocStartTagAttributes {}

/// A `SignedDoc` or `DataFile` start tag read without libxml2, for the plain tags DigiDoc writers
/// produce: unprefixed names, quoted attribute values of UTF-8 text with no reference (`&`), no
/// line break or tab, no quote of the other kind, each name once; `nil` for anything else.
///
/// Why it exists: libxml2 with ICU and libstdc++ takes milliseconds to load, and the first data
/// file cannot be hashed before its start tag is canonicalised (its canonical form is the start of
/// the SHA-1 input). Read this way, hashing starts while libxml2 is still loading on the other
/// core. It is a guess that libxml2 confirms: `DigiDocDocument` checks every tag it read this way
/// against libxml2's canonical form once the file is read, and reads the whole file again with
/// libxml2 alone when any differs, so the outcome is always libxml2's.
struct DigiDocStartTag: DigiDocStartTagAttributes, Equatable {
    let name: String
    /// In document order.
    let attributes: [(name: String, value: String)]

    static func == (a: DigiDocStartTag, b: DigiDocStartTag) -> Bool {
        a.name == b.name && a.attributes.elementsEqual(b.attributes) { $0.name == $1.name && $0.value == $1.value }
    }

    func attribute(_ name: String) -> String? {
        name == "xmlns" ? nil : attributes.first { $0.name == name }?.value
    }

    /// The default namespace the tag declares (`xmlns="…"`).
    var namespace: String? { attributes.first { $0.name == "xmlns" }?.value }

    /// `<Name a="1" b='2'>` or `<Name …/>`, exactly the bytes of one tag.
    static func parse(_ bytes: [UInt8], name expected: String) -> DigiDocStartTag? {
        var index = 1
        func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"): true
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."): !first
            default: false
            }
        }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        func readName() -> String? {
            let start = index
            while index < bytes.count, isNameByte(bytes[index], first: index == start) { index += 1 }
            return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
        }
        guard bytes.count >= 3, bytes[0] == UInt8(ascii: "<"), let name = readName(), name == expected else {
            return nil
        }
        var attributes: [(name: String, value: String)] = []
        while true {
            let spaced = index < bytes.count && isSpace(bytes[index])
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ">") {
                guard index == bytes.count - 1 else { return nil }
                break
            }
            if bytes[index] == UInt8(ascii: "/") {
                guard index == bytes.count - 2, bytes[index + 1] == UInt8(ascii: ">") else { return nil }
                break
            }
            // XML wants white space before each attribute.
            guard spaced, let attribute = readName() else { return nil }
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return nil }
            index += 1
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                return nil
            }
            index += 1
            let start = index
            // No reference to decode, no character the canonical form would escape or an XML
            // parser would normalise, no quote of either kind: the value stands as written.
            while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "'") {
                guard bytes[index] >= 0x20, bytes[index] != UInt8(ascii: "&"), bytes[index] != UInt8(ascii: "<"),
                    bytes[index] != 0x7F
                else { return nil }
                index += 1
            }
            guard index < bytes.count, bytes[index] == bytes[start - 1],
                let value = String(validating: bytes[start..<index], as: UTF8.self)
            else { return nil }
            index += 1
            guard !attributes.contains(where: { $0.name == attribute }), attribute != "xmlns" || !value.isEmpty else {
                return nil
            }
            attributes.append((attribute, value))
        }
        return DigiDocStartTag(name: name, attributes: attributes)
    }

    /// C14N 1.0 of the element's start tag taken alone, with `xmlns="namespace"` added when asked
    /// (the tag then declares none): the namespace declaration first, then the attributes by
    /// name (none has a namespace), each value in double quotes, as it stands.
    func canonical(injecting injected: String?) -> [UInt8] {
        var out = Array("<\(name)".utf8)
        if let namespace = injected ?? namespace { out += Array(" xmlns=\"\(namespace)\"".utf8) }
        for attribute in attributes.filter({ $0.name != "xmlns" }).sorted(by: {
            Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8))
        }) {
            out += Array(" \(attribute.name)=\"\(attribute.value)\"".utf8)
        }
        out.append(UInt8(ascii: ">"))
        return out
    }
}

/// How a DDOC reading takes its start tags: libxml2 only, or `DigiDocStartTag` first with a
/// record of each tag read so, for `DigiDocDocument` to confirm with libxml2 afterwards.
final class DigiDocStartTagReader {
    private let withoutLibXML2: Bool
    /// The tags read without libxml2, with the namespaces their canonical forms were taken with.
    private var guessed: [(bytes: [UInt8], name: String, tag: DigiDocStartTag, injected: Set<String?>)] = []

    init(withoutLibXML2: Bool) { self.withoutLibXML2 = withoutLibXML2 }

    /// A tag as it was read: its attributes, and where its record is when it was read without
    /// libxml2 (so that `canonical` finds it in constant time: a DDOC may hold 10,000 tags).
    struct Read {
        let bytes: [UInt8]
        let name: String
        let attributes: DigiDocStartTagAttributes
        fileprivate let guessIndex: Int?
    }

    /// The tag's attributes.
    func read(_ bytes: [UInt8], name: String) throws -> Read {
        if withoutLibXML2, let tag = DigiDocStartTag.parse(bytes, name: name) {
            guessed.append((bytes, name, tag, []))
            return Read(bytes: bytes, name: name, attributes: tag, guessIndex: guessed.count - 1)
        }
        return Read(
            bytes: bytes, name: name, attributes: try DigiDocDocument.parseStartTag(bytes, name: name), guessIndex: nil)
    }

    /// C14N 1.0 of the start tag alone (`DigiDocDataFile.canonicalStartTag`).
    func canonical(_ tag: Read, injecting namespace: String?) throws -> [UInt8] {
        if let index = tag.guessIndex {
            guessed[index].injected.insert(namespace)
            return guessed[index].tag.canonical(injecting: namespace)
        }
        return try DigiDocDataFile.canonicalStartTag(tag.bytes, injecting: namespace, name: tag.name)
    }

    /// Whether libxml2 reads every guessed tag as it was read: it parses each, and gives the same
    /// element, namespace, attribute values and canonical forms, alone and with each namespace the
    /// reading injected.
    func libXML2Agrees() -> Bool {
        guessed.allSatisfy {
            DigiDocStartTagComparison(entry: $0.bytes, name: $0.name, tag: $0.tag, injections: $0.injected) == .agrees
        }
    }
}

/// How libxml2 reads a tag that `DigiDocStartTag` read.
enum DigiDocStartTagComparison: Equatable {
    case agrees
    /// libxml2 refuses the tag, or cannot canonicalise it with one of the namespaces.
    case libXML2Refuses
    case differs(String)

    init(entry bytes: [UInt8], name: String, tag: DigiDocStartTag, injections: Set<String?>) {
        guard let element = try? DigiDocDocument.parseStartTag(bytes, name: name) else {
            self = .libXML2Refuses
            return
        }
        guard element.localName == name, element.namespace == tag.namespace else {
            self = .differs(
                "element \(element.localName) in \(element.namespace ?? "no namespace"), read as \(name) in \(tag.namespace ?? "no namespace")"
            )
            return
        }
        for attribute in tag.attributes where attribute.name != "xmlns" {
            let value = element.attribute(attribute.name)
            if value != attribute.value {
                self = .differs("\(attribute.name): libxml2 \(value ?? "(none)"), quick \(attribute.value)")
                return
            }
        }
        // Equal canonical forms also mean that libxml2 sees no attribute the quick reading missed.
        for injected in injections.union([nil]) {
            guard let canonical = try? DigiDocDataFile.canonicalStartTag(bytes, injecting: injected, name: name) else {
                self = .libXML2Refuses
                return
            }
            let quick = tag.canonical(injecting: injected)
            if canonical != quick {
                self = .differs(
                    "canonical form: libxml2 \(String(decoding: canonical, as: UTF8.self)), quick \(String(decoding: quick, as: UTF8.self))"
                )
                return
            }
        }
        self = .agrees
    }
}

/// The differential check FuzzDDOCStartTag runs: a tag that the quick reading takes must read as
/// libxml2 reads it whenever libxml2 reads it at all (parses it and canonicalises it alone and
/// with the DigiDoc 1.3 namespace injected). Returns nil when the quick reading leaves the tag to
/// libxml2 or libxml2 refuses it, else a description of the first difference ("" when none).
@_spi(Testing) public enum DigiDocStartTagCheck {
    public static func difference(_ bytes: [UInt8], name: String) -> String? {
        guard let tag = DigiDocStartTag.parse(bytes, name: name) else { return nil }
        let injections: Set<String?> = tag.namespace == nil ? [nil, DigiDocVersion.namespace13] : [nil]
        switch DigiDocStartTagComparison(entry: bytes, name: name, tag: tag, injections: injections) {
        case .agrees: return ""
        case .libXML2Refuses: return nil
        case .differs(let why): return why
        }
    }
}
