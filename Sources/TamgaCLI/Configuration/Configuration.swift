import FoundationEssentials
import Glibc
import TamgaSupport

/// What people set once, in `$XDG_CONFIG_HOME/tamga/config.json` (`~/.config/tamga/config.json`):
///
///     { "tsa": "https://tsa.example/tsa",
///       "trust": "cache"  |  { "anchors": ["root.pem"], "intermediates": ["issuing-ca.pem"] },
///       "pkcs11Module": "/usr/lib/x86_64-linux-gnu/opensc-pkcs11.so",
///       "cosigner": "https://cosigner.example",
///       "mobileID": { … }, "smartID": { … } }
///
/// Every key is optional; command-line options (and `$TAMGA_TSA_URL` for the TSA) win over
/// the file. Relative file names are taken from the file's folder. The Mobile-ID and Smart-ID
/// sections are those of `remote.json` (which is still read when this file has neither). A
/// file that cannot be used is an error naming the file and the key, never silently ignored:
/// an unknown key is most often a misspelt one.
struct Configuration {
    enum Trust: Equatable {
        /// The lists of `tamga trust update` (also the default without a file).
        case cache
        /// PEM anchors, as `--trust`, and certificates that may complete a chain, as `--certs`.
        case anchors([String], intermediates: [String])
    }

    static let fileName = "config.json"
    static let keys: Set<String> = ["tsa", "trust", "pkcs11Module", "cosigner", "mobileID", "smartID"]

    /// The file read, nil when there is none.
    private(set) var file: String? = nil
    private(set) var tsa: URL? = nil
    private(set) var trust: Trust? = nil
    private(set) var pkcs11Module: String? = nil
    private(set) var cosigner: URL? = nil
    /// The `mobileID` and `smartID` sections as written (checked by `RemoteOptions`).
    private(set) var remoteSections: [String: [String: Any]] = [:]

    /// The configuration path for an environment (whether or not the file exists).
    static func path(environment: [String: String]) -> String? {
        UserFolder.config.path(fileName, environment: environment)?.path
    }

    /// The configuration of this environment: empty when the file does not exist.
    static func load(environment: [String: String]) throws -> Configuration {
        guard let path = path(environment: environment), FileManager.default.fileExists(atPath: path) else {
            return Configuration()
        }
        return try Configuration(file: path)
    }

    init() {}

    /// A configuration is a few hundred bytes; a larger file is a mistake, not something to parse.
    static let maximumSize = 1 << 20

    init(file path: String) throws {
        guard let bytes = FileBytes.read(path, limit: Self.maximumSize + 1) else {
            throw CommandLineError.configurationMalformed(file: path, key: nil, problem: "it cannot be read")
        }
        try self.init(data: Data(bytes), file: path)
    }

    /// The configuration in `data`, read from `path` (which relative names are taken against).
    init(data: Data, file path: String) throws {
        file = path
        func malformed(_ key: String?, _ problem: String) -> CommandLineError {
            .configurationMalformed(file: path, key: key, problem: problem)
        }
        guard data.count <= Self.maximumSize else { throw malformed(nil, "it is larger than 1 MiB") }
        guard let object = (try? JSON.parse(data)) as? [String: Any] else {
            throw malformed(nil, "it is not a JSON object")
        }
        for key in object.keys.sorted() where !Self.keys.contains(key) {
            throw malformed(key, "is not a setting tamga knows (\(Self.keys.sorted().joined(separator: ", ")))")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        func resolved(_ name: String) -> String {
            name.hasPrefix("/") ? name : folder.appendingPathComponent(name).path
        }
        func url(_ key: String) throws -> URL? {
            guard let value = object[key] else { return nil }
            guard let text = value as? String, let url = URL(string: text),
                url.scheme == "http" || url.scheme == "https", url.host != nil
            else {
                throw malformed(key, "must be an http(s) URL")
            }
            return url
        }
        tsa = try url("tsa")
        cosigner = try url("cosigner")
        if let value = object["pkcs11Module"] {
            guard let text = value as? String, !text.isEmpty else {
                throw malformed("pkcs11Module", "must be the path of a PKCS#11 library")
            }
            pkcs11Module = text.contains("/") ? resolved(text) : text
        }
        switch object["trust"] {
        case nil: break
        case let text as String where text == "cache": trust = .cache
        case let section as [String: Any]:
            for key in section.keys.sorted() where key != "anchors" && key != "intermediates" {
                throw malformed("trust.\(key)", "is not a trust setting (anchors, intermediates)")
            }
            func files(_ key: String) throws -> [String] {
                guard let value = section[key] else { return [] }
                guard let names = value as? [String], !names.contains(where: \.isEmpty) else {
                    throw malformed("trust.\(key)", "must be a list of PEM file names")
                }
                return names.map(resolved)
            }
            let anchors = try files("anchors")
            guard !anchors.isEmpty else {
                throw malformed("trust.anchors", "must name at least one PEM file (or set \"trust\": \"cache\")")
            }
            trust = .anchors(anchors, intermediates: try files("intermediates"))
        default:
            throw malformed("trust", "must be \"cache\" or {\"anchors\": [PEM files], \"intermediates\": [PEM files]}")
        }
        for key in ["mobileID", "smartID"] {
            guard let value = object[key] else { continue }
            guard let section = value as? [String: Any] else { throw malformed(key, "must be an object (docs/cli.md)") }
            remoteSections[key] = section
        }
    }
}
