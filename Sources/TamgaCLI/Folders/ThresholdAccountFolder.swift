import FoundationEssentials
import Glibc
import Threshold

/// Where this device's split-key accounts live: `--store DIR`, else
/// `$XDG_DATA_HOME/tamga/threshold` (the `ShareKeyStore` default, named here so that every
/// command finds the same folder and creating it fails with a plain message).
enum ThresholdAccountFolder {
    static let holds = "split-key shares and device keys"

    static func root(store: String?, environment: [String: String]) -> URL? {
        store.map { URL(fileURLWithPath: $0) } ?? UserFolder.data.path("threshold", environment: environment)
    }

    /// The store of an account being enrolled: its folder is created (0700) first.
    static func creating(account: String, store: String?, environment: [String: String]) throws -> ShareKeyStore {
        let root: URL
        if let store {
            root = URL(fileURLWithPath: store)
            try UserFolder.create(root, holds: holds, remedy: "Give --store a folder you can write.")
        } else {
            root = try UserFolder.data.create("threshold", holds: holds, environment: environment)
        }
        return try ShareKeyStore(account: account, root: root, environment: environment)
    }

    /// The store of an enrolled account; an account with no folder is not enrolled (and no
    /// folder is created for it, so a read-only home does not hide that).
    static func existing(account: String, store: String?, environment: [String: String]) throws -> ShareKeyStore {
        guard let root = root(store: store, environment: environment),
            FileManager.default.fileExists(atPath: root.appendingPathComponent(account).path)
        else {
            throw ThresholdError.notEnrolled
        }
        return try ShareKeyStore(account: account, root: root, environment: environment)
    }

    static func accounts(role: ShareRole, environment: [String: String]) -> [String] {
        guard let root = root(store: nil, environment: environment) else { return [] }
        return ShareKeyStore.accounts(role: role, root: root, environment: environment)
    }
}
