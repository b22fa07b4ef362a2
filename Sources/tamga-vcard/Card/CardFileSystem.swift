/// The card's files as a flat map from full paths (file identifiers from the MF, e.g.
/// `[0x3F00, 0xADF2, 0x341F]`) to contents, plus the current DF and EF. Enough of ISO 7816-4
/// selection for the ID-card applets: by path from the MF (P1 08), by path from the current
/// DF (P1 09), a DF under the current DF (P1 01) and an EF under the current DF (P1 02).
final class CardFileSystem {
    static let masterFile: UInt16 = 0x3F00
    private var files: [[UInt16]: [UInt8]] = [:]
    private var folders: Set<[UInt16]> = [[masterFile]]
    private(set) var currentFolder: [UInt16] = [masterFile]
    private(set) var currentFile: [UInt16]? = nil

    func addFile(_ path: [UInt16], _ contents: [UInt8]) {
        files[[Self.masterFile] + path] = contents
        for depth in 1..<path.count { folders.insert([Self.masterFile] + path.prefix(depth)) }
    }

    func reset() {
        currentFolder = [Self.masterFile]
        currentFile = nil
    }

    /// Selects by ISO 7816-4 P1 and the data's file identifiers; returns the size of a selected
    /// EF (nil for a DF), or throws the status word to answer.
    func select(p1: UInt8, data: [UInt8]) throws(SelectFailure) -> Int? {
        guard data.count % 2 == 0, !data.isEmpty else { throw SelectFailure.wrongData }
        let ids = stride(from: 0, to: data.count, by: 2).map { UInt16(data[$0]) << 8 | UInt16(data[$0 + 1]) }
        let target: [UInt16]
        switch p1 {
        case 0x08: target = [Self.masterFile] + (ids.first == Self.masterFile ? Array(ids.dropFirst()) : ids)
        case 0x09, 0x01, 0x02: target = currentFolder + ids
        case 0x00 where ids == [Self.masterFile]: target = [Self.masterFile]
        default: throw SelectFailure.wrongParameters
        }
        if p1 == 0x01 && files[target] != nil { throw SelectFailure.notFound }
        if let contents = files[target] {
            currentFolder = Array(target.dropLast())
            currentFile = target
            return contents.count
        }
        if folders.contains(target) && p1 != 0x02 {
            currentFolder = target
            currentFile = nil
            return nil
        }
        throw SelectFailure.notFound
    }

    /// READ BINARY from the current EF. At most `limit` bytes per answer (Thales cards return
    /// fewer than asked for, which readers must cope with).
    func read(offset: Int, length: Int, limit: Int) -> CardResponse {
        guard let currentFile, let contents = files[currentFile] else { return .status(0x6986) }  // no current EF
        guard offset <= contents.count else { return .offsetOutOfRange }
        let count = min(length, limit, contents.count - offset)
        return CardResponse(Array(contents[offset..<(offset + count)]))
    }

    enum SelectFailure: Error {
        case wrongData, wrongParameters, notFound
        var response: CardResponse {
            switch self {
            case .wrongData: .wrongData
            case .wrongParameters: .wrongP1P2
            case .notFound: .notFound
            }
        }
    }
}

/// The FCP template a SELECT with P2 = 04 returns: tag 62 with the EF size (tag 80).
func fileControlParameters(size: Int?) -> [UInt8] {
    guard let size else { return [0x62, 0x03, 0x82, 0x01, 0x38] }  // a DF
    return [0x62, 0x04, 0x80, 0x02, UInt8(size >> 8), UInt8(size & 0xFF)]
}
