internal import CP11Kit
import FoundationEssentials
import Glibc
import TamgaSupport

/// One PKCS#11 module loaded through p11-kit, owning its function list: loaded by path
/// (`load(path:)`) or one of the modules registered with p11-kit (`registered()`); finalised
/// and released when the last reference goes. Calls into the module are serialised by `lock`:
/// PKCS#11 sessions must not be used from two threads at once, and login state is per token
/// per process anyway.
public final class PKCS11Module: @unchecked Sendable {  // unchecked: `functions` is immutable; every call holds `lock`
    /// The p11-kit name (`softhsm2`, the .module file's name) or, when loaded by path, the path.
    public let name: String
    /// The shared library's path.
    public let path: String
    let functions: CK_FUNCTION_LIST
    private let owner: AnyObject
    let lock = Lock()

    private init(name: String, path: String, list: UnsafeMutablePointer<CK_FUNCTION_LIST>, owner: AnyObject) {
        self.name = name
        self.path = path
        functions = list.pointee  // the table is copied once; the pointers in it stay valid while `owner` lives
        self.owner = owner
    }

    /// Releases a module loaded by path.
    private final class LoadedByPath {
        let list: UnsafeMutablePointer<CK_FUNCTION_LIST>
        init(_ list: UnsafeMutablePointer<CK_FUNCTION_LIST>) { self.list = list }
        deinit {
            p11_kit_module_finalize(list)
            p11_kit_module_release(list)
        }
    }

    /// Releases the whole list `p11_kit_modules_load_and_initialize` returned, once.
    private final class RegisteredList {
        let modules: UnsafeMutablePointer<UnsafeMutablePointer<CK_FUNCTION_LIST>?>
        init(_ modules: UnsafeMutablePointer<UnsafeMutablePointer<CK_FUNCTION_LIST>?>) { self.modules = modules }
        deinit { p11_kit_modules_finalize_and_release(modules) }
    }

    /// Loads the module at `path` (absolute, or relative to p11-kit's module directory) and
    /// initialises it (p11-kit's managed mode: reference-counted `C_Initialize`).
    public static func load(path: String) throws -> PKCS11Module {
        if path.hasPrefix("/") && !FileManager.default.fileExists(atPath: path) {
            throw PKCS11Error.moduleNotFound(path: path)
        }
        guard let list = p11_kit_module_load(path, 0) else {
            throw PKCS11Error.moduleFailedToLoad(path: path, reason: lastMessage() ?? "p11_kit_module_load failed")
        }
        let rv = p11_kit_module_initialize(list)
        guard rv == CKR_OK else {
            p11_kit_module_release(list)
            throw PKCS11Error.moduleFailedToLoad(
                path: path, reason: lastMessage() ?? "C_Initialize returned 0x\(String(rv, radix: 16))")
        }
        let owner = LoadedByPath(list)
        if let missing = missingFunction(list.pointee) {
            throw PKCS11Error.moduleFailedToLoad(path: path, reason: "the module's function list has no \(missing)")
        }
        return PKCS11Module(name: path, path: path, list: list, owner: owner)
    }

    /// The first function tamga calls that the module's list leaves empty. Checked once at load,
    /// so that the calls through the list (`functions.C_Sign!`) cannot meet a null pointer.
    static func missingFunction(_ f: CK_FUNCTION_LIST) -> String? {
        let present: [(String, Bool)] = [
            ("C_GetInfo", f.C_GetInfo != nil), ("C_GetSlotList", f.C_GetSlotList != nil),
            ("C_GetSlotInfo", f.C_GetSlotInfo != nil),
            ("C_GetTokenInfo", f.C_GetTokenInfo != nil), ("C_GetMechanismList", f.C_GetMechanismList != nil),
            ("C_OpenSession", f.C_OpenSession != nil), ("C_CloseSession", f.C_CloseSession != nil),
            ("C_FindObjectsInit", f.C_FindObjectsInit != nil), ("C_FindObjects", f.C_FindObjects != nil),
            ("C_FindObjectsFinal", f.C_FindObjectsFinal != nil), ("C_GetAttributeValue", f.C_GetAttributeValue != nil),
            ("C_Login", f.C_Login != nil), ("C_Logout", f.C_Logout != nil), ("C_SignInit", f.C_SignInit != nil),
            ("C_Sign", f.C_Sign != nil),
            ("C_GenerateKey", f.C_GenerateKey != nil), ("C_EncryptInit", f.C_EncryptInit != nil),
            ("C_Encrypt", f.C_Encrypt != nil),
            ("C_DecryptInit", f.C_DecryptInit != nil), ("C_Decrypt", f.C_Decrypt != nil),
        ]
        return present.first { !$0.1 }?.0
    }

    /// Every module registered with p11-kit (its .module files), initialised; modules that
    /// fail to initialise are skipped by p11-kit (unless marked critical).
    public static func registered() throws -> [PKCS11Module] {
        guard let modules = p11_kit_modules_load_and_initialize(0) else {
            throw PKCS11Error.noRegisteredModules(reason: lastMessage() ?? "p11-kit could not load its module list")
        }
        let owner = RegisteredList(modules)
        var result: [PKCS11Module] = []
        var index = 0
        while let list = modules[index] {
            index += 1
            let name = takeString(p11_kit_module_get_name(list)) ?? "module \(index)"
            let path = takeString(p11_kit_module_get_filename(list)) ?? name
            // a broken module is skipped, like one that fails to initialise
            guard missingFunction(list.pointee) == nil else { continue }
            result.append(PKCS11Module(name: name, path: path, list: list, owner: owner))
        }
        return result
    }

    /// Makes p11-kit read its configuration from the given files and folders instead of the
    /// system's: for tests that want one test module as the only registered one. Process-wide;
    /// call before the first `registered()`. The strings are kept for the process's lifetime.
    public static func overrideSystemConfiguration(
        systemConfig: String, userConfig: String, packageModules: String,
        systemModules: String, userModules: String
    ) {
        p11_kit_override_system_files(
            strdup(systemConfig), strdup(userConfig), strdup(packageModules), strdup(systemModules), strdup(userModules)
        )
    }

    private static func lastMessage() -> String? {
        guard let message = p11_kit_message() else { return nil }
        let text = String(cString: message)
        return text.isEmpty ? nil : text
    }

    /// A malloc'd C string as a Swift string, freed.
    private static func takeString(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// Runs `body` with the module's lock held.
    func serialised<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Throws the `PKCS11Error` for a non-OK return value.
    static func check(_ rv: CK_RV, _ function: String) throws {
        if let error = PKCS11Error.from(UInt(rv), function: function) { throw error }
    }

    // MARK: Module, slots, tokens

    /// `C_GetInfo`: description, manufacturer, versions.
    public func info() throws -> ModuleInfo {
        try serialised {
            var info = CK_INFO()
            try Self.check(functions.C_GetInfo!(&info), "C_GetInfo")
            return ModuleInfo(
                description: paddedString(info.libraryDescription), manufacturer: paddedString(info.manufacturerID),
                cryptokiVersion: "\(info.cryptokiVersion.major).\(info.cryptokiVersion.minor)",
                libraryVersion: "\(info.libraryVersion.major).\(info.libraryVersion.minor)")
        }
    }

    /// Slots with a token present.
    public func slotsWithTokens() throws -> [Slot] {
        try serialised {
            var count: CK_ULONG = 0
            try Self.check(functions.C_GetSlotList!(CK_BBOOL(CK_TRUE), nil, &count), "C_GetSlotList")
            var ids = [CK_SLOT_ID](repeating: 0, count: Int(count))
            try Self.check(functions.C_GetSlotList!(CK_BBOOL(CK_TRUE), &ids, &count), "C_GetSlotList")
            return try ids.prefix(Int(count)).map { id in
                var info = CK_SLOT_INFO()
                try Self.check(functions.C_GetSlotInfo!(id, &info), "C_GetSlotInfo")
                return Slot(
                    id: UInt(id), description: paddedString(info.slotDescription),
                    manufacturer: paddedString(info.manufacturerID))
            }
        }
    }

    /// `C_GetTokenInfo` for the token in `slot`.
    public func tokenInfo(_ slot: Slot) throws -> TokenInfo {
        try serialised {
            var info = CK_TOKEN_INFO()
            try Self.check(functions.C_GetTokenInfo!(CK_SLOT_ID(slot.id), &info), "C_GetTokenInfo")
            return TokenInfo(
                label: paddedString(info.label), manufacturer: paddedString(info.manufacturerID),
                model: paddedString(info.model),
                serialNumber: paddedString(info.serialNumber), flags: UInt(info.flags),
                minimumPINLength: Int(info.ulMinPinLen), maximumPINLength: Int(info.ulMaxPinLen))
        }
    }

    /// The mechanisms the token in `slot` offers.
    public func mechanisms(_ slot: Slot) throws -> [Mechanism] {
        try serialised {
            var count: CK_ULONG = 0
            try Self.check(functions.C_GetMechanismList!(CK_SLOT_ID(slot.id), nil, &count), "C_GetMechanismList")
            var list = [CK_MECHANISM_TYPE](repeating: 0, count: Int(count))
            try Self.check(functions.C_GetMechanismList!(CK_SLOT_ID(slot.id), &list, &count), "C_GetMechanismList")
            return list.prefix(Int(count)).map { Mechanism(rawValue: UInt($0)) }
        }
    }

    /// Opens a session on the token in `slot` (read-only unless `readWrite`, which creating
    /// token objects needs).
    public func openSession(_ slot: Slot, readWrite: Bool = false) throws -> PKCS11Session {
        try serialised {
            var handle: CK_SESSION_HANDLE = 0
            let flags = CK_FLAGS(CKF_SERIAL_SESSION) | (readWrite ? CK_FLAGS(CKF_RW_SESSION) : 0)
            try Self.check(functions.C_OpenSession!(CK_SLOT_ID(slot.id), flags, nil, nil, &handle), "C_OpenSession")
            return PKCS11Session(module: self, handle: UInt(handle), slot: slot)
        }
    }
}

/// A blank-padded fixed-size PKCS#11 text field (a C tuple) as a trimmed string.
func paddedString<T>(_ field: T) -> String {
    withUnsafeBytes(of: field) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self).trimmedSpaces()
    }
}
