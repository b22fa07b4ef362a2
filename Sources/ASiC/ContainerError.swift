import FoundationEssentials
import Glibc
import TamgaCore

/// Why a container could not be read, changed or written. The case is the stable code
/// (`code`) used by `--json`, exit codes and tests; `description` tells a person what to do.
/// Signature *verification* outcomes are not errors: they are findings in a `ValidationReport`.
public enum ContainerError: Error, Equatable, Sendable {
    case fileNotFound(String)
    /// An input that exists but cannot be read as a file (a folder, no permission).
    case unreadableInput(path: String, reason: String)
    case ioFailure(path: String, reason: String)
    /// The bytes are not a readable ZIP archive (truncated, corrupt directory, overlapping entries).
    case malformedZip(String)
    /// A signed-document format tamga recognises but does not read.
    case unsupportedContainerFormat(String)
    /// A DigiDoc XML file (DDOC) that cannot be read: not well formed, markup tamga does not read
    /// (comments, DTDs, entities), an unknown version or content type, data that is not base64.
    case malformedDDOC(String)
    /// Signing, adding or removing on a DDOC: the format is retired and read-only.
    case ddocReadOnly
    /// A DDOC data file in hashcode form has no content to read or extract, only its digest.
    case ddocContentNotInDocument(String)
    /// A data file given only by its digest (hashcode validation) has no content to read.
    case contentNotGiven(String)
    /// A data file given only by its digest, in another algorithm than the signature uses.
    case digestAlgorithmNotGiven(file: String, given: String, needed: String)
    /// A ZIP feature tamga refuses to read (encryption, an unknown compression method, multi-disk).
    case unsupportedZip(String)
    /// An archive that ZIP readers would read differently (two end records, a ZIP64 locator
    /// that disagrees, bytes after the end, a local header that says otherwise than the central
    /// directory, a name decoded differently): refused, so what tamga verifies is what anyone
    /// unpacks.
    case ambiguousZip(String)
    /// An entry name that could escape a folder or is ambiguous (`..`, absolute, `\`, empty or `.` segments).
    case unsafeEntryName(String)
    case duplicateEntry(String)
    case mimetypeMissing
    case mimetypeNotFirst
    case mimetypeWrong(String)
    case manifestMissing
    case malformedManifest(String)
    /// The manifest and the ZIP do not list the same data files.
    case manifestMismatch(String)
    /// An XML file with a DTD, an entity declaration, or that does not parse.
    case malformedXML(file: String, reason: String)
    /// XML past the bounds tamga reads (elements, attributes, namespace declarations, depth,
    /// references, time-stamps): a file made to exhaust a verifier, not a real signature.
    case xmlTooComplex(file: String, reason: String)
    /// An entry whose data does not match its CRC or size (corrupt or tampered at ZIP level).
    case corruptEntry(String)
    /// An entry that inflates beyond the limit for its kind (a ZIP bomb).
    case entryTooLarge(name: String, limit: Int)
    /// Adding or removing data files is refused once the container holds a signature.
    case containerSigned
    case dataFileExists(String)
    case dataFileNotFound(String)
    case invalidDataFileName(String)
    case emptyDataFile(String)
    case noDataFiles
    /// Extraction would overwrite an existing file and `--force` was not given.
    case wouldOverwrite(String)
    /// Two data files would be extracted to one path once their names are made safe for the
    /// file system (`-x.txt` and `_-x.txt` both become `_-x.txt`), or one where the other
    /// needs a folder. Nothing was written.
    case extractionCollision(first: String, second: String, path: String)
    /// A data descriptor (the CRC-32 and sizes after an entry's data) that disagrees with the
    /// central directory, so readers that trust one or the other would see different files.
    case dataDescriptorMismatch(String)
    case noPendingSignature
    /// The signature value does not verify against the certificate: the signer is broken or
    /// was given the wrong digest. Nothing was written.
    case signatureValueRejected(String)
    case signingCertificateUnsuitable(String)
    case alreadyExists(String)
    /// A media type that is not `type/subtype`, or holds characters XML cannot carry.
    case invalidMediaType(String)
    /// A role or production place with characters XML cannot carry.
    case invalidSignatureProperty(String)
    /// An `.asics`/`.scs` file whose first entry `mimetype` names another type.
    case asicsMimetypeWrong(String)
    /// ASiC-S holds exactly one data object: these are the ones found (none, or several).
    case asicsDataObjectCount([String])
    /// An ASiC-S data object outside the root folder (`folder/a.txt`).
    case asicsDataObjectInFolder(String)
    /// An ASiC-S with two signatures (`META-INF/timestamp.tst` and `META-INF/signatures.xml`).
    case asicsSignatureConflict(String)
    /// A signature format tamga does not validate (CAdES `META-INF/signature.p7s`).
    case unsupportedSignatureFormat(String)
    /// Data files or signatures cannot be added to an ASiC-S container.
    case asicsReadOnly
    /// A BDOC 2.1 time-mark (OCSP without a time-stamp) cannot be extended: its evidence is the
    /// OCSP nonce, and a time-stamp added after it would make neither a TM nor an LT signature.
    case timeMarkNotExtensible(String)
    /// `extend` on a signature that does not verify (a changed file, a broken SignatureValue).
    case signatureDoesNotVerify(file: String, reason: String)

    public var code: String {
        switch self {
        case .fileNotFound: "file-not-found"
        case .unreadableInput: "unreadable-input"
        case .ioFailure: "io-failure"
        case .malformedZip: "malformed-zip"
        case .unsupportedContainerFormat: "unsupported-container-format"
        case .malformedDDOC: "malformed-ddoc"
        case .ddocReadOnly: "ddoc-read-only"
        case .ddocContentNotInDocument: "ddoc-content-not-in-document"
        case .contentNotGiven: "content-not-given"
        case .digestAlgorithmNotGiven: "digest-algorithm-not-given"
        case .unsupportedZip: "unsupported-zip"
        case .ambiguousZip: "ambiguous-zip"
        case .unsafeEntryName: "unsafe-entry-name"
        case .duplicateEntry: "duplicate-entry"
        case .mimetypeMissing: "mimetype-missing"
        case .mimetypeNotFirst: "mimetype-not-first"
        case .mimetypeWrong: "mimetype-wrong"
        case .manifestMissing: "manifest-missing"
        case .malformedManifest: "malformed-manifest"
        case .manifestMismatch: "manifest-mismatch"
        case .malformedXML: "malformed-xml"
        case .xmlTooComplex: "xml-too-complex"
        case .corruptEntry: "corrupt-entry"
        case .entryTooLarge: "entry-too-large"
        case .containerSigned: "container-signed"
        case .dataFileExists: "data-file-exists"
        case .dataFileNotFound: "data-file-not-found"
        case .invalidDataFileName: "invalid-data-file-name"
        case .emptyDataFile: "empty-data-file"
        case .noDataFiles: "no-data-files"
        case .wouldOverwrite: "would-overwrite"
        case .extractionCollision: "extraction-collision"
        case .dataDescriptorMismatch: "data-descriptor-mismatch"
        case .noPendingSignature: "no-pending-signature"
        case .signatureValueRejected: "signature-value-rejected"
        case .signingCertificateUnsuitable: "signing-certificate-unsuitable"
        case .alreadyExists: "already-exists"
        case .invalidMediaType: "invalid-media-type"
        case .invalidSignatureProperty: "invalid-signature-property"
        case .asicsMimetypeWrong: "mimetype-wrong"
        case .asicsDataObjectCount: "asics-data-object-count"
        case .asicsDataObjectInFolder: "asics-data-object-in-folder"
        case .asicsSignatureConflict: "asics-signature-conflict"
        case .unsupportedSignatureFormat: "unsupported-signature-format"
        case .asicsReadOnly: "asics-read-only"
        case .timeMarkNotExtensible: "time-mark-not-extensible"
        case .signatureDoesNotVerify: "signature-does-not-verify"
        }
    }
}

extension ContainerError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .fileNotFound(let p): "\(p): no such file."
        case .unreadableInput(let p, let why): "\(p) cannot be read: \(why)."
        case .ioFailure(let p, let why): "\(p): \(why)."
        // The hint only where the reason does not already say it: "truncated" is said once.
        case .malformedZip(let why):
            "Not a readable ASiC container: \(why)."
                + (why.contains("truncated") ? "" : " The file may be truncated or not a container.")
        case .unsupportedContainerFormat(let what):
            "This is \(what), an older format tamga does not read: open it with DigiDoc, or ask for an ASiC-E (.asice) container."
        case .malformedDDOC(let why): "Not a readable DigiDoc (DDOC) file: \(why)."
        case .ddocReadOnly:
            "DigiDoc (DDOC) files are read-only: the format is retired, so tamga verifies and extracts them but does not sign or change them. To keep an archive's evidence fresh (its SHA-1 digests are weak), wrap it in a time-stamp: tamga container timestamp FILE.ddoc OUT.asics --tsa URL."
        case .ddocContentNotInDocument(let name):
            "\(name) is in hashcode form: the DDOC holds only its digest, not its content, so it cannot be read or extracted. The full DDOC (or the file itself) is needed."
        case .contentNotGiven(let name):
            "\(name) was given only by its digest (hashcode validation), so its content cannot be read, extracted or written; the file itself is needed."
        case .digestAlgorithmNotGiven(let file, let given, let needed):
            "\(file) was given by its \(given) digest, but the signature's reference uses \(needed): give the \(needed) digest of the file."
        case .unsupportedZip(let why): "Unsupported ZIP feature: \(why)."
        case .ambiguousZip(let why):
            "Refused: ZIP readers would disagree on what this container holds: \(why). tamga reads a container only when every reader sees the same files and bytes; ask the sender for a new copy made by their signing software."
        case .unsafeEntryName(let n):
            "Refused: the container holds an unsafe entry name \"\(n)\" (.., absolute path, backslash, or empty/. segment)."
        case .duplicateEntry(let n): "Refused: the container holds two entries named \"\(n)\"."
        case .mimetypeMissing: "Refused: the container has no mimetype entry; it is not ASiC-E."
        case .mimetypeNotFirst:
            "Refused: the mimetype entry is not the first entry of the ZIP (ASiC-E requires it first)."
        case .mimetypeWrong(let v): "Refused: mimetype is \"\(v)\", not application/vnd.etsi.asic-e+zip."
        case .manifestMissing: "Refused: META-INF/manifest.xml is missing."
        case .malformedManifest(let why): "Refused: META-INF/manifest.xml is invalid: \(why)."
        case .manifestMismatch(let why): "Refused: the manifest does not match the container: \(why)."
        case .malformedXML(let f, let why): "Refused: \(f) is not acceptable XML: \(why)."
        case .xmlTooComplex(let f, let why):
            "Refused: \(f) has \(why), far beyond any real signature; it looks made to exhaust a verifier."
        case .corruptEntry(let why): "The container is corrupt: \(why)."
        case .entryTooLarge(let n, let limit): "Refused: \(n) inflates to more than \(limit) bytes (possible ZIP bomb)."
        case .containerSigned:
            "The container is signed: adding or removing data files would break its signatures. Create a new container instead."
        case .dataFileExists(let n):
            "The container already holds a data file named \"\(n)\" (names that differ only in case or Unicode form count as one: they are one file on Windows and macOS)."
        case .dataFileNotFound(let n): "The container holds no data file named \"\(n)\"."
        case .invalidDataFileName(let n):
            "\"\(n)\" cannot be a data file name (no /, \\, control characters, and not \"mimetype\")."
        case .emptyDataFile(let p): "\(p) is empty; an empty data file cannot be added."
        case .noDataFiles: "A container needs at least one data file."
        case .wouldOverwrite(let p): "\(p) exists; use --force to overwrite it."
        case .extractionCollision(let first, let second, let p):
            "Refused: the data files \"\(first)\" and \"\(second)\" would both be written to \(p) (names are made safe for the file system: a leading \"-\" gets \"_\" in front, control characters become \"_\"). Nothing was written. Extract them one at a time, by name, into different folders (--to)."
        case .dataDescriptorMismatch(let why):
            "Refused: the container is inconsistent: \(why). Its data descriptor and central directory describe different data; ask for a new copy of the container."
        case .noPendingSignature: "There is no prepared signature to finish; call prepareSignature first."
        case .signatureValueRejected(let why):
            "The signature value does not verify against the signing certificate (\(why)); nothing was written."
        case .signingCertificateUnsuitable(let why): "The signing certificate cannot sign: \(why)."
        case .alreadyExists(let p): "\(p) already exists; use --force to replace it."
        case .invalidMediaType(let t): "\"\(t)\" is not a media type (type/subtype, e.g. application/pdf)."
        case .invalidSignatureProperty(let v): "\"\(v)\" holds characters that cannot be written into a signature."
        case .asicsMimetypeWrong(let v):
            "Refused: mimetype is \"\(v)\", not application/vnd.etsi.asic-s+zip, in an ASiC-S (.asics/.scs) file."
        case .asicsDataObjectCount(let names) where names.isEmpty:
            "Refused: the ASiC-S container holds no data object (exactly one file is required beside mimetype and META-INF/)."
        case .asicsDataObjectCount(let names):
            "Refused: an ASiC-S container holds exactly one data object, this one holds \(names.count) (\(names.joined(separator: ", "))). Several files belong in an ASiC-E (.asice) container."
        case .asicsDataObjectInFolder(let n):
            "Refused: the ASiC-S data object \"\(n)\" is not in the root folder (ASiC-S allows no sub-folders)."
        case .asicsSignatureConflict(let why):
            "Refused: an ASiC-S container holds one signature, this one holds two: \(why)."
        case .unsupportedSignatureFormat(let f):
            "\(f): tamga does not validate this signature format (CAdES); use a validator that does."
        case .asicsReadOnly:
            "ASiC-S containers are read-only: tamga does not add data or XAdES signatures to them. To time-stamp a container, use `tamga container timestamp`."
        case .timeMarkNotExtensible(let file):
            "\(file) holds a BDOC 2.1 time-mark, which tamga validates but does not extend; nothing was changed."
        case .signatureDoesNotVerify(let file, let reason):
            "\(file) does not verify (\(reason)); tamga adds no time-stamp to it. Nothing was changed."
        }
    }
}
