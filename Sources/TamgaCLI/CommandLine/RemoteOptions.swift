import FoundationEssentials
import Glibc
import RemoteSigning
import TamgaCore
import TamgaSupport

/// Where Mobile-ID and Smart-ID are and who the relying party is: flags, else the config file
/// (`--remote-config FILE`, else `$XDG_CONFIG_HOME/tamga/remote.json` when it exists):
///
///     { "mobileID": { "url": "https://…/mid-api", "relyingPartyUUID": "…", "relyingPartyName": "…",
///                     "trustedCertificates": ["mid.pem"], "language": "ENG", "displayText": "…",
///                     "pollSeconds": 30, "timeoutSeconds": 150, "proxy": "http://proxy:3128",
///                     "leafCertificates": ["mid-2026.pem", "mid-2027.pem"] },
///       "smartID":  { "url": "https://rp-api.smart-id.com/v3", "apiVersion": "v3", … } }
///
/// Relative file names are taken from the folder of the file that names them.
struct RemoteOptions {
    static let options: Set<String> = [
        "--service-url", "--rp-uuid", "--rp-name", "--display-text", "--language", "--service-cert", "--remote-config",
        "--proxy", "--smart-id-api",
    ]
    static let help = """
          --service-url URL      the Mobile-ID or Smart-ID API base (e.g. https://mid.sk.ee/mid-api)
          --rp-uuid UUID, --rp-name NAME   the relying party as registered with the service
          --service-cert PEM     trust the service's TLS only through these certificates (repeatable;
                                 replaces the default pins: docs/cli.md, "Service certificates")
          --smart-id-api v3|v2   the Smart-ID relying-party API (default v3; v2 while SK serves it)
          --display-text TEXT    what the phone shows (Mobile-ID: up to 100 GSM-7 characters)
          --language EST|ENG|RUS|LIT   Mobile-ID's language on the phone (default ENG)
          --proxy URL            an HTTP proxy for the service (else http(s)_proxy from the environment)
          --remote-config FILE   the same as JSON per service (docs/cli.md); flags win
        """

    let url: String?
    let relyingPartyUUID: String?
    let relyingPartyName: String?
    let displayText: String?
    let language: String?
    let certificateFiles: [String]
    let configFile: String?
    let proxy: String?
    let smartIDAPI: SmartIDAPIVersion?

    init(_ arguments: ParsedArguments) throws {
        url = arguments.value("--service-url")
        relyingPartyUUID = arguments.value("--rp-uuid")
        relyingPartyName = arguments.value("--rp-name")
        displayText = arguments.value("--display-text")
        language = arguments.value("--language")
        if let language, !["EST", "ENG", "RUS", "LIT"].contains(language) {
            throw UsageError("--language takes EST, ENG, RUS or LIT")
        }
        certificateFiles = arguments.all("--service-cert")
        configFile = arguments.value("--remote-config")
        proxy = arguments.value("--proxy")
        if let proxy, URL(string: proxy)?.scheme != "http" { throw UsageError("--proxy takes http://HOST:PORT") }
        if let version = arguments.value("--smart-id-api") {
            guard let api = SmartIDAPIVersion(rawValue: version) else {
                throw UsageError("--smart-id-api takes v3 or v2")
            }
            smartIDAPI = api
        } else {
            smartIDAPI = nil
        }
    }

    /// The configuration for `service` ("mobileID" or "smartID").
    func configuration(
        _ service: String, name: String, environment: [String: String],
        warn: (String) -> Void = { _ in }
    ) throws -> RemoteServiceConfiguration {
        var section: [String: Any] = [:]
        var sectionFile: String? = nil
        // config.json's section first (unless --remote-config names a file), then remote.json's.
        let settings = configFile == nil ? try Configuration.load(environment: environment) : Configuration()
        let defaultFile =
            (environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"] ?? UserAccount.homeFolder()).appendingPathComponent(".config"))
            .appendingPathComponent("tamga/remote.json").path
        if let configured = settings.remoteSections[service] {
            section = configured
            sectionFile = settings.file
        } else if let file = configFile ?? (FileManager.default.fileExists(atPath: defaultFile) ? defaultFile : nil) {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CoreError.unreadableFile(path: file, reason: "cannot read")
            }
            guard let object = (try? JSON.parse(data)) as? [String: Any] else {
                throw CoreError.unreadableFile(path: file, reason: "not a JSON object")
            }
            section = object[service] as? [String: Any] ?? [:]
            sectionFile = file
        }
        let folder = sectionFile.map { URL(fileURLWithPath: $0).deletingLastPathComponent() }
        func files(_ key: String) throws -> [String] {
            guard let value = section[key] else { return [] }
            guard let names = value as? [String] else {
                throw UsageError("\(key) in \(sectionFile ?? "the configuration") takes a list of PEM files")
            }
            return names.map { name in
                name.hasPrefix("/") ? name : folder.map { $0.appendingPathComponent(name).path } ?? name
            }
        }
        guard let urlText = url ?? section["url"] as? String, let url = URL(string: urlText),
            url.scheme == "https" || url.scheme == "http"
        else {
            throw RemoteSigningError.notConfigured(service: name, missing: "the service URL (--service-url)")
        }
        guard let uuid = relyingPartyUUID ?? section["relyingPartyUUID"] as? String,
            let rpName = relyingPartyName ?? section["relyingPartyName"] as? String
        else {
            throw RemoteSigningError.notConfigured(
                service: name, missing: "the relying party (--rp-uuid and --rp-name)")
        }
        var configuration = RemoteServiceConfiguration(url: url, relyingPartyUUID: uuid, relyingPartyName: rpName)
        let pinFiles = certificateFiles.isEmpty ? try files("trustedCertificates") : certificateFiles
        configuration.trustedCertificates = try VerifyCommand.loadCertificates(pinFiles)
        configuration.pinnedLeafCertificates = try VerifyCommand.loadCertificates(try files("leafCertificates"))
        if !configuration.trustedCertificates.isEmpty && !configuration.pinnedLeafCertificates.isEmpty {
            // The whole statement of trust wins; say so rather than drop the leaf pins unseen.
            warn(
                "\(certificateFiles.isEmpty ? "trustedCertificates" : "--service-cert") replaces the leafCertificates in \(sectionFile ?? "the configuration"): \(name) is trusted only through the certificates given"
            )
        }
        if service == "smartID" {
            var api = SmartIDAPIVersion.v3
            if let version = section["apiVersion"] {
                guard let text = version as? String, let configured = SmartIDAPIVersion(rawValue: text) else {
                    throw UsageError("apiVersion in \(sectionFile ?? "the configuration") takes \"v3\" or \"v2\"")
                }
                api = configured
            }
            configuration.smartIDAPI = smartIDAPI ?? api
            // A URL from a file that names the other version is said with the file and the key
            // (docs/cli.md's own v2 example was refused without saying where its URL came from);
            // the signer checks the same for a --service-url.
            let asked = configuration.smartIDAPI
            if self.url == nil, let file = sectionFile,
                let named = SmartIDAPIVersion(rawValue: url.lastPathComponent), named != asked
            {
                throw UsageError(
                    "smartID.url in \(file) is \(urlText), the \(named.rawValue) API, but \(asked.rawValue) is asked for: "
                        + "change it to …/\(asked.rawValue), or add \"apiVersion\": \"\(named.rawValue)\" to the smartID section"
                )
            }
        }
        if let text = displayText ?? section["displayText"] as? String { configuration.displayText = text }
        if let language = language ?? section["language"] as? String {
            guard ["EST", "ENG", "RUS", "LIT"].contains(language) else {
                throw UsageError("language in \(sectionFile ?? "the configuration") takes EST, ENG, RUS or LIT")
            }
            configuration.language = language
        }
        configuration.proxy = proxy ?? section["proxy"] as? String
        if let proxy = configuration.proxy, URL(string: proxy)?.scheme != "http" {
            throw UsageError(
                "\(self.proxy == nil ? "proxy in \(sectionFile ?? "the configuration")" : "--proxy") takes http://HOST:PORT, got \(proxy)"
            )
        }
        // JSON's 30 reads as an Int, 30.5 as a Double: both are seconds.
        func seconds(_ key: String) throws -> Double? {
            guard let value = section[key] else { return nil }
            guard let number = (value as? Double) ?? (value as? Int).map(Double.init), number >= 1, number <= 3600
            else {
                throw UsageError(
                    "\(key) in \(sectionFile ?? "the configuration") takes a number of seconds from 1 to 3600")
            }
            return number
        }
        if let value = try seconds("pollSeconds") { configuration.pollSeconds = value }
        if let value = try seconds("timeoutSeconds") { configuration.overallTimeout = value }
        configuration.userAgent = "tamga/\(TamgaCommandLine.version)"
        return configuration
    }
}
