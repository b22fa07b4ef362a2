/// A name compared byte for byte. Swift's `String` equality (and so `Set<String>` and
/// dictionary keys) treats canonically equivalent text as equal: "é" precomposed (NFC) and "e"
/// plus a combining accent (NFD) are the same `String`. In a ZIP, a manifest or a reference URI
/// they are different names, and a signature over one must not be taken as a signature over the
/// other, so every lookup of a name from a container goes through this key.
struct ExactName: Hashable, Sendable {
    let bytes: [UInt8]
    init(_ name: String) { bytes = Array(name.utf8) }
}

extension String {
    /// The name as it is stored, for byte-exact comparison (`ExactName`).
    var exact: ExactName { ExactName(self) }

    /// Byte-for-byte equality (not Unicode canonical equivalence).
    func isExactly(_ other: String) -> Bool { utf8.elementsEqual(other.utf8) }
}

extension String {
    /// The name as a case-insensitive file system compares it (Windows, macOS): case folded
    /// (lower, upper, lower again: "ß" and "SS" meet at "ss", "ς" and "Σ" at "σ"); as a `String`
    /// key it also matches across Unicode forms. Two entries with one such name would be one
    /// file there, the second extracted over the first.
    var caseInsensitiveKey: String { lowercased().uppercased().lowercased() }
}
