internal import CDeferredLibraries
import CLibXML2
import COpenSSL
import CPCSC
import CSQLite
import FoundationEssentials
import Glibc

/// What `tamga --version` says: tamga's version, the source commit it was built from, and the
/// versions of the C libraries that do its cryptography, XML and smart-card work — what a bug
/// report needs.
///
/// By default the versions tamga was built against, from the libraries' headers: OpenSSL,
/// libxml2 and SQLite are loaded only when a command first uses them (CDeferredLibraries), and
/// loading them costs more than the rest of `--version`. `--libraries` loads them
/// and adds the versions in use with their files (a Debian security update changes OpenSSL or
/// libxml2 without rebuilding tamga). pcsc-lite and p11-kit have no runtime version query.
struct VersionReport: Encodable {
    let version: String
    /// `git describe --always --dirty` of the source tree (scripts/build-commit.sh), or "unknown".
    let commit: String
    /// Built against (the headers' versions).
    let openssl: String
    let libxml2: String
    let pcscLite: String
    /// With `--libraries`: what this process loaded, one entry per library.
    let libraries: [LoadedLibrary]?

    struct LoadedLibrary: Encodable {
        let name: String
        /// The version the loaded library reports (OpenSSL's whole text, as `openssl` above; the
        /// others' numbers); nil when it cannot be loaded.
        let version: String?
        /// The file the dynamic loader chose (`/lib/x86_64-linux-gnu/libcrypto.so.3`).
        let file: String?
        /// Why it could not be loaded, when it could not.
        let error: String?
    }

    static func current(loadingLibraries: Bool) -> VersionReport {
        VersionReport(
            version: TamgaCommandLine.version, commit: BuildCommit.value,
            openssl: OPENSSL_VERSION_TEXT, libxml2: LIBXML_DOTTED_VERSION, pcscLite: PCSCLITE_VERSION_NUMBER,
            libraries: loadingLibraries ? loaded() : nil)
    }

    /// Loads OpenSSL, libxml2 and SQLite and asks each for its version.
    private static func loaded() -> [LoadedLibrary] {
        func entry(_ name: String, _ soname: String, version: () -> String) -> LoadedLibrary {
            guard tamga_lazy_load(soname) != 0 else {
                return LoadedLibrary(
                    name: name, version: nil, file: nil, error: String(cString: tamga_lazy_error(soname)))
            }
            return LoadedLibrary(name: name, version: version(), file: file(of: soname), error: nil)
        }
        return [
            entry("OpenSSL", "libcrypto.so.3") { String(cString: OpenSSL_version(OPENSSL_VERSION)) },
            entry("libxml2", "libxml2.so.2") { libxml2RuntimeVersion },
            entry("SQLite", "libsqlite3.so.0") { String(cString: sqlite3_libversion()) },
        ]
    }

    /// libxml2's runtime version, "20914" in the library, written as "2.9.14".
    private static var libxml2RuntimeVersion: String {
        guard let pointer = __xmlParserVersion()?.pointee else { return LIBXML_DOTTED_VERSION }
        let number = String(cString: pointer)
        guard let value = Int(number), value > 0 else { return number }
        return "\(value / 10000).\(value / 100 % 100).\(value % 100)"
    }

    /// The path the dynamic loader mapped `soname` from.
    private static func file(of soname: String) -> String? {
        tamga_lazy_file(soname).map { String(cString: $0) }
    }

    var text: String {
        var lines = [
            "tamga \(version) (commit \(commit))",
            "\(openssl) (built against)",
            "libxml2 \(libxml2) (built against)",
            "pcsc-lite \(pcscLite) (built against)",
        ]
        for library in libraries ?? [] {
            if let version = library.version {
                // OpenSSL's own text starts with its name; the others are numbers.
                let named = version.hasPrefix(library.name) ? version : "\(library.name) \(version)"
                lines.append("\(named) (in use: \(library.file ?? "loaded"))")
            } else {
                lines.append("\(library.name): cannot be loaded (\(library.error ?? "unknown reason"))")
            }
        }
        return lines.joined(separator: "\n")
    }
}
