import FoundationEssentials
import TamgaSupport

/// SiVa's `validationReport.validationConclusion` (docs/siva.md §Report), typed. Written as SiVa
/// writes it (Jackson with NON_EMPTY): a nil, an empty text or an empty list leaves its key out;
/// counts are always written.
public struct ValidationConclusion: Sendable, Equatable {
    public struct Policy: Sendable, Equatable {
        public let policyName: String
        public let policyDescription: String
        public let policyUrl: String
    }

    public struct ValidatedDocument: Sendable, Equatable {
        public let filename: String
    }

    public struct SubjectDistinguishedName: Sendable, Equatable {
        public var serialNumber: String?
        public var commonName: String?
        public var givenName: String?
        public var surname: String?
    }

    public struct Scope: Sendable, Equatable {
        public let name: String
        public let scope: String
        public let content: String
        /// Hashcode validation only: the data file's digest, its algorithm by DSS's name.
        public var hashAlgo: String? = nil
        public var hash: String? = nil
    }

    public struct ProductionPlace: Sendable, Equatable {
        public var countryName: String?
        public var stateOrProvince: String?
        public var city: String?
        public var postalCode: String?
    }

    public struct Info: Sendable, Equatable {
        public var bestSignatureTime: String?
        public var timeAssertionMessageImprint: String?
        public var timestampCreationTime: String?
        public var ocspResponseCreationTime: String?
        public var signerRole: [String] = []
        public var signatureProductionPlace: ProductionPlace?
        public var archiveTimestamps: [ArchiveTimestamp] = []
    }

    /// `info.archiveTimestamps[]`: one archive time-stamp of the signature.
    public struct ArchiveTimestamp: Sendable, Equatable {
        public var signedTime: String
        /// PASSED or FAILED.
        public var indication: String
        public var signedBy: String
        public var country: String
        /// The token, base64.
        public var content: String
    }

    /// `certificates[]`: a certificate the signature or time-stamp carries, and its role.
    public struct ReportCertificate: Sendable, Equatable {
        public var commonName: String
        public var type: String
        public var content: String
        public var issuer: (commonName: String, content: String)?

        public static func == (a: Self, b: Self) -> Bool {
            a.commonName == b.commonName && a.type == b.type && a.content == b.content
                && a.issuer?.commonName == b.issuer?.commonName && a.issuer?.content == b.issuer?.content
        }
    }

    public struct Signature: Sendable, Equatable {
        public var id: String
        public var signatureFormat: String
        public var signatureMethod: String?
        /// Nil for DDOC, as SiVa leaves it out there.
        public var signatureLevel: String?
        public var signedBy: String
        public var subjectDistinguishedName: SubjectDistinguishedName?
        public var indication: String
        public var subIndication: String?
        public var errors: [String] = []
        public var warnings: [String] = []
        public var claimedSigningTime: String
        public var info: Info?
        public var signatureScopes: [Scope] = []
        public var certificates: [ReportCertificate] = []
    }

    public struct TimeStampToken: Sendable, Equatable {
        public var indication: String
        public var subIndication: String?
        public var signedBy: String
        public var signedTime: String
        public var error: [String] = []
        public var warning: [String] = []
        public var certificates: [ReportCertificate] = []
        public var timestampScopes: [Scope] = []
        public var timestampLevel: String?
    }

    public var policy: Policy
    public var validationTime: String
    public var signatureForm: String?
    public var validationLevel: String?
    public var validationWarnings: [String] = []
    public var validatedDocument: ValidatedDocument?
    public var signatures: [Signature] = []
    public var timeStampTokens: [TimeStampToken] = []
    public var validSignaturesCount: Int
    public var signaturesCount: Int

    /// `{"validationReport": {"validationConclusion": …}}`, the answer of POST /validate.
    public var responseJSON: JSON.Value {
        .object([("validationReport", .object([("validationConclusion", json)]))])
    }

    public var json: JSON.Value {
        var members = JSONMembers()
        members.add(
            "policy",
            .object([
                ("policyName", .string(policy.policyName)), ("policyDescription", .string(policy.policyDescription)),
                ("policyUrl", .string(policy.policyUrl)),
            ]))
        members.add("validationTime", validationTime)
        members.add("signatureForm", signatureForm)
        members.add("validationLevel", validationLevel)
        members.add("validationWarnings", validationWarnings.map { .object([("content", .string($0))]) })
        if let validatedDocument {
            members.add("validatedDocument", .object([("filename", .string(validatedDocument.filename))]))
        }
        members.add("signatures", signatures.map(\.json))
        members.add("timeStampTokens", timeStampTokens.map(\.json))
        members.add("validSignaturesCount", .integer(validSignaturesCount))
        members.add("signaturesCount", .integer(signaturesCount))
        return .object(members.items)
    }
}

extension ValidationConclusion.Signature {
    var json: JSON.Value {
        var members = JSONMembers()
        members.add("id", id)
        members.add("signatureFormat", signatureFormat)
        members.add("signatureMethod", signatureMethod)
        members.add("signatureLevel", signatureLevel)
        members.add("signedBy", signedBy)
        if let name = subjectDistinguishedName {
            var fields = JSONMembers()
            fields.add("serialNumber", name.serialNumber)
            fields.add("commonName", name.commonName)
            fields.add("givenName", name.givenName)
            fields.add("surname", name.surname)
            if !fields.items.isEmpty { members.add("subjectDistinguishedName", .object(fields.items)) }
        }
        members.add("indication", indication)
        members.add("subIndication", subIndication)
        members.add("errors", errors.map { .object([("content", .string($0))]) })
        members.add("warnings", warnings.map { .object([("content", .string($0))]) })
        members.add("claimedSigningTime", claimedSigningTime)
        if let info {
            var fields = JSONMembers()
            fields.add("bestSignatureTime", info.bestSignatureTime)
            fields.add("timeAssertionMessageImprint", info.timeAssertionMessageImprint)
            fields.add("timestampCreationTime", info.timestampCreationTime)
            fields.add("ocspResponseCreationTime", info.ocspResponseCreationTime)
            fields.add(
                "signerRole", info.signerRole.filter { !$0.isEmpty }.map { .object([("claimedRole", .string($0))]) })
            if let place = info.signatureProductionPlace {
                var parts = JSONMembers()
                parts.add("countryName", place.countryName)
                parts.add("stateOrProvince", place.stateOrProvince)
                parts.add("city", place.city)
                parts.add("postalCode", place.postalCode)
                if !parts.items.isEmpty { fields.add("signatureProductionPlace", .object(parts.items)) }
            }
            fields.add(
                "archiveTimestamps",
                info.archiveTimestamps.map { archive in
                    .object([
                        ("signedTime", .string(archive.signedTime)), ("indication", .string(archive.indication)),
                        ("signedBy", .string(archive.signedBy)), ("country", .string(archive.country)),
                        ("content", .string(archive.content)),
                    ])
                })
            if !fields.items.isEmpty { members.add("info", .object(fields.items)) }
        }
        members.add("signatureScopes", signatureScopes.map(\.json))
        members.add("certificates", certificates.map(\.json))
        return .object(members.items)
    }
}

extension ValidationConclusion.ReportCertificate {
    var json: JSON.Value {
        var members: [(String, JSON.Value)] = [
            ("commonName", .string(commonName)), ("type", .string(type)), ("content", .string(content)),
        ]
        if let issuer {
            members.append(
                ("issuer", .object([("commonName", .string(issuer.commonName)), ("content", .string(issuer.content))])))
        }
        return .object(members)
    }
}

extension ValidationConclusion.Scope {
    var json: JSON.Value {
        var fields = JSONMembers()
        fields.add("name", .string(name))
        fields.add("scope", .string(scope))
        fields.add("content", .string(content))
        fields.add("hashAlgo", hashAlgo)
        fields.add("hash", hash)
        return .object(fields.items)
    }
}

extension ValidationConclusion.TimeStampToken {
    var json: JSON.Value {
        var members = JSONMembers()
        members.add("indication", indication)
        members.add("subIndication", subIndication)
        members.add("signedBy", signedBy)
        members.add("signedTime", signedTime)
        members.add("error", error.map { .object([("content", .string($0))]) })
        members.add("warning", warning.map { .object([("content", .string($0))]) })
        members.add("certificates", certificates.map(\.json))
        members.add("timestampScopes", timestampScopes.map(\.json))
        members.add("timestampLevel", timestampLevel)
        return .object(members.items)
    }
}

/// An object's members as Jackson's NON_EMPTY writes them: nil, "" and [] are left out.
struct JSONMembers {
    private(set) var items: [(String, JSON.Value)] = []

    mutating func add(_ key: String, _ value: JSON.Value) { items.append((key, value)) }

    mutating func add(_ key: String, _ text: String?) {
        guard let text, !text.isEmpty else { return }
        items.append((key, .string(text)))
    }

    mutating func add(_ key: String, _ list: [JSON.Value]) {
        guard !list.isEmpty else { return }
        items.append((key, .array(list)))
    }
}
