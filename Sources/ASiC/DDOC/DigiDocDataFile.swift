internal import CPosix
import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// One `DataFile` of a DigiDoc file: its attributes, where its content lies, and the digest a
/// signature's `#Dn` reference must carry, computed as both reference libraries compute it
/// (docs/design/ddoc.md §3):
/// - DIGIDOC-XML 1.1–1.3, EMBEDDED_BASE64: SHA-1 of the inclusive C14N 1.0 of the DataFile
///   element taken alone (its own attributes; in 1.3 the SignedDoc namespace when it declares
///   none), the base64 text exactly as it stands (line breaks included, CR read as LF);
/// - SK-XML 1.0: SHA-1 of the decoded content;
/// - HASHCODE: no content; the `DigestValue` attribute is that digest, taken as it is.
/// For a 1.3 DataFile without its own `xmlns` the digest without the namespace is kept too: some
/// writers signed that one, which DigiDoc4j (and SiVa) accept with a warning.
struct DigiDocDataFile: Sendable, Equatable {
    enum ContentType: String, Sendable {
        case embeddedBase64 = "EMBEDDED_BASE64"
        case hashcode = "HASHCODE"
        case embedded = "EMBEDDED"
    }

    let id: String
    let fileName: String
    let mimeType: String
    let contentType: ContentType
    /// The `Size` attribute, when it is a number.
    let declaredSize: UInt64?
    /// Where the content (base64 text, or inline XML) lies in the file; nil for hashcode.
    let content: Range<UInt64>?
    /// The reference digest (SHA-1).
    let digest: Data
    /// 1.3 without its own namespace: the digest without the injected one.
    let alternateDigest: Data?
    /// The decoded size (base64 counted, not decoded), or the declared one for hashcode.
    let size: UInt64
    /// After the DataFile's end tag.
    let end: UInt64

    static let sha1Length = 20

    init(
        tag: DigiDocScanner.Tag, version: DigiDocVersion, scanner: inout DigiDocScanner, tags: DigiDocStartTagReader,
        progress: ProgressHandler?
    ) throws {
        let startTag = try scanner.bytes(at: tag.range.lowerBound, count: tag.range.count)
        let read = try tags.read(startTag, name: "DataFile")
        let element = read.attributes
        guard let id = element.attribute("Id"), !id.isEmpty else {
            throw DigiDocScanner.malformed("a DataFile without an Id (byte \(tag.range.lowerBound))")
        }
        self.id = id
        guard let fileName = element.attribute("Filename"), !fileName.isEmpty else {
            throw ContainerError.malformedDDOC("DataFile \(id) has no Filename")
        }
        self.fileName = fileName
        mimeType = element.attribute("MimeType") ?? "application/octet-stream"
        let typeText = element.attribute("ContentType") ?? ""
        guard let contentType = ContentType(rawValue: typeText) else {
            throw ContainerError.malformedDDOC(
                "DataFile \(id) has ContentType \"\(typeText)\"; tamga reads EMBEDDED_BASE64, EMBEDDED and HASHCODE (a DETATCHED file is not in the document)"
            )
        }
        self.contentType = contentType
        declaredSize = element.attribute("Size").flatMap { UInt64($0.trimmed()) }
        let ownNamespace = element.namespace

        // The canonical start tag, with the namespace the version injects (and, for 1.3 without
        // one of its own, without it: the alternate digest).
        let injected = version.dataFileNamespace.flatMap { ownNamespace == nil ? $0 : nil }
        let prefix = try tags.canonical(read, injecting: injected)
        let alternatePrefix = injected == nil ? nil : try tags.canonical(read, injecting: nil)
        let closing = Array("</DataFile>".utf8)

        switch contentType {
        case .hashcode:
            // The content is gone; what is left must be white space, and the digest is the attribute.
            var end = tag.range.upperBound
            if !tag.isEmpty {
                let after = try scanner.skipWhitespace(from: tag.range.upperBound)
                let close = try scanner.tag(at: after)
                guard close.isEnd, close.name == "DataFile" else {
                    throw ContainerError.malformedDDOC("hashcode DataFile \(id) holds content")
                }
                end = close.range.upperBound
            }
            guard (element.attribute("DigestType") ?? "").lowercased() == "sha1" else {
                throw ContainerError.malformedDDOC(
                    "hashcode DataFile \(id) has DigestType \"\(element.attribute("DigestType") ?? "")\", not sha1")
            }
            guard let value = element.attribute("DigestValue"),
                let digest = try? Base64.decode(value, ignoringWhitespace: true, maximumCount: 64),
                digest.count == Self.sha1Length
            else {
                throw ContainerError.malformedDDOC("hashcode DataFile \(id) has no SHA-1 DigestValue of 20 bytes")
            }
            self.digest = Data(digest)
            alternateDigest = nil
            content = nil
            size = declaredSize ?? 0
            self.end = end
        case .embedded:
            // Inline XML: canonicalised whole (it is small, or refused), as 1.1–1.3 define it.
            // An empty-element tag has no content to sign (and no end tag to measure from).
            guard let endTag = try scanner.endTag(of: tag, limit: DigiDocDocument.maximumEmbeddedXMLLength) else {
                throw ContainerError.malformedDDOC("DataFile \(id) is empty")
            }
            let end = endTag.upperBound
            let bytes = try scanner.bytes(at: tag.range.lowerBound, count: Int(end - tag.range.lowerBound))
            let contentStart = tag.range.upperBound
            let contentEnd = endTag.lowerBound
            content = contentStart..<contentEnd
            size = contentEnd - contentStart
            if version == .skXML10 {
                digest =
                    Digest.compute(
                        .sha1,
                        over: Data(
                            bytes[Int(contentStart - tag.range.lowerBound)..<Int(contentEnd - tag.range.lowerBound)])
                    ).bytes
                alternateDigest = nil
            } else {
                digest = try Self.canonicalDigest(of: bytes, injecting: injected)
                alternateDigest = injected == nil ? nil : try Self.canonicalDigest(of: bytes, injecting: nil)
            }
            self.end = end
        case .embeddedBase64:
            guard !tag.isEmpty else { throw ContainerError.malformedDDOC("DataFile \(id) is empty") }
            let contentStart = tag.range.upperBound
            // One pass from the content's start, in two stages: on a reader thread running ahead,
            // the checker finds the `<` that ends the content (memchr) and whether a CR is there;
            // this thread's hasher takes each chunk with what was found. The stream ends at the
            // chunk that holds the `<`.
            let hashing = DataFileHashing(
                prefix: version == .skXML10 ? nil : prefix, alternatePrefix: alternatePrefix,
                decodes: version == .skXML10)
            let remaining = scanner.size - contentStart
            var done: UInt64 = 0
            do {
                try scanner.file.streamReadingAhead(
                    from: contentStart, length: remaining, chunkSize: Container.ddocChunkSize,
                    inspect: { chunk in
                        let inspected = try hashing.inspect(chunk)
                        done += UInt64(chunk.count)
                        progress?(
                            ProgressEvent(
                                phase: .hashing, item: fileName, completed: min(done, remaining), total: remaining))
                        return inspected
                    },
                    consume: { chunk, note in
                        hashing.hash(chunk, note)
                    })
            } catch let failure as StreamingBase64Decoder.Failure {
                guard case .notBase64(let why) = failure else { throw failure }
                throw ContainerError.malformedDDOC("the content of DataFile \(id) is not base64: \(why)")
            } catch ContainerError.malformedZip(let why) {
                throw ContainerError.malformedDDOC(why)
            }
            guard let length = hashing.checker.contentLength else {
                throw DigiDocScanner.malformed("the file ends inside DataFile \(id)")
            }
            do {
                try hashing.finish()
            } catch StreamingBase64Decoder.Failure.notBase64(let why) {
                throw ContainerError.malformedDDOC("the content of DataFile \(id) is not base64: \(why)")
            }
            let contentEnd = contentStart + length
            let close = try scanner.tag(at: contentEnd)
            guard close.isEnd, close.name == "DataFile" else {
                throw ContainerError.malformedDDOC(
                    "DataFile \(id) is EMBEDDED_BASE64 but holds markup (<\(close.isEnd ? "/" : "")\(close.name)> at byte \(contentEnd))"
                )
            }
            content = contentStart..<contentEnd
            end = close.range.upperBound
            digest = hashing.digest(suffix: closing)
            alternateDigest = hashing.alternateDigest(suffix: closing)
            size = hashing.decodedSize
        }
    }

    /// C14N 1.0 of the start tag alone, without the `</DataFile>` it is canonicalised with:
    /// what the libraries hash before the content.
    static func canonicalStartTag(
        _ startTag: [UInt8], injecting namespace: String?, name: String = "DataFile"
    ) throws -> [UInt8] {
        let canonical = try canonicalElement(Array(DigiDocDocument.closing(startTag, name: name)), injecting: namespace)
        let closing = Array("</\(name)>".utf8)
        guard canonical.count >= closing.count, Array(canonical.suffix(closing.count)) == closing else {
            throw ContainerError.malformedDDOC("a \(name) start tag that does not canonicalise")
        }
        return Array(canonical.dropLast(closing.count))
    }

    /// SHA-1 of a whole element (inline XML content) taken alone.
    static func canonicalDigest(of element: [UInt8], injecting namespace: String?) throws -> Data {
        Digest.compute(.sha1, over: Data(try canonicalElement(element, injecting: namespace))).bytes
    }

    /// C14N 1.0 of an element's bytes parsed alone, with ` xmlns="…"` added to its start tag when
    /// asked: the DigiDoc libraries' digest input (own attributes only, the version's namespace).
    static func canonicalElement(_ bytes: [UInt8], injecting namespace: String?) throws -> [UInt8] {
        var input = bytes
        if let namespace {
            // After the element name: `<Name` then white space, `>` or `/`.
            var index = 1
            while index < input.count,
                ![0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(input[index])
            { index += 1 }
            input.insert(contentsOf: Array(" xmlns=\"\(namespace)\"".utf8), at: index)
        }
        let document = try XMLDocument(data: Data(input), name: "DataFile", limits: .signature)
        guard let root = document.root else { throw DigiDocScanner.malformed("an unreadable element") }
        return Array(try document.canonicalize(root, .c14n10))
    }
}

/// The work on one base64 DataFile's content, split between two cores
/// (`InputFile.streamReadingAhead`): the `checker` (every byte base64 or white space, the decoded
/// size counted, SK-XML's decoded-data digest) sees a chunk first, finds the `<` that ends the
/// content and whether a CR needs rewriting, and the `hasher` (SHA-1 of the canonical element,
/// and of the alternate one) then hashes what the note says is content. Two objects, each
/// touched by one thread only; the note is handed over with the chunk.
private struct DataFileHashing {
    /// What the checker found in a chunk: how many bytes are content, and whether a CR is there.
    struct Note {
        let contentCount: Int
        let hasCarriageReturn: Bool
    }

    let hasher: CanonicalContentHasher
    let checker: ContentChecker

    init(prefix: [UInt8]?, alternatePrefix: [UInt8]?, decodes: Bool) {
        hasher = CanonicalContentHasher(prefix: prefix, alternatePrefix: alternatePrefix)
        checker = ContentChecker(decodes: decodes)
    }

    func inspect(_ chunk: UnsafeRawBufferPointer) throws -> (note: Note, last: Bool) {
        let (content, ended) = beforeMarkup(chunk)
        try checker.update(content, ended: ended)
        let hasCarriageReturn =
            hasher.isHashing && content.baseAddress.map { memchr($0, 0x0D, content.count) != nil } ?? false
        return (Note(contentCount: content.count, hasCarriageReturn: hasCarriageReturn), ended)
    }

    func hash(_ chunk: UnsafeRawBufferPointer, _ note: Note) {
        hasher.update(
            UnsafeRawBufferPointer(rebasing: chunk[0..<note.contentCount]), hasCarriageReturn: note.hasCarriageReturn)
    }

    func finish() throws {
        hasher.finish()
        try checker.finish()
    }

    var decodedSize: UInt64 { checker.decodedSize }
    func digest(suffix: [UInt8]) -> Data { hasher.digest(suffix: suffix) ?? checker.decodedDigest }
    func alternateDigest(suffix: [UInt8]) -> Data? { hasher.alternateDigest(suffix: suffix) }
}

/// The part of `chunk` before the first `<`, and whether there is one.
private func beforeMarkup(_ chunk: UnsafeRawBufferPointer) -> (UnsafeRawBufferPointer, ended: Bool) {
    guard let base = chunk.baseAddress, let hit = memchr(base, Int32(UInt8(ascii: "<")), chunk.count) else {
        return (chunk, false)
    }
    return (UnsafeRawBufferPointer(rebasing: chunk[0..<base.distance(to: UnsafeRawPointer(hit))]), true)
}

/// SHA-1 of the canonical DataFile: the start tag, the content as an XML parser reads it (CR and
/// CRLF as LF: the rewrite runs only on chunks that hold a CR), then `</DataFile>`.
private final class CanonicalContentHasher {
    private let main: StreamingDigest?
    private let alternate: StreamingDigest?
    private var pendingCarriageReturn = false

    init(prefix: [UInt8]?, alternatePrefix: [UInt8]?) {
        func started(_ bytes: [UInt8]?) -> StreamingDigest? {
            bytes.map { bytes in
                let hasher = StreamingDigest(.sha1)
                bytes.withUnsafeBytes { hasher.update($0) }
                return hasher
            }
        }
        main = started(prefix)
        alternate = started(alternatePrefix)
    }

    /// Whether there is a digest to take (not for SK-XML 1.0, whose digest is the checker's).
    var isHashing: Bool { main != nil || alternate != nil }

    /// Content only (the part before the `<`), with whether it holds a CR, as the checker found.
    func update(_ chunk: UnsafeRawBufferPointer, hasCarriageReturn: Bool) {
        guard isHashing else { return }
        guard !pendingCarriageReturn, !hasCarriageReturn else {
            rewriteLineEnds(chunk)
            return
        }
        main?.update(chunk)
        alternate?.update(chunk)
    }

    private func rewriteLineEnds(_ chunk: UnsafeRawBufferPointer) {
        var out: [UInt8] = []
        out.reserveCapacity(chunk.count + 1)
        for byte in chunk {
            if pendingCarriageReturn {
                pendingCarriageReturn = false
                out.append(0x0A)
                if byte == 0x0A { continue }
            }
            if byte == 0x0D { pendingCarriageReturn = true } else { out.append(byte) }
        }
        out.withUnsafeBytes { raw in
            main?.update(raw)
            alternate?.update(raw)
        }
    }

    func finish() {
        guard pendingCarriageReturn else { return }
        pendingCarriageReturn = false
        let newline: [UInt8] = [0x0A]
        newline.withUnsafeBytes { raw in
            main?.update(raw)
            alternate?.update(raw)
        }
    }

    func digest(suffix: [UInt8]) -> Data? {
        guard let main else { return nil }
        suffix.withUnsafeBytes { main.update($0) }
        return main.finish().bytes
    }

    func alternateDigest(suffix: [UInt8]) -> Data? {
        guard let alternate else { return nil }
        suffix.withUnsafeBytes { alternate.update($0) }
        return alternate.finish().bytes
    }
}

/// Checks that the content is base64 with white space, finds where it ends, and counts what it
/// decodes to: whole blocks of 64 in vectorised C while they hold only alphabet and white space,
/// the rest (the padding, the end, a stray byte) one table look-up a byte.
/// SK-XML 1.0, whose digest is over the decoded bytes, decodes them instead.
private final class ContentChecker {
    private let decodes: Bool
    private var decoder = StreamingBase64Decoder()
    private let decoded = StreamingDigest(.sha1)
    /// Bytes before the ending `<`, once it was seen.
    private(set) var contentLength: UInt64? = nil
    private var seen: UInt64 = 0
    private var alphabet: UInt64 = 0
    private var padding = 0
    private var lastValue: UInt8 = 0

    init(decodes: Bool) { self.decodes = decodes }

    /// Content only (the part before the `<`), and whether the `<` was found in this chunk.
    func update(_ chunk: UnsafeRawBufferPointer, ended: Bool) throws {
        guard contentLength == nil else { return }
        if decodes {
            let digest = decoded
            try decoder.decode(chunk) { digest.update($0) }
        } else {
            try census(chunk)
        }
        seen += UInt64(chunk.count)
        if ended { contentLength = seen }
    }

    private func census(_ chunk: UnsafeRawBufferPointer) throws {
        try StreamingBase64Decoder.table.withUnsafeBufferPointer { table in
            var index = 0
            let count = chunk.count
            // 64 bytes at a time while they are all alphabet or white space (all but the last
            // block of a data file), in vectorised C (`cposix_base64_census`); a block with
            // anything else, and the partial one at the end, go byte by byte below.
            if padding == 0, let base = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self) {
                index = cposix_base64_census(base, count, &alphabet)
                if index > 0 {
                    // The last alphabet character so far, for the trailing-bits check at the end.
                    var back = index - 1
                    while back >= 0, table[Int(chunk[back])] >= 64 { back -= 1 }
                    if back >= 0 { lastValue = table[Int(chunk[back])] }
                }
            }
            while index < count {
                let value = table[Int(chunk[index])]
                if value < 64 {
                    if padding > 0 { throw StreamingBase64Decoder.Failure.notBase64("base64 data after its padding") }
                    alphabet += 1
                    lastValue = value
                } else if value == 65 {
                    padding += 1
                    if padding > 2 { throw StreamingBase64Decoder.Failure.notBase64("too much base64 padding") }
                } else if value != 64 {
                    throw StreamingBase64Decoder.Failure.notBase64(
                        "a character that is not base64 (byte 0x\(String(chunk[index], radix: 16)))")
                }
                index += 1
            }
        }
    }

    func finish() throws {
        if decodes {
            let digest = decoded
            try decoder.finish { digest.update($0) }
            return
        }
        switch (alphabet % 4, padding) {
        case (0, 0): break
        case (2, 2):
            if lastValue & 0x0F != 0 {
                throw StreamingBase64Decoder.Failure.notBase64("base64 with stray trailing bits")
            }
        case (3, 1):
            if lastValue & 0x03 != 0 {
                throw StreamingBase64Decoder.Failure.notBase64("base64 with stray trailing bits")
            }
        default: throw StreamingBase64Decoder.Failure.notBase64("base64 whose length or padding is impossible")
        }
    }

    var decodedSize: UInt64 { decodes ? decoder.decodedCount : alphabet / 4 * 3 + [0, 0, 1, 2][Int(alphabet % 4)] }
    var decodedDigest: Data { decoded.finish().bytes }
}
