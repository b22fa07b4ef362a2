import ASiC
import Foundation
import FuzzSupport
import HTTPService
import TamgaCore
import TamgaSupport
import ValidationService

/// The validation service's router in process (no socket): the first byte picks what the rest
/// is. Either a whole request body for one of the routes, with a method and media type (the
/// request checks, the JSON reading, the errors), or a document that the harness wraps in a
/// well-formed request under a chosen extension (the container readers and SiVa's report built
/// from whatever they make of it), or a detached signature file wrapped in a /validateHashcode
/// request. Any 200 or 4xx is fine, with a JSON body of SiVa's shape; a
/// 5xx or a trap is not.
/// What `validation serve` hands the HTTP server: the operator's routes, the admission gate, the
/// metrics and the access log (written to nowhere) in front of SiVa's API.
nonisolated(unsafe) let service: ValidationOperations = {
    do {
        let trust = ServiceTrust(source: .anchors, initial: .init(options: ValidationOptions()), reload: nil)
        let siva = try SiVaService(maximumDocumentSize: 1 << 20, version: "fuzz") { trust.options() }
        return ValidationOperations(
            service: siva, trust: trust, gate: AdmissionGate(running: 1, waiting: 0), metrics: ValidationMetrics(),
            accessLog: AccessLog(includeNames: true) { _ in })
    } catch {
        FileHandle.standardError.write(Data("FuzzValidationService: \(error)\n".utf8))
        exit(1)
    }
}()

let extensions = ["asice", "bdoc", "asics", "zip", "ddoc", "sce", "scs", "pdf", ""]
let routes: [(String, String)] = [
    ("POST", "/validate"), ("GET", "/validate"), ("GET", "/monitoring/health"), ("POST", "/validateHashcode"),
    ("GET", "/monitoring/version"), ("POST", "/getDataFiles"), ("GET", "/monitoring/ready"), ("GET", "/metrics"),
]

/// The base64 SHA-256 digest of a seed data file (scripts/fuzz.sh writes a.txt and b.json).
func seedDigest(_ text: String) -> String {
    Digest.compute(.sha256, over: Data(text.utf8)).bytes.base64EncodedString()
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzValidationService(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzSupport.bytes(data, size)
    guard let selector = bytes.first else { return 0 }
    let rest = Array(bytes.dropFirst())
    let request: HTTPRequest
    if selector & 0x80 != 0 {
        let name =
            "input"
            + (extensions[Int(selector & 0x0F) % extensions.count].isEmpty
                ? "" : "." + extensions[Int(selector & 0x0F) % extensions.count])
        let policy = selector & 0x10 != 0 ? ",\"signaturePolicy\":\"POLv3\"" : ""
        let body = Array(
            "{\"document\":\"\(Data(rest).base64EncodedString())\",\"filename\":\"\(name)\"\(policy)}".utf8)
        request = HTTPRequest(
            method: "POST", path: "/validate", headers: ["content-type": "application/json"], body: body)
    } else if selector & 0x40 != 0 {
        // A detached signature file for /validateHashcode: with the seed's data files by their
        // SHA-256 digests (0x01), or with none (the signature's own digests are listed).
        let files =
            selector & 0x01 != 0
            ? #","datafiles":[{"filename":"a.txt","hashAlgo":"SHA256","hash":"\#(seedDigest("fuzz seed\n"))"},{"filename":"b.json","hashAlgo":"sha256","hash":"\#(seedDigest("{\"n\": 1}\n"))"}]"#
            : ""
        let body = Array(
            "{\"signatureFiles\":[{\"signature\":\"\(Data(rest).base64EncodedString())\"\(files)}],\"signaturePolicy\":\"POLv3\"}"
                .utf8)
        request = HTTPRequest(
            method: "POST", path: "/validateHashcode", headers: ["content-type": "application/json"], body: body)
    } else {
        let (method, path) = routes[Int(selector & 0x0F) % routes.count]
        let type = selector & 0x10 != 0 ? "text/plain" : "application/json; charset=UTF-8"
        request = HTTPRequest(method: method, path: path, headers: ["content-type": type], body: rest)
    }
    let response = service.handle(request)
    guard response.status == 200 || (400..<500).contains(response.status) else {
        FileHandle.standardError.write(
            Data("FuzzValidationService: \(request.method) \(request.path) answered \(response.status)\n".utf8))
        abort()
    }
    if request.path == "/metrics", response.status == 200 {
        // Prometheus text, not JSON: every line a comment or a sample.
        let text = String(decoding: response.body, as: UTF8.self)
        guard text.split(separator: "\n").allSatisfy({ $0.hasPrefix("# ") || $0.hasPrefix("tamga_validation_") }) else {
            FileHandle.standardError.write(Data("FuzzValidationService: /metrics is not Prometheus text\n".utf8))
            abort()
        }
        return 0
    }
    guard let json = (try? JSON.parse(response.body)) as? [String: Any] else {
        FileHandle.standardError.write(Data("FuzzValidationService: the answer is not a JSON object\n".utf8))
        abort()
    }
    if response.status == 200, request.path == "/validateHashcode" {
        guard let report = json["validationReport"] as? [String: Any],
            let conclusion = report["validationConclusion"] as? [String: Any],
            let count = conclusion["signaturesCount"] as? Int, let valid = conclusion["validSignaturesCount"] as? Int,
            valid <= count
        else {
            FileHandle.standardError.write(
                Data("FuzzValidationService: a hashcode 200 without a consistent validationConclusion\n".utf8))
            abort()
        }
        // Nothing was trusted, and a detached signature is never a DDOC: any pass is a wrong VALID.
        if valid > 0 {
            FileHandle.standardError.write(
                Data("FuzzValidationService: a detached signature passed with no trust at all\n".utf8))
            abort()
        }
    } else if response.status == 200, request.path == "/validate" {
        guard let report = json["validationReport"] as? [String: Any],
            let conclusion = report["validationConclusion"] as? [String: Any],
            let count = conclusion["signaturesCount"] as? Int, let valid = conclusion["validSignaturesCount"] as? Int,
            valid <= count,
            (conclusion["signatures"] as? [Any] ?? []).count == count
        else {
            FileHandle.standardError.write(
                Data("FuzzValidationService: a 200 without a consistent validationConclusion\n".utf8))
            abort()
        }
        // Nothing was trusted (no anchors, no list): a container can pass only as a DDOC, whose
        // trust set is built in; any other passed signature would be a wrong VALID.
        if valid > 0,
            conclusion["signatureForm"] as? String == "ASiC-E" || conclusion["signatureForm"] as? String == "ASiC-S"
        {
            FileHandle.standardError.write(
                Data("FuzzValidationService: an ASiC signature passed with no trust at all\n".utf8))
            abort()
        }
    } else if response.status != 200 {
        guard let errors = json["requestErrors"] as? [[String: Any]], !errors.isEmpty,
            errors.allSatisfy({ $0["key"] is String && $0["message"] is String })
        else {
            FileHandle.standardError.write(
                Data("FuzzValidationService: \(response.status) without requestErrors\n".utf8))
            abort()
        }
    }
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzValidationService_main`.
@_cdecl("FuzzValidationService_main")
public func FuzzValidationServiceMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt
{
    FuzzSupport.run(argc, argv, fuzzValidationService)
}
