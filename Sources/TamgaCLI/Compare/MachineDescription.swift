import FoundationEssentials
import Glibc
import TamgaSupport

/// The machine a comparison ran on, so that a report says where its numbers come from: the
/// system (/etc/os-release), the kernel (uname), the processor (/proc/cpuinfo) and how many
/// cores were online. No host name or user: a report is meant to be passed around.
struct MachineDescription: Codable, Equatable {
    var system: String
    var kernel: String
    var processor: String
    var cores: Int

    static func current() -> MachineDescription {
        var names = utsname()
        uname(&names)
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return MachineDescription(
            system: osRelease() ?? text(names.sysname),
            kernel: "\(text(names.sysname)) \(text(names.release)) \(text(names.machine))",
            processor: processorModel() ?? text(names.machine), cores: max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// PRETTY_NAME of /etc/os-release ("Debian GNU/Linux 12 (bookworm)").
    static func osRelease(
        _ text: String? = FileBytes.read("/etc/os-release", limit: 65536).map { String(decoding: $0, as: UTF8.self) }
    ) -> String? {
        guard let text else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
            let value = line.dropFirst("PRETTY_NAME=".count)
            return String(
                value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2
                    ? value.dropFirst().dropLast() : value)
        }
        return nil
    }

    /// The first "model name" of /proc/cpuinfo (x86), else its "Hardware"/"CPU part" line.
    static func processorModel() -> String? {
        // A /proc file reports no size but is read to its end like any regular file.
        guard let bytes = FileBytes.read("/proc/cpuinfo", limit: 1 << 20) else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let key = parts[0].trimmed()
            if key == "model name" || key == "Hardware" { return parts[1].trimmed() }
        }
        return nil
    }
}
