import FoundationEssentials
import Glibc
import TamgaSupport
import RemoteSigning
import TamgaCore

/// Where Mobile-ID and Smart-ID are and who the relying party is: flags, else the config file
/// (`--remote-config FILE`, else `$XDG_CONFIG_HOME/tamga/remote.json` when it exists):
///
///     { "mobileID": { "url": "https://…/mid-api", "relyingPartyUUID": "…", "relyingPartyName": "…",
///                     "trustedCertificates": ["mid.pem"], "language": "ENG", "displayText": "…",
///                     "pollSeconds": 30, "timeoutSeconds": 150, "proxy": "http://proxy:3128" },
///       "smartID":  { "url": "https://…/v2", … } }
struct RemoteOptions {
    static let options: Set<String> = ["--service-url", "--rp-uuid", "--rp-name", "--display-text", "--language", "--service-cert", "--remote-config", "--proxy"]
    static let help = """
      --service-url URL      the Mobile-ID or Smart-ID API base (e.g. https://mid.sk.ee/mid-api)
      --rp-uuid UUID, --rp-name NAME   the relying party as registered with the service
      --service-cert PEM     trust the service's TLS only through these certificates (repeatable; pinning)
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

    init(_ arguments: ParsedArguments) throws {
        url = arguments.value("--service-url")
        relyingPartyUUID = arguments.value("--rp-uuid")
        relyingPartyName = arguments.value("--rp-name")
        displayText = arguments.value("--display-text")
        language = arguments.value("--language")
        if let language, !["EST", "ENG", "RUS", "LIT"].contains(language) { throw UsageError("--language takes EST, ENG, RUS or LIT") }
        certificateFiles = arguments.all("--service-cert")
        configFile = arguments.value("--remote-config")
        proxy = arguments.value("--proxy")
        if let proxy, URL(string: proxy)?.scheme != "http" { throw UsageError("--proxy takes http://HOST:PORT") }
    }

    /// The configuration for `service` ("mobileID" or "smartID").
    func configuration(_ service: String, name: String, environment: [String: String]) throws -> RemoteServiceConfiguration {
        var section: [String: Any] = [:]
        // config.json's section first (unless --remote-config names a file), then remote.json's.
        let settings = configFile == nil ? try Configuration.load(environment: environment) : Configuration()
        let defaultFile = (environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"] ?? UserAccount.homeFolder()).appendingPathComponent(".config"))
            .appendingPathComponent("tamga/remote.json").path
        if let configured = settings.remoteSections[service] {
            section = configured
        } else if let file = configFile ?? (FileManager.default.fileExists(atPath: defaultFile) ? defaultFile : nil) {
            guard let data = FileManager.default.contents(atPath: file) else { throw CoreError.unreadableFile(path: file, reason: "cannot read") }
            guard let object = (try? JSON.parse(data)) as? [String: Any] else {
                throw CoreError.unreadableFile(path: file, reason: "not a JSON object")
            }
            section = object[service] as? [String: Any] ?? [:]
        }
        guard let urlText = url ?? section["url"] as? String, let url = URL(string: urlText), url.scheme == "https" || url.scheme == "http" else {
            throw RemoteSigningError.notConfigured(service: name, missing: "the service URL (--service-url)")
        }
        guard let uuid = relyingPartyUUID ?? section["relyingPartyUUID"] as? String, let rpName = relyingPartyName ?? section["relyingPartyName"] as? String else {
            throw RemoteSigningError.notConfigured(service: name, missing: "the relying party (--rp-uuid and --rp-name)")
        }
        var configuration = RemoteServiceConfiguration(url: url, relyingPartyUUID: uuid, relyingPartyName: rpName)
        let pinFiles = certificateFiles.isEmpty ? (section["trustedCertificates"] as? [String] ?? []) : certificateFiles
        configuration.trustedCertificates = try VerifyCommand.loadCertificates(pinFiles)
        if let text = displayText ?? section["displayText"] as? String { configuration.displayText = text }
        if let language = language ?? section["language"] as? String {
            guard ["EST", "ENG", "RUS", "LIT"].contains(language) else { throw UsageError("language in \(configFile ?? defaultFile) takes EST, ENG, RUS or LIT") }
            configuration.language = language
        }
        configuration.proxy = proxy ?? section["proxy"] as? String
        if let proxy = configuration.proxy, URL(string: proxy)?.scheme != "http" { throw UsageError("proxy takes http://HOST:PORT, got \(proxy)") }
        if let seconds = section["pollSeconds"] as? Double { configuration.pollSeconds = seconds }
        if let seconds = section["timeoutSeconds"] as? Double { configuration.overallTimeout = seconds }
        configuration.userAgent = "tamga/\(TamgaCommandLine.version)"
        return configuration
    }
}
