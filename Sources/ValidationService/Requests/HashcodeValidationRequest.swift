import ASiC
import FoundationEssentials
import TamgaCore
import TamgaSupport

/// A `POST /validateHashcode` request: detached XAdES signature files (`signatures0.xml` of an
/// ASiC-E in hashcode form), each with the names, hash algorithms and hashes of the data files
/// it covers, or with none (the report then lists the digests the signature states, for the
/// integrator to compare with their files). Checked as SiVa checks it: every field at once, each
/// error under the field's path (`signatureFiles[0].datafiles[1].hashAlgo`).
public struct HashcodeValidationRequest: Sendable {
    public struct SignatureFileEntry: Sendable {
        /// The base64 text of the signature file, not yet decoded.
        public let signature: String
        /// Nil when the request gives no data files for this signature.
        public let dataFiles: [DetachedDataFile]?
    }

    public let signatureFiles: [SignatureFileEntry]
    public let policy: SiVaPolicy
    public let reportType: ReportType

    /// DSS's digest algorithm names, which SiVa accepts case-insensitively (`@ValidHashAlgo`);
    /// tamga checks the SHA-1 and SHA-2 ones, and a hash in another cannot match a reference.
    static let acceptedAlgorithms: [String: DigestAlgorithm?] = [
        "SHA1": .sha1, "SHA224": .sha224, "SHA256": .sha256, "SHA384": .sha384, "SHA512": .sha512,
        "SHA3_224": nil, "SHA3_256": nil, "SHA3_384": nil, "SHA3_512": nil, "SHAKE128": nil, "SHAKE256": nil,
        "SHAKE256_512": nil, "RIPEMD160": nil, "MD2": nil, "MD5": nil, "WHIRLPOOL": nil,
    ]
    /// Signature files read per request, and data files per signature file: SiVa sets none; a
    /// real request has a few, and each signature file costs a full verification.
    static let maximumSignatureFiles = 64
    static let maximumDataFiles = 1_000

    static let signatureNotBase64 = "Signature file is not valid base64 encoded string"
    /// SiVa's `@NullOrNotEmpty` names a message key its bundle lacks; tamga says what it means.
    static let dataFilesEmpty = "must be null or not empty"

    public static func parse(_ body: [UInt8]) -> Result<HashcodeValidationRequest, RequestErrors> {
        guard let object = (try? JSON.parse(body, duplicateKeysRefused: true)) as? [String: Any] else {
            return .failure(RequestErrors([.bodyNotReadable]))
        }
        guard ValidationRequest.textMembers(object, ["signaturePolicy", "reportType"]) else {
            return .failure(RequestErrors([.bodyNotReadable]))
        }
        var errors: [RequestError] = []
        var entries: [SignatureFileEntry] = []
        switch object["signatureFiles"] {
        case nil, is JSON.Null:
            errors += [
                .init(key: "signatureFiles", message: "must not be null"),
                .init(key: "signatureFiles", message: "must not be empty"),
            ]
        case let list as [Any]:
            if list.isEmpty { errors.append(.init(key: "signatureFiles", message: "must not be empty")) }
            if list.count > maximumSignatureFiles {
                return .failure(
                    RequestErrors([
                        .init(
                            key: "signatureFiles",
                            message: "at most \(maximumSignatureFiles) signature files are validated per request")
                    ]))
            }
            for (index, item) in list.enumerated() {
                guard let file = item as? [String: Any], ValidationRequest.textMembers(file, ["signature"]) else {
                    return .failure(RequestErrors([.bodyNotReadable]))
                }
                switch parseEntry(file, key: "signatureFiles[\(index)]") {
                case .success(let entry): entries.append(entry)
                case .failure(let found):
                    guard !found.errors.isEmpty else { return .failure(RequestErrors([.bodyNotReadable])) }
                    errors += found.errors
                }
            }
        default:
            return .failure(RequestErrors([.bodyNotReadable]))
        }
        let (policy, unknownPolicy, policyErrors) = ValidationRequest.policy(object["signaturePolicy"] as? String)
        errors += policyErrors
        var reportType = ReportType.simple
        if let name = object["reportType"] as? String {
            if let type = ReportType(name: name) {
                reportType = type
            } else {
                errors.append(.init(key: "reportType", message: "Invalid report type"))
            }
        }
        guard errors.isEmpty else { return .failure(RequestErrors(errors)) }
        if let unknownPolicy { return .failure(RequestErrors([ValidationRequest.unknownPolicyError(unknownPolicy)])) }
        return .success(HashcodeValidationRequest(signatureFiles: entries, policy: policy, reportType: reportType))
    }

    /// One `signatureFiles[i]`; a failure with no errors means a member of the wrong JSON type
    /// (the body is not readable, as Jackson says).
    static func parseEntry(_ file: [String: Any], key: String) -> Result<SignatureFileEntry, RequestErrors> {
        var errors: [RequestError] = []
        let signature = file["signature"] as? String ?? ""
        if signature.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            || !ValidationRequest.isBase64Alphabet(signature)
        {
            errors.append(.init(key: "\(key).signature", message: signatureNotBase64))
        }
        var dataFiles: [DetachedDataFile]? = nil
        switch file["datafiles"] {
        case nil, is JSON.Null:
            break
        case let list as [Any]:
            if list.isEmpty { errors.append(.init(key: "\(key).datafiles", message: dataFilesEmpty)) }
            guard list.count <= maximumDataFiles else {
                return .failure(
                    RequestErrors([
                        .init(
                            key: "\(key).datafiles",
                            message: "at most \(maximumDataFiles) data files per signature file")
                    ]))
            }
            var files: [DetachedDataFile] = []
            for (index, item) in list.enumerated() {
                guard let entry = item as? [String: Any],
                    ValidationRequest.textMembers(entry, ["filename", "hashAlgo", "hash"])
                else {
                    return .failure(RequestErrors([]))
                }
                let path = "\(key).datafiles[\(index)]"
                let filename = entry["filename"] as? String
                errors += ValidationRequest.filenameErrors(filename, key: "\(path).filename")
                let algorithmName = entry["hashAlgo"] as? String
                // SiVa lets a missing hashAlgo through, to fail later inside DSS; tamga says so here.
                let known = algorithmName.flatMap { name in
                    acceptedAlgorithms.first { $0.key.lowercased() == name.lowercased() }
                }
                if known == nil { errors.append(.init(key: "\(path).hashAlgo", message: "Invalid hash algorithm")) }
                let hash = entry["hash"] as? String ?? ""
                var digest: [UInt8]? = nil
                if hash.isEmpty || hash.count > 1000 {
                    errors.append(.init(key: "\(path).hash", message: "size must be between 1 and 1000"))
                }
                if hash.allSatisfy({ $0 == " " }) || !ValidationRequest.isBase64Alphabet(hash) {
                    errors.append(.init(key: "\(path).hash", message: RequestError.notBase64))
                } else if !hash.isEmpty, hash.count <= 1000 {
                    digest = try? Base64.decode(hash, field: "hash", ignoringWhitespace: true, maximumCount: 1000)
                    if digest == nil { errors.append(.init(key: "\(path).hash", message: RequestError.notBase64)) }
                }
                if let filename, let known, let digest {
                    files.append(
                        DetachedDataFile(
                            name: filename, algorithmName: known.key, algorithm: known.value, digest: Data(digest)))
                }
            }
            dataFiles = files
        default:
            return .failure(RequestErrors([]))
        }
        guard errors.isEmpty else { return .failure(RequestErrors(errors)) }
        return .success(SignatureFileEntry(signature: signature, dataFiles: dataFiles))
    }
}
