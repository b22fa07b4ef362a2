import FoundationEssentials
import Glibc

/// Finds the parts of a DigiDoc XML file without holding it: the `SignedDoc` start tag, each
/// `DataFile` (its start tag and where its content lies), each `Signature` (its bytes), in one
/// pass over the file. A data file's content can be hundreds of megabytes of base64, which an
/// XML parser would hold whole (and a DOM twice); here it is found with `memchr` and streamed.
///
/// The scanner reads a strict subset of XML, the one DigiDoc writers produce: an optional BOM and
/// XML declaration, elements with quoted attributes, character data. Comments, CDATA sections,
/// processing instructions and any `<!` (DOCTYPE, entity declarations) are refused, so nothing
/// can hide markup from it or expand. Every part it hands on (start tags, signatures) is parsed
/// again by libxml2 with tamga's hardened settings (`XMLDocument`), which decodes attribute
/// values and checks well-formedness; the two agree on element boundaries because the subset has
/// no construct where they could differ.
struct DigiDocScanner {
    struct Tag {
        let name: String
        /// From `<` to after `>`.
        let range: Range<UInt64>
        let isEnd: Bool
        let isEmpty: Bool
    }

    let file: InputFile
    private var window: [UInt8] = []
    private var windowStart: UInt64 = 0

    /// The most bytes a start or end tag may have.
    static let maximumTagLength = 64 << 10
    /// The most elements nested inside a Signature (an XAdES signature has about 10 levels).
    static let maximumDepth = 64
    /// 64 KB: the first window (the SignedDoc and first DataFile start tags) is read before the
    /// first data file can be hashed, and a larger one (1 MB was tried) costs its read and page
    /// faults there; tags and signatures are a few KB, and base64 content is not read through it.
    static let windowSize = 64 << 10

    init(file: InputFile) { self.file = file }

    var size: UInt64 { file.size }

    // MARK: - Bytes

    /// The byte at `offset`, nil at the end of the file.
    mutating func byte(at offset: UInt64) throws -> UInt8? {
        guard offset < file.size else { return nil }
        if offset < windowStart || offset >= windowStart + UInt64(window.count) {
            try load(at: offset)
        }
        return window[Int(offset - windowStart)]
    }

    /// `count` bytes at `offset` (fewer at the end of the file).
    mutating func bytes(at offset: UInt64, count: Int) throws -> [UInt8] {
        let available = Int(min(UInt64(count), file.size - min(offset, file.size)))
        guard available > 0 else { return [] }
        if offset < windowStart || offset + UInt64(available) > windowStart + UInt64(window.count) {
            try load(at: offset, atLeast: available)
        }
        let start = Int(offset - windowStart)
        return Array(window[start..<start + available])
    }

    private mutating func load(at offset: UInt64, atLeast: Int = 0) throws {
        let count = Int(min(UInt64(max(Self.windowSize, atLeast)), file.size - offset))
        window = try DigiDocScanner.reading { try file.read(count: count, at: offset) }
        windowStart = offset
    }

    /// Whether `literal` is at `offset`.
    mutating func starts(with literal: String, at offset: UInt64) throws -> Bool {
        var position = offset
        for expected in literal.utf8 {
            guard try byte(at: position) == expected else { return false }
            position += 1
        }
        return true
    }

    /// The first offset from `offset` that is not XML white space.
    mutating func skipWhitespace(from offset: UInt64) throws -> UInt64 {
        var position = offset
        while let byte = try byte(at: position), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            position += 1
        }
        return position
    }

    /// The offset of the next `<` at or after `offset` (the end of the file when there is none),
    /// found a window at a time with `memchr`; `sawCarriageReturn` tells whether a CR came before it.
    mutating func nextMarkup(from offset: UInt64) throws -> (offset: UInt64, sawCarriageReturn: Bool) {
        var position = offset
        var carriageReturn = false
        while position < file.size {
            if position < windowStart || position >= windowStart + UInt64(window.count) { try load(at: position) }
            let start = Int(position - windowStart)
            let found: Int? = window.withUnsafeBytes { raw -> Int? in
                guard let base = raw.baseAddress else { return nil }
                let length = raw.count - start
                let hit = memchr(base + start, Int32(UInt8(ascii: "<")), length)
                let end = hit.map { base.distance(to: UnsafeRawPointer($0)) } ?? raw.count
                if !carriageReturn, memchr(base + start, 0x0D, end - start) != nil { carriageReturn = true }
                return hit == nil ? nil : end
            }
            if let found { return (windowStart + UInt64(found), carriageReturn) }
            position = windowStart + UInt64(window.count)
        }
        return (file.size, carriageReturn)
    }

    // MARK: - Markup

    /// The tag that starts at `offset` (which holds `<`). Refuses every `<!` and `<?`: comments,
    /// CDATA, DOCTYPE and processing instructions have no place in a DigiDoc file.
    mutating func tag(at offset: UInt64) throws -> Tag {
        // Byte by byte from the window, without an array per tag: a DDOC has thousands of tags.
        guard try byte(at: offset) == UInt8(ascii: "<"), let second = try byte(at: offset + 1) else {
            throw Self.malformed("markup cut short at byte \(offset)")
        }
        switch second {
        case UInt8(ascii: "!"):
            let what =
                try starts(with: "<!--", at: offset)
                ? "a comment"
                : try starts(with: "<![CDATA[", at: offset)
                    ? "a CDATA section"
                    : "a DOCTYPE or entity declaration"
            throw Self.malformed(
                "\(what) at byte \(offset): DigiDoc writers never write one, and tamga reads none (no DTD, no entities)"
            )
        case UInt8(ascii: "?"):
            throw Self.malformed("a processing instruction at byte \(offset)")
        default:
            break
        }
        let isEnd = second == UInt8(ascii: "/")
        var position = offset + (isEnd ? 2 : 1)
        var nameBytes: [UInt8] = []
        nameBytes.reserveCapacity(32)
        while let byte = try byte(at: position), Self.isNameByte(byte) {
            nameBytes.append(byte)
            position += 1
            guard nameBytes.count <= 256 else {
                throw Self.malformed("an element name over 256 bytes at byte \(offset)")
            }
        }
        guard !nameBytes.isEmpty else { throw Self.malformed("a '<' that starts no element at byte \(offset)") }
        // To the closing '>', over quoted attribute values (which may hold '>' and '/').
        var quote: UInt8? = nil
        var last: UInt8 = 0
        while true {
            guard position - offset <= UInt64(Self.maximumTagLength) else {
                throw Self.malformed("a tag over \(Self.maximumTagLength >> 10) KB at byte \(offset)")
            }
            guard let byte = try byte(at: position) else {
                throw Self.malformed("the file ends inside a tag (byte \(offset))")
            }
            position += 1
            if let open = quote {
                if byte == open {
                    quote = nil
                } else if byte == UInt8(ascii: "<") {
                    throw Self.malformed("a '<' inside an attribute value at byte \(position - 1)")
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                guard !isEnd else { throw Self.malformed("an end tag with attributes at byte \(offset)") }
                quote = byte
            case UInt8(ascii: "<"):
                throw Self.malformed("a '<' inside a tag at byte \(position - 1)")
            case UInt8(ascii: ">"):
                return Tag(
                    name: String(decoding: nameBytes, as: UTF8.self), range: offset..<position, isEnd: isEnd,
                    isEmpty: !isEnd && last == UInt8(ascii: "/"))
            default:
                break
            }
            if byte != 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D { last = byte }
        }
    }

    /// Where the element whose start tag is `start` ends (after its end tag), over nested
    /// elements and character data; at most `limit` bytes in all.
    mutating func elementEnd(after start: Tag, limit: UInt64) throws -> UInt64 {
        try endTag(of: start, limit: limit)?.upperBound ?? start.range.upperBound
    }

    /// The end tag of the element whose start tag is `start` (its own bytes: the content ends
    /// where it starts, whatever spelling it has, `</DataFile >` or with a prefix); nil for an
    /// empty-element tag.
    mutating func endTag(of start: Tag, limit: UInt64) throws -> Range<UInt64>? {
        guard !start.isEmpty else { return nil }
        var open = [start.name]
        var position = start.range.upperBound
        while true {
            guard position - start.range.lowerBound <= limit else {
                throw Self.malformed("\(start.name) at byte \(start.range.lowerBound) is longer than \(limit >> 20) MB")
            }
            let (markup, _) = try nextMarkup(from: position)
            guard markup < file.size else {
                throw Self.malformed("the file ends inside \(start.name) (byte \(start.range.lowerBound))")
            }
            let tag = try tag(at: markup)
            position = tag.range.upperBound
            if tag.isEnd {
                guard tag.name == open.last else {
                    throw Self.malformed("</\(tag.name)> at byte \(markup) closes <\(open.last ?? "")>")
                }
                open.removeLast()
                if open.isEmpty { return tag.range }
            } else if !tag.isEmpty {
                open.append(tag.name)
                guard open.count <= Self.maximumDepth else {
                    throw Self.malformed("elements nested over \(Self.maximumDepth) deep in \(start.name)")
                }
            }
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"):
            true
        default:
            byte >= 0x80
        }
    }

    static func malformed(_ why: String) -> ContainerError { .malformedDDOC(why) }

    /// File reads report DDOC errors, not the ZIP reader's words.
    static func reading<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch ContainerError.malformedZip(let why) {
            throw ContainerError.malformedDDOC(why)
        }
    }
}
