import ASiC
import FoundationEssentials
import Glibc
import HTTPService
import TamgaCore
import TamgaSupport

/// SiVa's v3 REST JSON interface over tamga's validation (docs/siva.md): `POST /validate` and
/// the monitoring endpoints. Stateless: each request's document goes to a private temporary
/// file, is validated with the trust the service was given, and is removed before the answer.
public final class SiVaService: @unchecked Sendable {  // unchecked: `requests` behind `lock`; the rest is immutable
    /// How trust is judged: the anchors or trusted lists the service was started with.
    public let options: @Sendable () -> ValidationOptions
    /// The largest document accepted, decoded (SiVa's is configurable; the default here is its
    /// old default, 10 MB).
    public let maximumDocumentSize: Int
    /// Where documents are written while they are validated (mode 0700, the service's own).
    let scratch: String
    let started: Date
    let version: String
    /// When this program was built, as SiVa's health answer gives it: the executable's
    /// modification time (what the build or the package wrote), nil where it cannot be read.
    let buildTime: Date?
    private let lock = Lock()
    private var requests: UInt64 = 0

    public static let defaultMaximumDocumentSize = 10 * 1024 * 1024

    /// The request bodies the HTTP server must accept for `maximumDocumentSize`: the base64 of
    /// the largest document, plus the other fields and line breaks some clients add.
    public static func maximumBody(forDocumentSize size: Int) -> Int { (size + 2) / 3 * 4 * 77 / 76 + 64 * 1024 }

    public init(
        maximumDocumentSize: Int = SiVaService.defaultMaximumDocumentSize, version: String,
        options: @escaping @Sendable () -> ValidationOptions
    ) throws {
        self.maximumDocumentSize = maximumDocumentSize
        self.options = options
        self.version = version
        started = Date()
        var status = stat()
        buildTime =
            stat("/proc/self/exe", &status) == 0
            ? Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec)) : nil
        var template = Array((FileManager.default.temporaryDirectory.path + "/tamga-validation-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CoreError.unreadableFile(
                path: FileManager.default.temporaryDirectory.path,
                reason:
                    "cannot make a private folder for documents being validated: \(String(cString: strerror(errno)))")
        }
        scratch = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: scratch) }

    /// What a validation found, for the access log and the metrics (never the content).
    public struct Outcome: Sendable, Equatable {
        public var signatures = 0
        public var validSignatures = 0
        /// The document's name, or the data files' names of a hashcode request.
        public var names: [String] = []
    }

    /// The routes that validate (and so take a place in the admission gate).
    public static let validationRoutes: Set<String> = ["/validate", "/validateHashcode", "/getDataFiles"]
    /// Every route served, by the service or the operator's endpoints in front of it.
    public static let knownRoutes: Set<String> = validationRoutes.union([
        "/monitoring/health", "/monitoring/health.json", "/monitoring/heartbeat",
        "/monitoring/version", "/monitoring/ready", "/metrics",
    ])

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        var outcome: Outcome? = nil
        return handle(request, outcome: &outcome)
    }

    public func handle(_ request: HTTPRequest, outcome: inout Outcome?) -> HTTPResponse {
        switch request.path {
        case "/validate":
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            guard Self.isJSON(request.headers["content-type"]) else { return Self.unsupportedMediaType() }
            return validate(request.body, &outcome)
        case "/validateHashcode":
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            guard Self.isJSON(request.headers["content-type"]) else { return Self.unsupportedMediaType() }
            return validateHashcode(request.body, &outcome)
        case "/getDataFiles":
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            guard Self.isJSON(request.headers["content-type"]) else { return Self.unsupportedMediaType() }
            return dataFiles(request.body, &outcome)
        case "/monitoring/health", "/monitoring/health.json":
            guard request.method == "GET" else { return Self.methodNotAllowed("GET") }
            return Self.json(
                .object([
                    ("status", .string("UP")),
                    (
                        "components",
                        .object([
                            (
                                "health",
                                .object([
                                    ("status", .string("UP")),
                                    (
                                        "details",
                                        .object(
                                            [("webappName", .string("tamga")), ("version", .string(version))]
                                                + (buildTime.map {
                                                    [("buildTime", JSON.Value.string(XSDDateTime.format($0)))]
                                                } ?? [])
                                                + [
                                                    ("startTime", .string(XSDDateTime.format(started))),
                                                    ("currentTime", .string(XSDDateTime.format(Date()))),
                                                ])
                                    ),
                                ])
                            )
                        ])
                    ),
                ]))
        case "/monitoring/heartbeat":
            guard request.method == "GET" else { return Self.methodNotAllowed("GET") }
            return Self.json(.object([("status", .string("UP"))]))
        case "/monitoring/version":
            guard request.method == "GET" else { return Self.methodNotAllowed("GET") }
            return Self.json(.object([("version", .string(version))]))
        default:
            return Self.json(
                RequestErrors([.init(key: "endpointNotFound", message: "Endpoint not found")]).json, status: 404)
        }
    }

    /// The options of a validation whose report lists the signatures' certificates and
    /// time-stamp facts (SiVa's report has them; `verify` does not gather them).
    func reportOptions() -> ValidationOptions {
        var options = options()
        options.collectEvidence = true
        return options
    }

    /// The document types tamga validates, by the extension SiVa routes on.
    static let containerExtensions: [String: Set<Container.Kind>] = [
        "asice": [.asice], "sce": [.asice], "bdoc": [.asice], "asics": [.asics], "scs": [.asics],
        "zip": [.asice, .asics], "ddoc": [.ddoc],
    ]

    func validate(_ body: [UInt8], _ outcome: inout Outcome?) -> HTTPResponse {
        let request: ValidationRequest
        switch ValidationRequest.parse(body) {
        case .success(let parsed): request = parsed
        case .failure(let errors): return Self.json(errors.json, status: 400)
        }
        guard let kinds = Self.containerExtensions[request.fileExtension] else {
            let named = request.fileExtension.isEmpty ? "a file name without an extension" : ".\(request.fileExtension)"
            return Self.json(
                RequestErrors([
                    .init(
                        key: "document",
                        message:
                            "Document type not supported: \(named); this service validates ASiC-E and BDOC (.asice, .sce, .bdoc), ASiC-S (.asics, .scs, .zip) and DigiDoc (.ddoc)"
                    )
                ]).json, status: 400)
        }
        let tooLarge = Self.json(
            RequestErrors([
                .init(
                    key: "document",
                    message: "Document is larger than the \(maximumDocumentSize) bytes this service accepts")
            ]).json, status: 413)
        guard request.documentSizeBound - 3 <= maximumDocumentSize else { return tooLarge }
        guard let document = request.decodedDocument() else {
            return Self.json(RequestErrors([.documentMalformed]).json, status: 400)
        }
        guard document.count <= maximumDocumentSize else { return tooLarge }
        let number = lock.withLock { () -> UInt64 in
            requests += 1
            return requests
        }
        let path = "\(scratch)/\(number).\(request.fileExtension)"
        guard FileManager.default.createFile(atPath: path, contents: document, attributes: [.posixPermissions: 0o600])
        else {
            return Self.json(
                RequestErrors([
                    .init(key: "document", message: "Unfortunately there was an error validating your document")
                ]).json, status: 500)
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let container: Container
        do {
            container = try Container(openingAt: path)
        } catch {
            return Self.json(RequestErrors([.documentMalformed]).json, status: 400)
        }
        guard kinds.contains(container.kind) else {
            return Self.json(RequestErrors([.documentMalformed]).json, status: 400)
        }
        let report = container.validate(reportOptions())
        let conclusion = ConclusionBuilder(policy: request.policy, filename: request.filename).conclusion(
            report, container: container)
        outcome = Outcome(
            signatures: conclusion.signaturesCount, validSignatures: conclusion.validSignaturesCount,
            names: [request.filename])
        return Self.json(conclusion.responseJSON)
    }

    /// Detached signature files against the data files' digests: each file is validated on its
    /// own (nothing touches the disk), and the answer is one conclusion over all of them.
    func validateHashcode(_ body: [UInt8], _ outcome: inout Outcome?) -> HTTPResponse {
        let request: HashcodeValidationRequest
        switch HashcodeValidationRequest.parse(body) {
        case .success(let parsed): request = parsed
        case .failure(let errors): return Self.json(errors.json, status: 400)
        }
        let malformed = Self.json(
            RequestErrors([.init(key: "signatureFiles.signature", message: "Signature file malformed")]).json,
            status: 400)
        let builder = ConclusionBuilder(policy: request.policy, filename: "", hashcode: true)
        var merged: ValidationConclusion? = nil
        var total = 0
        for (index, entry) in request.signatureFiles.enumerated() {
            guard let signature = ValidationRequest.decode(entry.signature) else { return malformed }
            total += signature.count
            guard total <= maximumDocumentSize else {
                return Self.json(
                    RequestErrors([
                        .init(
                            key: "signatureFiles",
                            message:
                                "Signature files are larger than the \(maximumDocumentSize) bytes this service accepts")
                    ]).json, status: 413)
            }
            let container: Container
            do {
                container = try Container(
                    detachedSignature: signature, named: "signatures\(index).xml", dataFiles: entry.dataFiles)
            } catch {
                return malformed
            }
            let conclusion = builder.conclusion(container.validate(reportOptions()), container: container)
            guard var sum = merged else {
                merged = conclusion
                continue
            }
            sum.signatures += conclusion.signatures
            sum.signaturesCount += conclusion.signaturesCount
            sum.validSignaturesCount += conclusion.validSignaturesCount
            for warning in conclusion.validationWarnings where !sum.validationWarnings.contains(warning) {
                sum.validationWarnings.append(warning)
            }
            merged = sum
        }
        guard let merged else { return malformed }
        outcome = Outcome(
            signatures: merged.signaturesCount, validSignatures: merged.validSignaturesCount,
            names: request.signatureFiles.flatMap { $0.dataFiles?.map(\.name) ?? [] })
        return Self.json(merged.responseJSON)
    }

    /// A DDOC's data files, each as SiVa's `getDataFiles` gives it: name, media type, content
    /// (base64) and size. A HASHCODE data file's content is not in the document: it is listed
    /// with its size and no `base64`.
    func dataFiles(_ body: [UInt8], _ outcome: inout Outcome?) -> HTTPResponse {
        let request: DataFilesRequest
        switch DataFilesRequest.parse(body) {
        case .success(let parsed): request = parsed
        case .failure(let errors): return Self.json(errors.json, status: 400)
        }
        guard let document = request.decodedDocument() else {
            return Self.json(RequestErrors([.documentMalformed]).json, status: 400)
        }
        guard document.count <= maximumDocumentSize else {
            return Self.json(
                RequestErrors([
                    .init(
                        key: "document",
                        message: "Document is larger than the \(maximumDocumentSize) bytes this service accepts")
                ]).json, status: 413)
        }
        let number = lock.withLock { () -> UInt64 in
            requests += 1
            return requests
        }
        let path = "\(scratch)/\(number).ddoc"
        guard FileManager.default.createFile(atPath: path, contents: document, attributes: [.posixPermissions: 0o600])
        else {
            return Self.json(
                RequestErrors([
                    .init(key: "document", message: "Unfortunately there was an error validating your document")
                ]).json, status: 500)
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let container = try? Container(openingAt: path), container.kind == .ddoc else {
            return Self.json(RequestErrors([.documentMalformed]).json, status: 400)
        }
        var files: [JSON.Value] = []
        for file in container.dataFiles {
            var members: [(String, JSON.Value)] = [
                ("filename", .string(file.name)), ("mimeType", .string(file.mediaType)),
                ("size", .integer(Int(clamping: file.size))),
            ]
            var content = Data()
            do {
                try container.read(file) { content.append(contentsOf: $0) }
                members.append(("base64", .string(content.base64EncodedString())))
            } catch ContainerError.ddocContentNotInDocument {
                // Hashcode: nothing to give but the name and size.
            } catch {
                return Self.json(RequestErrors([.documentMalformed]).json, status: 400)
            }
            files.append(.object(members))
        }
        outcome = Outcome(names: [request.filename])
        var response = Self.json(.object([("dataFiles", .array(files))]))
        response = HTTPResponse(
            status: response.status,
            headers: response.headers.merging(["Content-Disposition": "attachment; filename=\"api.json\""]) { $1 },
            body: response.body)
        return response
    }

    /// SiVa's answer to a body over the size limit.
    public static let requestTooLarge: @Sendable (Int) -> HTTPResponse = { limit in
        json(
            RequestErrors([
                .init(key: "request", message: "Request body length exceeds request size limit (\(limit) bytes)")
            ]).json, status: 413)
    }

    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = contentType.split(separator: ";").first.map { String($0).trimmed().lowercased() } ?? ""
        return type == "application/json"
    }

    static func json(_ value: JSON.Value, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: JSON.data(value))
    }

    static func methodNotAllowed(_ allowed: String) -> HTTPResponse {
        var response = json(
            RequestErrors([
                .init(key: "methodNotAllowed", message: "Only the following request methods are supported: \(allowed)")
            ]).json, status: 405)
        response = HTTPResponse(
            status: response.status, headers: response.headers.merging(["Allow": allowed]) { $1 }, body: response.body)
        return response
    }

    static func unsupportedMediaType() -> HTTPResponse {
        json(
            RequestErrors([
                .init(
                    key: "contentTypeNotSupported",
                    message: "Only the following content types are supported: application/json")
            ]).json, status: 415)
    }
}
