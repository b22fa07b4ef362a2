import Glibc

/// The user this process runs as, from the password database.
public enum UserAccount {
    /// The home folder the password database gives (what `NSHomeDirectory` answers when HOME
    /// is not set); `/` when there is none.
    public static func homeFolder() -> String {
        guard let entry = getpwuid(getuid()), let home = entry.pointee.pw_dir else { return "/" }
        return String(cString: home)
    }
}
