import CLibXML2
import COpenSSL
import CPCSC
import Foundation

/// What `tamga --version` says: tamga's version, the source commit it was built from, and the
/// versions of the C libraries that do its cryptography, XML and smart-card work — what a bug
/// report needs. Runtime versions where the library tells them (a Debian security update
/// changes OpenSSL or libxml2 without rebuilding tamga); pcsc-lite has no runtime query, so
/// its version is the one tamga was compiled against.
struct VersionReport: Encodable {
    let version: String
    /// `git describe --always --dirty` of the source tree (scripts/build-commit.sh), or "unknown".
    let commit: String
    let openssl: String
    let libxml2: String
    let pcscLite: String

    static var current: VersionReport {
        VersionReport(version: TamgaCommandLine.version, commit: BuildCommit.value,
                      openssl: String(cString: OpenSSL_version(OPENSSL_VERSION)),
                      libxml2: libxml2Version, pcscLite: PCSCLITE_VERSION_NUMBER)
    }

    /// libxml2's runtime version, "20914" in the library, written as "2.9.14".
    private static var libxml2Version: String {
        guard let pointer = __xmlParserVersion()?.pointee else { return LIBXML_DOTTED_VERSION }
        let number = String(cString: pointer)
        guard let value = Int(number), value > 0 else { return number }
        return "\(value / 10000).\(value / 100 % 100).\(value % 100)"
    }

    var text: String {
        """
        tamga \(version) (commit \(commit))
        \(openssl)
        libxml2 \(libxml2)
        pcsc-lite \(pcscLite) (compiled against)
        """
    }
}
