import FoundationEssentials
import Glibc
import TamgaCore

/// The names the co-signer gives sessions it opens itself, which no relying party may take.
///
/// A session's relying-party name is what the person reads before approving, and the key that
/// `GET /v3/rp/session/{id}` and the open-session limits look sessions up by. A relying party
/// registered as "this device" would read the signatures of every device's own sessions (and
/// its sessions would look like the person's own); one registered as "co-signer CA" would pass
/// its requests off as certificate requests. So these names, and anything a person could not
/// tell from them, are refused at registration.
public enum ReservedNames {
    /// A device's own sessions (`POST /v3/mobile/session`, `tamga sign --with threshold`).
    public static let thisDevice = "this device"
    /// The co-signer's certificate sessions (a device proving it holds its new key).
    public static let certificateAuthority = "co-signer CA"
    /// The names above, as `tamga cosigner add-rp` lists them.
    public static let all = [thisDevice, certificateAuthority]
    /// The rate limiter counts a device's own sessions under "device:<document number>"; a
    /// relying party named like that would share (and could exhaust) a person's allowance.
    static let ownSessionLimiterPrefix = "device:"

    /// The limiter key of a person's own sessions.
    static func ownSessionLimiterKey(document: String) -> String { ownSessionLimiterPrefix + document }

    /// The reserved name `name` reads as, or nil when it is free. Compared after Unicode
    /// compatibility normalisation (NFKC: full-width and other compatibility forms become
    /// plain letters), case, accent and width folding, with only letters and digits kept:
    /// "THIS DEVICE", "this-device", "Thís Device" and "co signer ca" are all taken.
    public static func reserved(_ name: String) -> String? {
        let key = skeleton(name)
        if let taken = all.first(where: { skeleton($0) == key }) { return taken }
        let folded = fold(name).unicodeScalars.filter { !$0.properties.isWhitespace }
        if String(String.UnicodeScalarView(folded)).hasPrefix(ownSessionLimiterPrefix) {
            return ownSessionLimiterPrefix + "…"
        }
        return nil
    }

    static func fold(_ name: String) -> String {
        UnicodeNormalization.folded(name)
    }

    /// Letters and digits of the folded name, nothing else (spaces, hyphens, dots and
    /// invisible format characters do not make a name different to a reader).
    static func skeleton(_ name: String) -> String {
        String(
            String.UnicodeScalarView(
                fold(name).unicodeScalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil }))
    }
}
