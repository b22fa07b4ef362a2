/// tamga's exit codes. Stable: scripts depend on them (documented in docs/cli.md).
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// Success; for `verify`, every signature is VALID (or WARNING).
    case success = 0
    /// `verify`: at least one signature is INVALID, or the container holds none.
    case verificationFailed = 1
    /// The command line is wrong (unknown option, missing argument).
    case usage = 2
    /// An input could not be read or was refused: missing file, malformed or hostile container.
    case inputRejected = 3
    /// Signing failed: key, password, certificate or signer problem. Nothing was written.
    case signingFailed = 4
    /// `verify`: nothing is invalid, but trust in a signer could not be established (UNKNOWN).
    case trustNotEstablished = 5
    /// Writing failed (permissions, disk full). The original file is intact.
    case writeFailed = 6
    /// A network service (TSA, OCSP, CA issuer download) failed or gave an unacceptable answer;
    /// nothing was written. The message names the service and the URL.
    case serviceFailed = 7
    /// `readers --wait`: the expected token did not appear in time.
    case waitTimedOut = 8
    /// A secret was refused: the card or token refused the PIN (wrong, the message says the
    /// tries left; blocked, not yet activated, or of the wrong length), or a key file's password
    /// is wrong. Nothing was signed or changed.
    case pinRejected = 9
    /// No usable card: no reader, no card, card removed during the operation, several cards and
    /// no way to ask which, or a card tamga does not sign with. Nothing was signed or changed.
    case cardUnavailable = 10
    /// A system library tamga loads when a command first needs it (OpenSSL, libxml2, SQLite,
    /// p11-kit, libpq, libmicrohttpd) cannot be loaded: a broken installation. The message names
    /// the Debian package to install; temporary files were removed, nothing was written.
    case libraryMissing = 11
    /// The user cancelled at a prompt.
    case cancelled = 130
}
