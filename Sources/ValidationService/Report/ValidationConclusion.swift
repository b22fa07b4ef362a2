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
        public var timestampCreationTime: String?
        public var ocspResponseCreationTime: String?
        public var signerRole: [String] = []
        public var signatureProductionPlace: ProductionPlace?
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
    }

    public struct TimeStampToken: Sendable, Equatable {
        public var indication: String
        public var subIndication: String?
        public var signedBy: String
        public var signedTime: String
        public var error: [String] = []
        public var warning: [String] = []
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
        members.add("policy", .object([("policyName", .string(policy.policyName)), ("policyDescription", .string(policy.policyDescription)),
                                       ("policyUrl", .string(policy.policyUrl))]))
        members.add("validationTime", validationTime)
        members.add("signatureForm", signatureForm)
        members.add("validationLevel", validationLevel)
        members.add("validationWarnings", validationWarnings.map { .object([("content", .string($0))]) })
        if let validatedDocument { members.add("validatedDocument", .object([("filename", .string(validatedDocument.filename))])) }
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
            fields.add("timestampCreationTime", info.timestampCreationTime)
            fields.add("ocspResponseCreationTime", info.ocspResponseCreationTime)
            fields.add("signerRole", info.signerRole.filter { !$0.isEmpty }.map { .object([("claimedRole", .string($0))]) })
            if let place = info.signatureProductionPlace {
                var parts = JSONMembers()
                parts.add("countryName", place.countryName)
                parts.add("stateOrProvince", place.stateOrProvince)
                parts.add("city", place.city)
                parts.add("postalCode", place.postalCode)
                if !parts.items.isEmpty { fields.add("signatureProductionPlace", .object(parts.items)) }
            }
            if !fields.items.isEmpty { members.add("info", .object(fields.items)) }
        }
        members.add("signatureScopes", signatureScopes.map { scope in
            var fields = JSONMembers()
            fields.add("name", .string(scope.name))
            fields.add("scope", .string(scope.scope))
            fields.add("content", .string(scope.content))
            fields.add("hashAlgo", scope.hashAlgo)
            fields.add("hash", scope.hash)
            return .object(fields.items)
        })
        return .object(members.items)
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
