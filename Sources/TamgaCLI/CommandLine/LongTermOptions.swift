import ASiC
import FoundationEssentials
import Glibc
import TamgaCore

/// `--tsa`, `--ocsp`, `--certs` and `--timeout`: where T/LT/LTA evidence comes from.
struct LongTermOptions {
    static let options: Set<String> = ["--tsa", "--ocsp", "--certs", "--timeout"]
    static let environmentTSA = "TAMGA_TSA_URL"
    static let help = """
          --tsa URL            the RFC 3161 time-stamping authority (else $TAMGA_TSA_URL, else "tsa" in
                               config.json); needed for T, LT, LTA
          --ocsp URL           the OCSP responder (default: the certificate's AIA OCSP URL)
          --certs FILE         PEM certificates that may be the signer's issuer (repeatable; default: the
                               PKCS#12 chain, then the AIA caIssuers URL)
          --timeout SECONDS    per network request (default 20); proxies come from http_proxy/https_proxy
        """

    let tsa: URL?
    let ocsp: URL?
    let certificateFiles: [String]
    let timeout: TimeInterval

    private static func url(_ option: String, _ text: String?) throws -> URL? {
        guard let text else { return nil }
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw UsageError("\(option) takes an http(s) URL, got \(text)")
        }
        return url
    }

    init(_ arguments: ParsedArguments) throws {
        tsa = try Self.url("--tsa", arguments.value("--tsa"))
        ocsp = try Self.url("--ocsp", arguments.value("--ocsp"))
        certificateFiles = arguments.all("--certs")
        guard let timeout = TimeInterval(arguments.value("--timeout") ?? "20"), timeout > 0 else {
            throw UsageError("--timeout takes a number of seconds")
        }
        self.timeout = timeout
    }

    /// The services, with the TSA from `--tsa`, else `$TAMGA_TSA_URL`, else the configuration
    /// file's `tsa` (read only when neither is given).
    func services(environment: [String: String]) throws -> LongTermServices {
        let transport = HTTPTransport(timeout: timeout)
        var tsa = try self.tsa ?? Self.url("$\(Self.environmentTSA)", environment[Self.environmentTSA])
        if tsa == nil { tsa = try Configuration.load(environment: environment).tsa }
        return LongTermServices(
            timeStamping: tsa.map { TimeStampClient(url: $0, transport: transport) },
            ocsp: OCSPClient(transport: transport), ocspURL: ocsp,
            issuerCandidates: try VerifyCommand.loadCertificates(certificateFiles),
            transport: transport)
    }
}

extension SignatureProfile {
    init(argument: String) throws {
        guard let profile = SignatureProfile(rawValue: argument.uppercased()) else {
            throw UsageError("a profile is B, T, LT or LTA, not \(argument)")
        }
        self = profile
    }
}
