import FoundationEssentials
import Glibc

extension Container {
    /// Checks a ZIP entry name as the reference checks data paths at open: not empty, no
    /// leading or trailing `/`, no `\`, no empty, `.` or `..` segment, no control characters.
    /// A trailing `/` is allowed only for an empty directory entry (`META-INF/`), which is ignored.
    static func validateArchivePath(_ name: String, isDirectory: Bool) throws {
        // On scalars, not Characters: "/" followed by a combining mark is one Character, which
        // would hide a leading "/" or a "../" from Character comparisons but not from unzip.
        var path = Substring(name).unicodeScalars
        if isDirectory { path = path.dropLast() }
        guard !path.isEmpty, path.first != "/", path.last != "/", !path.contains("\\"),
            !path.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw ContainerError.unsafeEntryName(name)
        }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            guard !segment.isEmpty, !segment.elementsEqual(".".unicodeScalars),
                !segment.elementsEqual("..".unicodeScalars)
            else {
                throw ContainerError.unsafeEntryName(name)
            }
        }
        // A segment may not start with a mark that joins the "/" before it into one Character:
        // the rest of tamga compares names as Strings ("META-INF/", hasSuffix("/")), and there
        // that "/" would not be one.
        guard path.filter({ $0 == "/" }).count == name.filter({ $0 == "/" }).count - (isDirectory ? 1 : 0) else {
            throw ContainerError.unsafeEntryName(name)
        }
        // A drive letter ("C:…") is an absolute path on Windows, where containers are also opened.
        if path.count >= 2, path.dropFirst().first == ":" { throw ContainerError.unsafeEntryName(name) }
    }

    /// Checks the name of a data file being added: a plain file name (no folders), as the
    /// reference requires when adding.
    static func validateNewDataFileName(_ name: String) throws {
        guard !name.isEmpty, name != "mimetype", name != ".", name != "..", !name.unicodeScalars.contains("/"),
            !name.unicodeScalars.contains("\\"),
            !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }), XMLText.isAllowed(name),
            name.utf8.count <= 255
        else {
            throw ContainerError.invalidDataFileName(name)
        }
    }
}

extension Container {
    /// `type/subtype` with the characters RFC 6838 allows (parameters are not used in ASiC).
    static func validateMediaType(_ type: String) throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&-^_.+".unicodeScalars)
        let parts = type.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy(allowed.contains) }),
            type.count <= 255
        else {
            throw ContainerError.invalidMediaType(type)
        }
    }
}
