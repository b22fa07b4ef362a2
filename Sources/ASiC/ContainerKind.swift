import FoundationEssentials
import Glibc

extension Container {
    /// The two container forms of ETSI EN 319 162-1 that tamga reads.
    public enum Kind: String, Sendable, Codable {
        /// Extended: data files, a manifest, XAdES signatures (read and written).
        case asice = "ASiC-E"
        /// Simple: one data object, signed by an RFC 3161 token or XAdES (read; written only
        /// as the time-stamped archive of a whole container, `timeStampArchive`).
        case asics = "ASiC-S"
    }
}

extension Container.Kind: CustomStringConvertible {
    public var description: String { rawValue }
}
