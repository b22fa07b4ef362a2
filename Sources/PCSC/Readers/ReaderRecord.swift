import FoundationEssentials
import Glibc

/// One record of CryptoPro's `CryptGetProvParam(PP_ENUMREADERS, CRYPT_MEDIA)`:
/// `nickname NUL name NUL media NUL flags` (one flag byte).
///
/// The parser advances by each field's own length in *bytes*. The sample in seed 002
/// (`CProReader initWithData:`) advances past the media by the *name's* length, and measures
/// lengths in UTF-16 units (`[NSString length]`) rather than bytes: with a media name longer or
/// shorter than the reader name, or any non-ASCII character, it reads the flags from the wrong
/// byte (see `ReaderRecordTests`).
public struct ReaderRecord: Sendable, Equatable {
    public let nickname: String
    public let name: String
    public let media: String
    public let flags: UInt8

    /// Why a record could not be read; the parser never reads past the buffer.
    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case missingTerminator(field: String)
        case missingFlags
        case notUTF8(field: String)

        public var description: String {
            switch self {
            case .missingTerminator(let field): "the \(field) field has no NUL terminator within the record"
            case .missingFlags: "the record ends before its flags byte"
            case .notUTF8(let field): "the \(field) field is not UTF-8"
            }
        }
    }

    public init(nickname: String, name: String, media: String, flags: UInt8) {
        self.nickname = nickname
        self.name = name
        self.media = media
        self.flags = flags
    }

    /// Parses one record from the start of `bytes`; returns it and the number of bytes used.
    public static func parse(_ bytes: [UInt8]) throws -> (record: ReaderRecord, length: Int) {
        var cursor = 0
        func field(_ label: String) throws -> String {
            guard let end = bytes[cursor...].firstIndex(of: 0) else { throw ParseError.missingTerminator(field: label) }
            guard let text = String(validating: bytes[cursor..<end], as: UTF8.self) else {
                throw ParseError.notUTF8(field: label)
            }
            cursor = end + 1  // the field's own length in bytes, plus its NUL
            return text
        }
        let nickname = try field("nickname")
        let name = try field("name")
        let media = try field("media")
        guard cursor < bytes.count else { throw ParseError.missingFlags }
        let flags = bytes[cursor]
        return (ReaderRecord(nickname: nickname, name: name, media: media, flags: flags), cursor + 1)
    }

    /// The record's bytes (for tests and fixtures).
    public var encoded: [UInt8] {
        Array(nickname.utf8) + [0] + Array(name.utf8) + [0] + Array(media.utf8) + [0] + [flags]
    }

    /// The parsed media name, if it is one of the known forms.
    public var mediaName: MediaName? { MediaName(media) }
}
