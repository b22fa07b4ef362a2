import CFuzzer
import Foundation
import TamgaCore

/// What every fuzz target shares: the repository's fixtures, a scratch folder, and the input
/// as bytes and as text.
public enum FuzzSupport {
    /// The repository root (Fuzz/ is one level below it).
    public static let repository: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static func fixture(_ path: String) -> URL {
        repository.appendingPathComponent("Fixtures").appendingPathComponent(path)
    }

    /// A private folder for files a target must write (a container to open).
    public static let scratch: URL = {
        // In memory when the machine has a tmpfs: targets that must write a file do it per input.
        let base =
            FileManager.default.fileExists(atPath: "/dev/shm")
            ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        let url = base.appendingPathComponent("tamga-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: FuzzSupport.scratch) }
        return url
    }()

    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// The certificate of a fixture PEM file; the target stops at start if it is missing.
    public static func certificate(_ path: String) -> Certificate {
        guard let data = try? Data(contentsOf: fixture(path)), let certificate = try? Certificate(derOrPEM: data) else {
            FileHandle.standardError.write(Data("fuzz: cannot read the fixture \(path)\n".utf8))
            exit(2)
        }
        return certificate
    }

    /// Runs libFuzzer with the program's arguments over `callback`.
    public static func run(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt {
        // Fixed inputs (a container, a co-signer database) are made by the first call; make them
        // now, so that their cost is not charged to the first input against -timeout.
        _ = callback(nil, 0)
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments, callback)
    }
}
