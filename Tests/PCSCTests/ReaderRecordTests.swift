import XCTest

@testable import PCSC

/// The PP_ENUMREADERS record parser: well-formed, truncated and unterminated input, and why the
/// seed's parser (advancing past the media by the *name's* length, in UTF-16 units) is wrong.
final class ReaderRecordTests: XCTestCase {
    let sample = ReaderRecord(
        nickname: "Aktiv Rutoken lite 01 00", name: "Rutoken lite", media: "rutoken_lt_40d27c56", flags: 0x05)

    func testWellFormedRecordsAndConsecutiveRecords() throws {
        let cloud = ReaderRecord(nickname: "CLOUD", name: "Облако", media: "NO_MEDIA", flags: 0x01)
        let bytes = sample.encoded + cloud.encoded
        let (first, used) = try ReaderRecord.parse(bytes)
        XCTAssertEqual(first, sample)
        XCTAssertEqual(first.mediaName?.family, "rutoken_lt")
        let (second, usedSecond) = try ReaderRecord.parse(Array(bytes[used...]))
        XCTAssertEqual(second, cloud)
        XCTAssertEqual(used + usedSecond, bytes.count)
    }

    func testTruncatedAndUnterminatedInputGiveClearErrors() {
        let bytes = sample.encoded
        XCTAssertThrowsError(try ReaderRecord.parse(Array(bytes.dropLast()))) {
            XCTAssertEqual($0 as? ReaderRecord.ParseError, .missingFlags)
        }
        XCTAssertThrowsError(try ReaderRecord.parse(Array(bytes.prefix(10)))) {
            XCTAssertEqual($0 as? ReaderRecord.ParseError, .missingTerminator(field: "nickname"))
        }
        let unterminatedMedia =
            Array(sample.nickname.utf8) + [0] + Array(sample.name.utf8) + [0] + Array(sample.media.utf8)
        XCTAssertThrowsError(try ReaderRecord.parse(unterminatedMedia)) {
            XCTAssertEqual($0 as? ReaderRecord.ParseError, .missingTerminator(field: "media"))
        }
        XCTAssertThrowsError(try ReaderRecord.parse([]))
        XCTAssertThrowsError(try ReaderRecord.parse([0xFF, 0xFE, 0]))
    }

    /// The seed's loop, transcribed: each field is read up to its NUL, but the pointer moves by
    /// `1 + [field length]` in UTF-16 units, and past the media by the *name's* length.
    private func seedParse(_ bytes: [UInt8]) -> (media: String, flags: UInt8?) {
        var pointer = 0
        func read() -> String {
            let end = bytes[pointer...].firstIndex(of: 0) ?? bytes.count
            return String(decoding: bytes[pointer..<end], as: UTF8.self)
        }
        let nickname = read()
        pointer += 1 + nickname.utf16.count
        let name = read()
        pointer += 1 + name.utf16.count
        let media = read()
        pointer += 1 + name.utf16.count  // the bug: name, not media
        return (media, pointer < bytes.count ? bytes[pointer] : nil)
    }

    func testTheSeedParserReadsTheFlagsFromTheWrongByte() throws {
        // "rutoken_lt_40d27c56" is 19 bytes, "Rutoken lite" 12: the seed stops 7 bytes early,
        // inside the media string, and takes a character of it for the flags.
        let seed = seedParse(sample.encoded)
        XCTAssertEqual(seed.media, sample.media)
        XCTAssertNotEqual(seed.flags, sample.flags)
        XCTAssertEqual(try ReaderRecord.parse(sample.encoded).record.flags, 0x05)
        // A non-ASCII name: UTF-16 length and byte length differ, so even the name step is wrong.
        let cyrillic = ReaderRecord(
            nickname: "Считыватель 00 00", name: "Рутокен", media: "rutoken_ecp_00c0ffee", flags: 0x02)
        XCTAssertNotEqual(seedParse(cyrillic.encoded).media, cyrillic.media)
        XCTAssertEqual(try ReaderRecord.parse(cyrillic.encoded).record, cyrillic)
    }
}
