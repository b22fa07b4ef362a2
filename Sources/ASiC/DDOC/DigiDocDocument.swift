import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// A DigiDoc XML file (`.ddoc`) as read for verification: its format, its data files (with the
/// digest each signature's reference must match, computed while the file was read once) and its
/// signatures (the bytes of each `Signature` element, parsed when they are judged).
/// docs/design/ddoc.md says what each part is and which facts of the two reference libraries
/// (libdigidoc, DigiDoc4j's DDOC module) the digests follow.
struct DigiDocDocument {
    let path: String
    let version: DigiDocVersion
    let dataFiles: [DigiDocDataFile]
    let signatures: [DigiDocSignatureBlock]

    /// Whether any data file is in hashcode form (SiVa's `_hashcode` signature form).
    var isHashcode: Bool { dataFiles.contains { $0.contentType == .hashcode } }

    static let maximumDataFiles = 10_000
    static let maximumSignatures = 1_000
    /// A Signature element is held in memory: a real one is a few KB (an ID card signature with
    /// its OCSP response about 8 KB).
    static let maximumSignatureLength: UInt64 = 4 << 20
    /// Inline XML content (ContentType EMBEDDED) is canonicalised in memory.
    static let maximumEmbeddedXMLLength: UInt64 = 16 << 20

    /// Whether the first kilobytes look like a DigiDoc file (a `SignedDoc` root).
    static func looksLikeDDOC(_ head: [UInt8]) -> Bool {
        head.withUnsafeBytes { ByteSearch.firstIndex(of: Array("<SignedDoc".utf8), in: $0) != nil }
    }

    /// Reads the file, computing every data file's digests on the way. The start tags are read
    /// first without libxml2 (`DigiDocStartTag`: hashing need not wait for libxml2 to load), and
    /// once the file is read, or has failed, libxml2 confirms each; when it reads any of them
    /// otherwise, the file is read again with libxml2 alone, so the outcome is libxml2's.
    init(path: String, progress: ProgressHandler? = nil) throws {
        guard Container.ddocReadsStartTagsWithoutLibXML2 else {
            self = try Self(path: path, progress: progress, tags: DigiDocStartTagReader(withoutLibXML2: false))
            return
        }
        let tags = DigiDocStartTagReader(withoutLibXML2: true)
        do {
            let document = try Self(path: path, progress: progress, tags: tags)
            if tags.libXML2Agrees() {
                self = document
                return
            }
        } catch {
            if tags.libXML2Agrees() { throw error }
        }
        self = try Self(path: path, progress: progress, tags: DigiDocStartTagReader(withoutLibXML2: false))
    }

    private init(path: String, progress: ProgressHandler?, tags: DigiDocStartTagReader) throws {
        self.path = path
        let file = try InputFile(path: path)
        var scanner = DigiDocScanner(file: file)
        var position: UInt64 = 0
        if try scanner.starts(with: "\u{FEFF}", at: 0) { position = 3 }
        if let encoding = XMLLimits.unreadableEncoding(Data(try scanner.bytes(at: 0, count: 4))) {
            throw ContainerError.malformedDDOC("it is encoded in \(encoding); DigiDoc files are UTF-8")
        }
        position = try scanner.skipWhitespace(from: position)
        if try scanner.starts(with: "<?xml", at: position) {
            let declaration = try scanner.bytes(at: position, count: 256)
            guard let end = declaration.firstRange(of: Array("?>".utf8)) else {
                throw DigiDocScanner.malformed("an XML declaration that does not end")
            }
            let text = String(decoding: declaration[..<end.lowerBound], as: UTF8.self)
            if let encoding = Self.declaredEncoding(text), encoding.uppercased() != "UTF-8" {
                throw ContainerError.malformedDDOC("it declares the encoding \(encoding); DigiDoc files are UTF-8")
            }
            position = try scanner.skipWhitespace(from: position + UInt64(end.upperBound))
        }
        guard try scanner.byte(at: position) == UInt8(ascii: "<") else {
            throw DigiDocScanner.malformed("no SignedDoc element")
        }
        let rootTag = try scanner.tag(at: position)
        guard rootTag.name == "SignedDoc", !rootTag.isEnd, !rootTag.isEmpty else {
            throw DigiDocScanner.malformed("the document element is \(rootTag.name), not SignedDoc")
        }
        let root = try tags.read(
            scanner.bytes(at: rootTag.range.lowerBound, count: rootTag.range.count), name: "SignedDoc"
        ).attributes
        guard
            let version = DigiDocVersion(
                format: root.attribute("format") ?? "", version: root.attribute("version") ?? "")
        else {
            throw ContainerError.malformedDDOC(
                "SignedDoc format \"\(root.attribute("format") ?? "")\" version \"\(root.attribute("version") ?? "")\" is none of SK-XML 1.0 and DIGIDOC-XML 1.1, 1.2, 1.3"
            )
        }
        if version == .digiDoc13, root.namespace != DigiDocVersion.namespace13 {
            throw ContainerError.malformedDDOC(
                "a DIGIDOC-XML 1.3 SignedDoc must be in the namespace \(DigiDocVersion.namespace13)")
        }
        self.version = version
        position = rootTag.range.upperBound

        var dataFiles: [DigiDocDataFile] = []
        var signatures: [DigiDocSignatureBlock] = []
        while true {
            position = try scanner.skipWhitespace(from: position)
            guard let byte = try scanner.byte(at: position) else {
                throw DigiDocScanner.malformed("the file ends before </SignedDoc>")
            }
            guard byte == UInt8(ascii: "<") else {
                throw DigiDocScanner.malformed("text outside the DataFile and Signature elements at byte \(position)")
            }
            let tag = try scanner.tag(at: position)
            if tag.isEnd {
                guard tag.name == "SignedDoc" else {
                    throw DigiDocScanner.malformed("</\(tag.name)> at byte \(position) closes SignedDoc")
                }
                position = try scanner.skipWhitespace(from: tag.range.upperBound)
                guard position == scanner.size else {
                    throw DigiDocScanner.malformed("bytes after </SignedDoc> (at byte \(position))")
                }
                break
            }
            switch tag.name {
            case "DataFile":
                guard signatures.isEmpty else {
                    throw DigiDocScanner.malformed("a DataFile after a Signature (byte \(position))")
                }
                guard dataFiles.count < Self.maximumDataFiles else {
                    throw DigiDocScanner.malformed("more than \(Self.maximumDataFiles) data files")
                }
                let dataFile = try DigiDocDataFile(
                    tag: tag, version: version, scanner: &scanner, tags: tags, progress: progress)
                position = dataFile.end
                dataFiles.append(dataFile)
            case "Signature":
                guard signatures.count < Self.maximumSignatures else {
                    throw DigiDocScanner.malformed("more than \(Self.maximumSignatures) signatures")
                }
                let end = try scanner.elementEnd(after: tag, limit: Self.maximumSignatureLength)
                let bytes = try scanner.bytes(at: tag.range.lowerBound, count: Int(end - tag.range.lowerBound))
                signatures.append(
                    DigiDocSignatureBlock(index: signatures.count, offset: tag.range.lowerBound, bytes: Data(bytes)))
                position = end
            default:
                throw DigiDocScanner.malformed(
                    "a \(tag.name) element inside SignedDoc (byte \(position)): only DataFile and Signature belong there"
                )
            }
        }
        self.dataFiles = dataFiles
        self.signatures = signatures
    }

    /// A start tag alone (`<Name …>` or `<Name …/>`), parsed by libxml2 for its attributes.
    static func parseStartTag(_ bytes: [UInt8], name: String) throws -> XMLElement {
        let document = try XMLDocument(data: closing(bytes, name: name), name: name, limits: .signature)
        guard let root = document.root else { throw DigiDocScanner.malformed("an unreadable \(name) tag") }
        return root
    }

    /// `<Name …>` + `</Name>` (or `<Name …/>` as it is): a tag libxml2 can parse alone.
    static func closing(_ startTag: [UInt8], name: String) -> Data {
        var data = Data(startTag)
        if startTag.dropLast().last != UInt8(ascii: "/") { data.append(contentsOf: Array("</\(name)>".utf8)) }
        return data
    }

    private static func declaredEncoding(_ declaration: String) -> String? {
        let bytes = Array(declaration.utf8)
        guard let range = bytes.firstRange(of: Array("encoding".utf8)) else { return nil }
        let rest = String(decoding: bytes[range.upperBound...], as: UTF8.self).drop {
            $0 == " " || $0 == "=" || $0 == "\t"
        }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return String(rest.dropFirst().prefix { $0 != quote })
    }
}

/// One `Signature` element's bytes, as they stand in the file.
struct DigiDocSignatureBlock: Sendable {
    let index: Int
    let offset: UInt64
    let bytes: Data
}
