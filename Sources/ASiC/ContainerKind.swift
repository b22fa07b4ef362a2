import FoundationEssentials
import Glibc

extension Container {
    /// The two container forms of ETSI EN 319 162-1 that tamga reads, and DigiDoc XML.
    public enum Kind: String, Sendable, Codable {
        /// Extended: data files, a manifest, XAdES signatures (read and written).
        case asice = "ASiC-E"
        /// Simple: one data object, signed by an RFC 3161 token or XAdES (read; written only
        /// as the time-stamped archive of a whole container, `timeStampArchive`).
        case asics = "ASiC-S"
        /// DigiDoc XML (`.ddoc`, SignedDoc 1.0–1.3): read and verified, never written.
        case ddoc = "DDOC"
    }
}

extension Container.Kind: CustomStringConvertible {
    public var description: String { rawValue }
}
