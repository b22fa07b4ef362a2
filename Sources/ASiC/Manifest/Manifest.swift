import FoundationEssentials
import Glibc

/// `META-INF/manifest.xml` (OpenDocument manifest 1.2): the list of data files with their
/// media types, plus the `/` entry that repeats the container's mimetype.
struct Manifest: Equatable {
    struct Entry: Equatable {
        let path: String
        let mediaType: String
    }

    /// Data file entries in manifest order (without the `/` entry).
    let entries: [Entry]

    init(entries: [Entry]) { self.entries = entries }

    /// Parses and checks a manifest the way the reference does at open time.
    init(data: Data, mimetype: String) throws {
        let document: XMLDocument
        do {
            document = try XMLDocument(data: data, name: Container.manifestPath)
        } catch ContainerError.malformedXML(_, let reason) {
            throw ContainerError.malformedManifest(reason)
        }
        guard let root = document.root, root.is("manifest", in: XMLNamespace.manifest) else {
            throw ContainerError.malformedManifest("the root element is not manifest:manifest")
        }
        var rootEntries = 0
        var seen = Set<String>()
        var entries: [Entry] = []
        for element in root.children {
            guard element.is("file-entry", in: XMLNamespace.manifest) else {
                throw ContainerError.malformedManifest("unexpected element \(element.localName)")
            }
            guard let path = element.attribute("full-path", namespace: XMLNamespace.manifest),
                let mediaType = element.attribute("media-type", namespace: XMLNamespace.manifest)
            else {
                throw ContainerError.malformedManifest("a file-entry lacks full-path or media-type")
            }
            guard !path.isEmpty else { throw ContainerError.malformedManifest("an empty full-path") }
            guard seen.insert(path).inserted else { throw ContainerError.malformedManifest("\(path) is listed twice") }
            if path == "/" {
                rootEntries += 1
                guard mediaType == mimetype else {
                    throw ContainerError.malformedManifest(
                        "the / entry says \(mediaType), the mimetype says \(mimetype)")
                }
            } else {
                entries.append(Entry(path: path, mediaType: mediaType))
            }
        }
        guard rootEntries == 1 else { throw ContainerError.malformedManifest("no full-path=\"/\" entry") }
        self.entries = entries
    }

    /// The manifest as the reference writes it: two-space indent, `/` first, raw UTF-8 paths.
    func serialized(mimetype: String) -> Data {
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <manifest:manifest xmlns:manifest="\(XMLNamespace.manifest)" manifest:version="1.2">
              <manifest:file-entry manifest:full-path="/" manifest:media-type="\(XMLText.attribute(mimetype))"/>

            """
        for entry in entries {
            xml +=
                "  <manifest:file-entry manifest:full-path=\"\(XMLText.attribute(entry.path))\" "
                + "manifest:media-type=\"\(XMLText.attribute(entry.mediaType))\"/>\n"
        }
        xml += "</manifest:manifest>\n"
        return Data(xml.utf8)
    }
}

/// Escaping for text and attribute values written into XML by hand.
enum XMLText {
    /// True when every character may appear in an XML 1.0 document (the `Char` production).
    static func isAllowed(_ s: String) -> Bool {
        s.unicodeScalars.allSatisfy { c in
            switch c.value {
            case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
            default: false
            }
        }
    }

    /// Escaped for an attribute value in double quotes (whitespace kept as character references,
    /// which attribute-value normalisation would otherwise turn into spaces).
    static func attribute(_ s: String) -> String { escape(s, inAttribute: true) }

    /// Escaped for element content.
    static func content(_ s: String) -> String { escape(s, inAttribute: false) }

    private static func escape(_ s: String, inAttribute: Bool) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\r": out += "&#13;"
            case "\"" where inAttribute: out += "&quot;"
            case "'" where inAttribute: out += "&apos;"
            case "\t" where inAttribute: out += "&#9;"
            case "\n" where inAttribute: out += "&#10;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
