import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

extension Container {
    /// The chunk a DDOC's base64 content is read and hashed in, on two threads
    /// (`InputFile.streamReadingAhead`; content of one chunk or less stays on one). Tests and the
    /// fuzz target make it small, so that a file of a few KB takes the two-thread path with
    /// many chunks; nothing else should change it.
    @_spi(Testing) nonisolated(unsafe) public static var ddocChunkSize = 256 << 10

    /// Whether a DDOC's start tags are read first without libxml2, and confirmed by it after
    /// (`DigiDocDocument.init`). Tests and the fuzz target turn it off to compare both readings;
    /// nothing else should change it.
    @_spi(Testing) nonisolated(unsafe) public static var ddocReadsStartTagsWithoutLibXML2 = true

    /// A DDOC's data files as `DataFile`s: the name is the `Filename` (which may not hold a path),
    /// the media type the `MimeType`.
    static func dataFiles(of document: DigiDocDocument) throws -> [DataFile] {
        try document.dataFiles.map { file in
            guard !file.fileName.contains("/"), !file.fileName.contains("\\"),
                !file.fileName.unicodeScalars.contains(where: { $0.value < 0x20 })
            else {
                throw ContainerError.unsafeEntryName(file.fileName)
            }
            return DataFile(name: file.fileName, mediaType: file.mimeType, size: file.size, source: .ddoc(file))
        }
    }

    /// The DDOC's format (`DIGIDOC-XML 1.3`), nil for ASiC.
    public var digiDocVersion: DigiDocVersion? { ddoc?.version }

    /// SiVa's name for the document's form (`DIGIDOC_XML_1.3`, `DIGIDOC_XML_1.3_hashcode`), nil
    /// for ASiC; `verify` reports it as the container type.
    public var digiDocSignatureForm: String? { ddoc.map { $0.version.signatureForm(hashcode: $0.isHashcode) } }

    /// Streams a DDOC data file's content: base64 decoded as it is read, inline XML as it stands.
    func readDigiDocContent(_ file: DigiDocDataFile, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let range = file.content else { throw ContainerError.ddocContentNotInDocument(file.fileName) }
        let input = try InputFile(path: path)
        try DigiDocScanner.reading {
            switch file.contentType {
            case .embedded:
                try input.stream(from: range.lowerBound, length: UInt64(range.count), body)
            case .embeddedBase64, .hashcode:
                var decoder = StreamingBase64Decoder()
                do {
                    try input.stream(from: range.lowerBound, length: UInt64(range.count)) { chunk in
                        try decoder.decode(chunk, sink: body)
                    }
                    try decoder.finish(sink: body)
                } catch StreamingBase64Decoder.Failure.notBase64(let why) {
                    throw ContainerError.malformedDDOC("the content of DataFile \(file.id) is not base64: \(why)")
                }
            }
        }
    }
}

extension Container {
    /// Verifies a DDOC: each signature (`DDOCSignatureValidator`), and what concerns the document
    /// as a whole: SHA-1 (what the format has: a warning, as SiVa gives it), an old version, data
    /// file Ids, no signatures.
    func validateDDOC(_ document: DigiDocDocument, _ options: ValidationOptions) -> ValidationReport {
        var findings = FindingList()
        // The DDOC trust set applies: "no trust configured" does not hold here.
        for notice in options.trustNotices where notice != .noTrustConfigured {
            findings.add(notice.code, notice.severity, notice.message)
        }
        findings.warning(
            "ddoc-sha1",
            "the algorithm SHA-1 that DDOC signatures and digests use is no longer considered reliable for signature creation (SiVa's warning); to keep an archive's evidence strong, time-stamp the file (tamga container timestamp)"
        )
        if document.version.isOld {
            findings.warning(
                "ddoc-old-version",
                "\(document.version.rawValue) is an old DigiDoc format (DigiDoc4j: \"Old and unsupported format\")")
        }
        var ids: Set<String> = []
        for file in document.dataFiles {
            if !ids.insert(file.id).inserted {
                findings.invalid("duplicate-id", "two data files have the Id \(file.id)")
            }
            if !Self.isDataFileID(file.id) {
                findings.invalid(
                    "ddoc-data-file-id",
                    "DataFile Id \(file.id) is not of the form D<number> (DigiDoc4j: \"Id attribute value has to be in form D<number> or DO\")"
                )
            }
            if file.contentType == .embedded {
                // The digest is still checked (a tampered one is reported as such), but a form that
                // the validator SiVa runs refuses is never VALID here.
                findings.invalid(
                    "ddoc-embedded-content",
                    "\(file.fileName) (\(file.id)) holds its content inline (ContentType EMBEDDED): DigiDoc4j, and so SiVa, refuse this form, and libdigidoc reads it only with EMBEDDED_XML_SUPPORT on; tamga does not call it valid"
                )
            }
            if let declared = file.declaredSize, file.content != nil, file.contentType == .embeddedBase64,
                declared != file.size
            {
                findings.warning(
                    "ddoc-data-file-size",
                    "\(file.fileName) (\(file.id)): its Size attribute says \(declared) bytes, its content holds \(file.size)"
                )
            }
        }
        if document.signatures.isEmpty { findings.invalid("no-signatures", "the document holds no signatures") }
        let validator = DDOCSignatureValidator(document: document, options: options, trust: options.ddocTrust)
        var seen: Set<String> = []
        var results: [ValidationReport.SignatureResult] = []
        for block in document.signatures {
            var result = validator.validate(block)
            if let id = result.id, !seen.insert(id).inserted {
                findings.invalid("duplicate-id", "two signatures have the Id \(id)")
            }
            result.signerName = result.signer.map(DistinguishedName.readableName(rfc4514:))
            results.append(result)
        }
        let status = max(findings.status, results.map(\.status).max() ?? .valid)
        return ValidationReport(
            container: path, status: status, dataFiles: dataFiles.map(\.name), findings: findings.items,
            signatures: results, containerType: document.version.signatureForm(hashcode: document.isHashcode))
    }

    /// `D` and a number, or DigiDoc4j's other accepted form `DO`.
    static func isDataFileID(_ id: String) -> Bool {
        id == "DO" || (id.hasPrefix("D") && id.count > 1 && id.dropFirst().allSatisfy { $0.isASCII && $0.isNumber })
    }
}

extension Container {
    /// `container ls` for a DDOC: each signature's Id, signer, claimed time, roles and place.
    func ddocSignatureSummaries() -> [SignatureSummary] {
        guard let ddoc else { return [] }
        return ddoc.signatures.map { block in
            let name = "S\(block.index)"
            guard let document = try? XMLDocument(data: block.bytes, name: name), let signature = document.root else {
                return SignatureSummary(file: name, id: nil, signer: nil, signingTime: nil)
            }
            var der: Data? = nil, time: String? = nil, roles: [String] = [], place: [String] = []
            signature.walk { element in
                switch element.localName {
                case "X509Certificate" where der == nil: der = XMLBase64.decode(element.text)
                case "SigningTime": time = ddoc.version.parseTime(element.text).map(XSDDateTime.format) ?? element.text
                case "ClaimedRole": if !element.text.trimmed().isEmpty { roles.append(element.text.trimmed()) }
                case "City", "StateOrProvince", "PostalCode", "CountryName":
                    if !element.text.trimmed().isEmpty { place.append(element.text.trimmed()) }
                default: break
                }
            }
            return SignatureSummary(
                file: name, id: signature.attribute("Id"), signer: der.flatMap { try? Certificate(der: $0) }?.subject,
                signingTime: time, claimedRoles: roles.isEmpty ? nil : roles,
                productionPlace: place.isEmpty ? nil : place.joined(separator: ", "))
        }
    }
}
