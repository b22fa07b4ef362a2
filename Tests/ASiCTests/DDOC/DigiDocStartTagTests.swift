import TamgaCore
import TamgaTestSupport
import XCTest

@_spi(Testing) @testable import ASiC

/// DDOC start tags read without libxml2 (`DigiDocStartTag`, so that hashing need not wait for
/// libxml2 to load) read as libxml2 reads them, or not at all; and where libxml2 reads a file
/// otherwise, its reading is the one that counts.
final class DigiDocStartTagTests: DDOCTestCase {
    private let namespace13 = DigiDocVersion.namespace13

    func testPlainTagsCanonicaliseExactlyAsLibXML2Does() throws {
        let tags = [
            #"<DataFile ContentType="EMBEDDED_BASE64" Filename="data.bin" Id="D0" MimeType="application/octet-stream" Size="20" xmlns="http://www.sk.ee/DigiDoc/v1.3.0#">"#,
            #"<DataFile Id="D1" Filename='lõpp äöü.txt' ContentType='EMBEDDED_BASE64' MimeType="text/plain">"#,
            "<DataFile\n  Size = \"3\"\r\n\tId=\"D2\" Filename=\"a>b.txt\" ContentType=\"HASHCODE\" DigestType=\"sha1\" DigestValue=\"AAAA\"/>",
            #"<DataFile Zeta="1" alpha="2" Beta="3" _x="4" a.b-c="5" Filename="x" Id="D3" ContentType="EMBEDDED">"#,
            #"<SignedDoc format="DIGIDOC-XML" version="1.3" xmlns="http://www.sk.ee/DigiDoc/v1.3.0#">"#,
            #"<SignedDoc format="SK-XML" version="1.0">"#,
        ]
        for text in tags {
            let bytes = Array(text.utf8)
            let name = text.hasPrefix("<SignedDoc") ? "SignedDoc" : "DataFile"
            guard let tag = DigiDocStartTag.parse(bytes, name: name) else {
                XCTFail("not read: \(text)")
                continue
            }
            let element = try DigiDocDocument.parseStartTag(bytes, name: name)
            XCTAssertEqual(tag.namespace, element.namespace, text)
            for attribute in [
                "Id", "Filename", "ContentType", "MimeType", "Size", "format", "version", "Zeta", "xmlns", "Missing",
            ] {
                XCTAssertEqual(tag.attribute(attribute), element.attribute(attribute), "\(attribute) of \(text)")
            }
            var injections: [String?] = [nil]
            if tag.namespace == nil { injections.append(namespace13) }
            for injected in injections {
                XCTAssertEqual(
                    String(decoding: tag.canonical(injecting: injected), as: UTF8.self),
                    String(
                        decoding: try DigiDocDataFile.canonicalStartTag(bytes, injecting: injected, name: name),
                        as: UTF8.self), text)
            }
        }
    }

    func testAnythingThatNeedsAnXMLParserIsLeftToLibXML2() {
        let refused = [
            #"<DataFile Filename="a&amp;b" Id="D0">"#,  // a reference to decode
            "<DataFile Filename=\"a\tb\" Id=\"D0\">",  // normalised by a parser
            #"<DataFile Filename='say "hi"' Id="D0">"#,  // C14N would escape the quote
            #"<DataFile Filename="a" Filename="b">"#,  // the same name twice
            #"<DataFile Id="D0"Filename="a">"#,  // no white space between
            #"<DataFile xmlns="" Id="D0">"#,  // an empty default namespace
            #"<DataFile xmlns:d="urn:x" d:Id="D0">"#,  // prefixes
            #"<ddoc:DataFile Id="D0">"#,
            #"<DataFile Id="D0>"#,  // no closing quote
            #"<DataFile Id="D0" >x"#,  // bytes after the tag
            #"<DataFiles Id="D0">"#,  // another element
            #"<DataFile Id=D0>"#,  // unquoted
        ]
        for text in refused { XCTAssertNil(DigiDocStartTag.parse(Array(text.utf8), name: "DataFile"), text) }
        XCTAssertNil(
            DigiDocStartTag.parse(
                Array(#"<DataFile Filename=""#.utf8) + [0xC3, 0x28] + Array(#"" Id="D0">"#.utf8), name: "DataFile"),
            "invalid UTF-8")
    }

    /// Thousands of one- and two-byte changes of real tags: each is either left to libxml2 or read
    /// exactly as libxml2 reads it (FuzzDDOCStartTag runs the same check on millions).
    func testChangedTagsAreLeftToLibXML2OrReadAsItReadsThem() {
        let seeds = [
            #"<DataFile ContentType="EMBEDDED_BASE64" Filename="data.bin" Id="D0" MimeType="application/octet-stream" Size="20" xmlns="http://www.sk.ee/DigiDoc/v1.3.0#">"#,
            #"<DataFile Id='D1' Filename='lõpp.txt' ContentType='HASHCODE' DigestType='sha1' DigestValue='AAAA'/>"#,
            #"<SignedDoc format="DIGIDOC-XML" version="1.3" xmlns="http://www.sk.ee/DigiDoc/v1.3.0#">"#,
        ]
        let interesting: [UInt8] = Array(" \t\n\r\"'<>/=&:;#x_-.aZ09".utf8) + [0x00, 0x7F, 0x80, 0xC3, 0xFF]
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
        var readQuickly = 0
        for seed in seeds {
            let original = Array(seed.utf8)
            let name = seed.hasPrefix("<SignedDoc") ? "SignedDoc" : "DataFile"
            for _ in 0..<1_500 {
                var bytes = original
                for _ in 0..<(1 + next(2)) {
                    switch next(3) {
                    case 0: bytes[next(bytes.count)] = interesting[next(interesting.count)]
                    case 1: bytes.insert(interesting[next(interesting.count)], at: 1 + next(bytes.count - 1))
                    default: if bytes.count > 2 { bytes.remove(at: 1 + next(bytes.count - 2)) }
                    }
                }
                let difference = DigiDocStartTagCheck.difference(bytes, name: name)
                XCTAssertTrue(
                    difference == nil || difference == "",
                    "\(String(decoding: bytes, as: UTF8.self)): \(difference ?? "")")
                if difference == "" { readQuickly += 1 }
            }
        }
        // Most changes land inside a value or a name and leave a tag both readings take.
        XCTAssertGreaterThan(readQuickly, 1_000)
    }

    /// The reader hands back what it read, and canonicalises each tag from that, in any order:
    /// quick and libxml2 readings mixed (every third tag has a reference, which only libxml2
    /// reads), the same bytes twice, and a record per quick tag of what was injected.
    func testTheReaderCanonicalisesEachTagFromItsOwnReading() throws {
        let reader = DigiDocStartTagReader(withoutLibXML2: true)
        var reads: [(DigiDocStartTagReader.Read, [UInt8])] = []
        for index in 0..<1_500 {
            let name = index % 3 == 0 ? "f&#97;\(index).txt" : "f\(index % 500).txt"
            let bytes = Array(
                #"<DataFile ContentType="EMBEDDED_BASE64" Filename="\#(name)" Id="D\#(index % 500)">"#.utf8)
            reads.append((try reader.read(bytes, name: "DataFile"), bytes))
        }
        for (read, bytes) in reads.reversed() {
            XCTAssertEqual(
                read.attributes.attribute("Id"),
                try DigiDocDocument.parseStartTag(bytes, name: "DataFile").attribute("Id"))
            for injected in [namespace13, nil] {
                XCTAssertEqual(
                    try reader.canonical(read, injecting: injected),
                    try DigiDocDataFile.canonicalStartTag(bytes, injecting: injected),
                    String(decoding: bytes, as: UTF8.self))
            }
        }
        XCTAssertTrue(reader.libXML2Agrees())
        XCTAssertEqual(
            try reader.read(Array(#"<DataFile Filename="a&#97;" Id="D0">"#.utf8), name: "DataFile").attributes
                .attribute("Filename"), "aa")
    }

    /// The files make-ddoc.py writes (the forms libdigidoc and DigiDoc4j write) are read without
    /// libxml2, and read the same with it only.
    func testWhatDigiDocWritersWriteIsReadWithoutLibXML2AndTheSameWithIt() throws {
        for (version, arguments) in [
            ("1.3", []), ("1.3", ["--no-xmlns-datafile"]), ("1.2", []), ("1.1", []), ("1.0", []),
            ("1.3", ["--hashcode"]),
        ] {
            let file = try ddoc(version, arguments)
            let text = try TestEnvironment.bytes(file)
            for name in ["SignedDoc", "DataFile"] {
                guard let start = text.firstRange(of: Data("<\(name) ".utf8))?.lowerBound,
                    let end = text[start...].firstIndex(of: UInt8(ascii: ">"))
                else {
                    XCTFail("\(version): no \(name)")
                    continue
                }
                XCTAssertNotNil(
                    DigiDocStartTag.parse(Array(text[start...end]), name: name), "\(version) \(arguments): \(name)")
            }
            XCTAssertEqual(
                try outcome(file, withoutLibXML2: true), try outcome(file, withoutLibXML2: false),
                "\(version) \(arguments)")
        }
    }

    /// A tag the quick reading takes but libxml2 reads otherwise: a DataFile whose namespace is a
    /// relative URI, which libxml2's C14N refuses. The file must be judged as libxml2 alone judges
    /// it (refused), not as the quick reading would have (opened).
    func testWhereLibXML2ReadsATagOtherwiseItsReadingCounts() throws {
        let text = String(decoding: try TestEnvironment.bytes(try ddoc("1.3")), as: UTF8.self)
        let variants = [
            (
                "relative namespace",
                text.replacingOccurrences(
                    of: #"(<DataFile [^>]*)xmlns="[^"]*""#, with: #"$1xmlns="relative""#, options: .regularExpression)
            ),
            (
                "reference in a file name",
                text.replacingOccurrences(of: #"Filename="test.txt""#, with: #"Filename="te&#115;t.txt""#)
            ),
        ]
        for (label, content) in variants {
            XCTAssertNotEqual(content, text, label)
            let file = path("variant-\(label.replacingOccurrences(of: " ", with: "-")).ddoc")
            try Data(content.utf8).write(to: URL(fileURLWithPath: file))
            let quick = try outcome(file, withoutLibXML2: true)
            XCTAssertEqual(quick, try outcome(file, withoutLibXML2: false), label)
            if label == "relative namespace" { XCTAssertTrue(quick.hasPrefix("refused"), "\(label): \(quick)") }
        }
    }

    private func outcome(_ file: String, withoutLibXML2: Bool) throws -> String {
        let saved = Container.ddocReadsStartTagsWithoutLibXML2
        defer { Container.ddocReadsStartTagsWithoutLibXML2 = saved }
        Container.ddocReadsStartTagsWithoutLibXML2 = withoutLibXML2
        do {
            let container = try Container(openingAt: file)
            let report = container.validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
            return
                "\(report.status) \(report.findings.map(\.code)) \(report.signatures.map { "\($0.status) \($0.findings.map(\.code))" }) \(container.dataFiles.map { "\($0.name) \($0.size)" })"
        } catch {
            return "refused: \((error as? ContainerError)?.code ?? "\(error)") \(error)"
        }
    }
}
