import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// POSTs a DER request to a TSA or OCSP responder and returns the body of a 200 answer.
/// Proxies come from the usual environment variables (`http_proxy`, `https_proxy`,
/// `no_proxy`), which libcurl under URLSession reads.
public struct HTTPTransport: Sendable {
    /// Seconds for the whole exchange.
    public var timeout: TimeInterval
    /// Answers larger than this are refused (a TSA token or OCSP response is a few KiB).
    public var maximumResponseSize = 1 << 20
    public var userAgent = "tamga"

    public init(timeout: TimeInterval = 20) { self.timeout = timeout }

    public func post(_ body: Data, to url: URL, contentType: String, accept: String, service: String) async throws -> Data {
        try await exchange(url: url, service: service) { request in
            request.httpMethod = "POST"
            request.httpBody = body
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
            request.setValue(accept, forHTTPHeaderField: "Accept")
        }
    }

    /// GETs a small document (an issuer certificate from an AIA caIssuers URL).
    public func get(_ url: URL, service: String) async throws -> Data {
        try await exchange(url: url, service: service) { $0.httpMethod = "GET" }
    }

    private func exchange(url: URL, service: String, prepare: (inout URLRequest) -> Void) async throws -> Data {
        guard url.scheme == "http" || url.scheme == "https" else {
            throw CoreError.serviceUnreachable(service: service, url: url.absoluteString, reason: "only http and https URLs are supported")
        }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        prepare(&request)
        request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw CoreError.serviceUnreachable(service: service, url: url.absoluteString, reason: error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else {
            throw CoreError.serviceResponseRejected(service: service, url: url.absoluteString, reason: "not an HTTP response")
        }
        guard http.statusCode == 200 else {
            throw CoreError.serviceHTTPStatus(service: service, url: url.absoluteString, status: http.statusCode)
        }
        guard data.count <= maximumResponseSize else {
            throw CoreError.serviceResponseRejected(service: service, url: url.absoluteString, reason: "the answer is \(data.count) bytes")
        }
        return data
    }
}
