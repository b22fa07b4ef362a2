import FoundationEssentials
import Glibc
import PCSC
import TamgaCore

/// What `tamga card info` shows: the card, its holder, its certificates and PIN counters.
public struct IDCardInfo: Sendable {
    public let readerName: String
    public let cardName: String
    public let atr: String
    /// From the personal data file when the card has one, else from the signing certificate.
    public let holder: [String: String]
    public let certificates: [KeyRole: Certificate]
    public let retryCounters: [PINKind: RetryCounter]

    public var documentNumber: String? { holder["documentNumber"] }

    /// Reads everything from the card in `reader` (or the only supported card). Reads no PIN.
    public static func read(reader: String? = nil) throws -> IDCardInfo {
        let context = try IDCardSigner.context()
        let candidate = try IDCardReaders.choose(reader, context: context)
        let connection = try IDCardSigner.mapping {
            try CardConnection(context: context, reader: candidate.reader.name)
        }
        return try read(candidate: candidate, channel: connection)
    }

    static func read(candidate: IDCardReaders.Candidate, channel: CardChannel) throws -> IDCardInfo {
        let session = IDCardSession(channel: channel, profile: candidate.profile)
        var certificates: [KeyRole: Certificate] = [:]
        for role in KeyRole.allCases { certificates[role] = try session.readCertificate(role) }
        var counters: [PINKind: RetryCounter] = [:]
        for kind in PINKind.allCases { counters[kind] = try session.retryCounter(kind) }
        var holder = try session.personalData() ?? [:]
        if holder.isEmpty, let certificate = certificates[.signing] {
            holder = holderFromCertificate(certificate)
        }
        return IDCardInfo(
            readerName: candidate.reader.name, cardName: candidate.cardName, atr: candidate.reader.atrHex,
            holder: holder, certificates: certificates, retryCounters: counters)
    }

    /// Surname, given names and personal code from the subject (RFC 4514 string).
    static func holderFromCertificate(_ certificate: Certificate) -> [String: String] {
        var holder: [String: String] = [:]
        for part in splitRDNs(certificate.subject) {
            guard let equals = part.firstIndex(of: "=") else { continue }
            let key = part[..<equals], value = String(part[part.index(after: equals)...])
            switch key {
            case "SN", "surname": holder["surname"] = value
            case "GN", "givenName": holder["givenNames"] = value
            case "serialNumber": holder["personalCode"] = value
            case "C": holder["citizenship"] = value
            default: break
            }
        }
        return holder
    }

    /// Splits an RFC 4514 name at unescaped commas and unescapes `\,`.
    private static func splitRDNs(_ name: String) -> [String] {
        var parts: [String] = [], current = "", escaped = false
        for character in name {
            if escaped {
                current.append(character)
                escaped = false
                continue
            }
            if character == "\\" {
                escaped = true
                continue
            }
            if character == "," {
                parts.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        parts.append(current)
        return parts
    }
}
