import FoundationEssentials
import Glibc

extension Certificate {
    /// ETSI EN 319 412-5 QC statement identifiers found in the certificate (dotted OIDs), e.g.
    /// `0.4.0.1862.1.1` (QcCompliance) and `0.4.0.1862.1.4` (QcSSCD).
    public var qcStatements: [String] { (try? Self.firstOIDs(ofSequenceOf: handle.extensionDER(nid: 286))) ?? [] }

    /// Certificate policy OIDs (dotted), e.g. `0.4.0.194112.1.2` (QCP-n-qscd).
    public var policies: [String] { (try? Self.firstOIDs(ofSequenceOf: handle.extensionDER(nid: 89))) ?? [] }

    /// The qualifications a validator reads from the certificate itself (docs/design/trust.md §3).
    public struct Qualification: Sendable, Equatable {
        /// QcCompliance: a qualified certificate.
        public var qualified: Bool
        /// QcSSCD, or a QCP-n-qscd / QCP-l-qscd / QCP+ policy: the key is on a qualified device.
        public var onQualifiedDevice: Bool
        /// QCP-l, or QcType e-seal: a legal person's seal.
        public var isSeal: Bool

        public init(qualified: Bool, onQualifiedDevice: Bool, isSeal: Bool) {
            self.qualified = qualified
            self.onQualifiedDevice = onQualifiedDevice
            self.isSeal = isSeal
        }
    }

    public var qualification: Qualification {
        let statements = Set(qcStatements), policies = Set(self.policies)
        return Qualification(
            qualified: statements.contains("0.4.0.1862.1.1"),
            onQualifiedDevice: statements.contains("0.4.0.1862.1.4")
                || !policies.isDisjoint(with: ["0.4.0.194112.1.2", "0.4.0.194112.1.3", "0.4.0.1456.1.1"]),
            isSeal: policies.contains("0.4.0.194112.1.1"))
    }

    /// For `SEQUENCE OF SEQUENCE { OBJECT IDENTIFIER, … }`, each inner sequence's OID.
    static func firstOIDs(ofSequenceOf der: Data?) throws -> [String] {
        guard let der else { return [] }
        var outer = DERReader([UInt8](der))
        var items = DERReader(try outer.read(tag: 0x30))
        var oids: [String] = []
        while !items.isAtEnd {
            var item = DERReader(try items.read(tag: 0x30))
            oids.append(Self.dotted(try item.read(tag: 0x06)))
        }
        return oids
    }

    /// An OBJECT IDENTIFIER's content octets in dotted form.
    static func dotted(_ bytes: [UInt8]) -> String {
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        for byte in bytes {
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 {
                arcs.append(value)
                value = 0
            }
        }
        guard let first = arcs.first else { return "" }
        let head: [UInt64] = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80]
        return (head + arcs.dropFirst()).map(String.init).joined(separator: ".")
    }
}
