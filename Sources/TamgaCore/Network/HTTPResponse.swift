import TamgaSupport

/// An HTTP/1.1 response read from a connection: status line, headers, then a body framed by
/// `Transfer-Encoding: chunked`, `Content-Length`, or the end of the connection. Every size is
/// bounded: headers 64 KiB, the body `maximumBody` bytes.
struct HTTPResponse {
    let status: Int
    /// Header names in lower case; repeated headers joined with ", ".
    let headers: [String: String]
    let body: [UInt8]

    static let maximumHeaderBytes = 64 * 1024

    /// Buffered reading over a connection.
    struct Reader {
        let connection: NetworkConnection
        var buffer: [UInt8] = []
        var atEnd = false

        mutating func fill() throws(NetworkFailure) {
            guard !atEnd else { return }
            let more = try connection.read()
            if more.isEmpty { atEnd = true } else { buffer += more }
        }

        /// Bytes up to and including the first CRLF CRLF.
        mutating func headerBlock() throws(NetworkFailure) -> [UInt8] {
            var searchFrom = 0
            while true {
                if buffer.count >= 4 {
                    for index in max(0, searchFrom - 3)...(buffer.count - 4)
                    where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13
                        && buffer[index + 3] == 10
                    {
                        let block = Array(buffer[..<(index + 4)])
                        buffer.removeFirst(index + 4)
                        return block
                    }
                    searchFrom = buffer.count
                }
                guard buffer.count <= HTTPResponse.maximumHeaderBytes else {
                    throw .rejected("the answer's headers are larger than 64 KiB")
                }
                try fill()
                if atEnd {
                    throw .rejected(
                        buffer.isEmpty ? "the server closed the connection without answering" : "the answer is not HTTP"
                    )
                }
            }
        }

        /// One CRLF-terminated line (without the CRLF), at most `limit` bytes.
        mutating func line(limit: Int = 4096) throws(NetworkFailure) -> [UInt8] {
            while true {
                if let index = buffer.indices.dropLast().first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 }) {
                    let line = Array(buffer[..<index])
                    buffer.removeFirst(index + 2)
                    return line
                }
                guard buffer.count <= limit else { throw .rejected("a chunk line is too long") }
                try fill()
                if atEnd { throw .rejected("the answer ends in the middle of a chunk") }
            }
        }

        mutating func exactly(_ count: Int) throws(NetworkFailure) -> [UInt8] {
            while buffer.count < count {
                try fill()
                if atEnd { throw .rejected("the answer ends after \(buffer.count) of \(count) announced bytes") }
            }
            let bytes = Array(buffer[..<count])
            buffer.removeFirst(count)
            return bytes
        }
    }

    /// Reads one response. `bodyExpected` is false for HEAD and CONNECT answers.
    static func read(
        from connection: NetworkConnection, maximumBody: Int, bodyExpected: Bool = true
    ) throws(NetworkFailure) -> HTTPResponse {
        var reader = Reader(connection: connection)
        var block = try reader.headerBlock()
        var (status, headers) = try parseHead(block)
        while (100..<200).contains(status) && status != 101 {  // interim answers (100 Continue): skip
            block = try reader.headerBlock()
            (status, headers) = try parseHead(block)
        }
        guard bodyExpected, status != 204, status != 304 else {
            return HTTPResponse(status: status, headers: headers, body: [])
        }
        var body: [UInt8] = []
        if let encoding = headers["transfer-encoding"], encoding.lowercased().contains("chunked") {
            while true {
                let sizeLine = String(decoding: try reader.line(), as: UTF8.self)
                let sizeText = sizeLine.split(separator: ";", maxSplits: 1).first.map { $0.trimmedSpaces() } ?? ""
                // ASCII hex only (RFC 9112 HEXDIG): Swift's Int also takes a sign ("-0", "+a").
                guard (1...15).contains(sizeText.utf8.count), sizeText.utf8.allSatisfy(Self.isASCIIHexDigit),
                    let size = Int(sizeText, radix: 16)
                else {
                    throw .rejected("a chunk size is not a number: \(sizeLine.prefix(40))")
                }
                if size == 0 {
                    while !(try reader.line()).isEmpty {}  // trailer fields, then the blank line
                    break
                }
                guard size <= maximumBody - body.count else {
                    throw .rejected("the answer is larger than \(maximumBody) bytes")
                }
                body += try reader.exactly(size)
                guard try reader.line().isEmpty else { throw .rejected("a chunk is longer than its size") }
            }
        } else if let lengthText = headers["content-length"] {
            // ASCII digits only (RFC 9110 1*DIGIT): Swift's Int also takes a sign ("+10").
            let digits = lengthText.trimmedSpaces()
            guard (1...18).contains(digits.utf8.count),
                digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let length = Int(digits)
            else {
                throw .rejected("Content-Length is not a number: \(lengthText.prefix(40))")
            }
            guard length <= maximumBody else {
                throw .rejected("the answer is \(length) bytes, more than the \(maximumBody) accepted")
            }
            body = try reader.exactly(length)
        } else {
            while true {
                guard reader.buffer.count <= maximumBody else {
                    throw .rejected("the answer is larger than \(maximumBody) bytes")
                }
                try reader.fill()
                if reader.atEnd { break }
            }
            body = reader.buffer
        }
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    private static func isASCIIHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    private static func parseHead(_ block: [UInt8]) throws(NetworkFailure) -> (Int, [String: String]) {
        let text = String(decoding: block, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard !lines.isEmpty else { throw .rejected("the answer is not HTTP") }
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...599).contains(status)
        else {
            throw .rejected("the answer is not HTTP (\(statusLine.prefix(40)))")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw .rejected("a malformed header line") }
            let name = line[..<colon].trimmedSpaces().lowercased()
            let value = line[line.index(after: colon)...].trimmedSpaces()
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        return (status, headers)
    }
}
