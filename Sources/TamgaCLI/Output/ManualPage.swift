import FoundationEssentials
import Glibc
import TamgaCore

/// `tamga help --man`: the manual page (troff, man(7) macros) made from the same texts as
/// `--help`, so the page and the built-in help never disagree. `make install` writes it to
/// `share/man/man1/tamga.1`.
enum ManualPage {
    /// Escapes text for troff: backslashes, a leading dot or quote that would read as a request,
    /// and every non-ASCII character as `\[uXXXX]`, so that plain `groff -man -Tutf8` (without
    /// preconv) renders it.
    static func escape(_ line: String) -> String {
        var text = ""
        for scalar in line.unicodeScalars {
            switch scalar {
            case "\\": text += "\\e"
            case "-": text += "\\-"  // a minus, as options are typed, not a typographic hyphen
            case _ where scalar.isASCII: text.unicodeScalars.append(scalar)
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                text += "\\[u\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex)]"
            }
        }
        if text.hasPrefix(".") || text.hasPrefix("'") { text = "\\&" + text }
        return text
    }

    /// Lines of no-fill text cut to 70 columns (man indents them by up to 10 more, and the page
    /// must fit 80): a long line breaks at a space, and its
    /// continuation is indented two more than the line itself (help texts are written for
    /// wide terminals; a manual page is read at 80 columns).
    static func fitted(_ text: String, width: Int = 70) -> [String] {
        var out: [String] = []
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            var line = raw
            let indent = String(repeating: " ", count: line.prefix(while: { $0 == " " }).count + 2)
            while line.count > width {
                let limit = line.index(line.startIndex, offsetBy: width)
                if let cut = line[..<limit].lastIndex(of: " "), line[..<cut].contains(where: { $0 != " " }) {
                    out.append(String(line[..<cut]))
                    line = indent + line[line.index(after: cut)...].drop(while: { $0 == " " })
                } else if let bar = line[..<limit].lastIndex(of: "|") {
                    // A long list of alternatives (a|b|c) with no space: break after a bar.
                    out.append(String(line[...bar]))
                    line = indent + line[line.index(after: bar)...]
                } else {
                    break
                }
            }
            out.append(line)
        }
        return out
    }

    /// The page's date: SOURCE_DATE_EPOCH when set (reproducible builds), else today.
    static func date(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let seconds = environment["SOURCE_DATE_EPOCH"].flatMap(TimeInterval.init) ?? Date().timeIntervalSince1970
        return String(XSDDateTime.format(Date(timeIntervalSince1970: seconds)).prefix(10))
    }

    static func render(commands: [any Command.Type], version: String, overview: String) -> String {
        var page = [
            ".TH TAMGA 1 \"\(date())\" \"tamga \(version)\" \"User Commands\"",
            ".SH NAME",
            "tamga \\- sign and verify ASiC-E containers with ID cards, PKCS#11 tokens and split keys",
            ".SH SYNOPSIS",
            ".B tamga",
            ".I COMMAND",
            "[\\fIOPTIONS\\fR]",
            ".SH DESCRIPTION",
            "tamga packs files into ASiC-E containers (ETSI EN 319 162-1) and signs them with XAdES",
            "signatures (LT by default: time-stamp and OCSP), with key files, national ID cards in PC/SC",
            "readers, keys on PKCS#11 tokens, or a 2-of-2 threshold key shared with a co-signer. It",
            "verifies containers from anyone, and compares signers side by side.",
            ".SH OVERVIEW",
            ".nf",
        ]
        page += fitted(overview).map(escape)
        page += [".fi", ".SH COMMANDS"]
        for command in commands {
            page += [".SS \"tamga \(command.path.joined(separator: " "))\"", escape(command.abstract), ".PP", ".nf"]
            page += fitted("tamga \(command.path.joined(separator: " ")) \(command.usage)").map(escape) + [""]
            page += fitted(command.help).map(escape)
            page += [".fi"]
        }
        page += [
            ".SH ENVIRONMENT",
            ".TP", ".B TAMGA_PIN",
            "PIN or password when no \\fB\\-\\-pin\\-file\\fR is given (else a prompt with echo off).",
            ".TP", ".B TAMGA_NEW_PIN", "the new PIN for PIN changes.",
            ".TP", ".B TAMGA_PIN1",
            "PIN1 (authentication) for \\fBthreshold enroll \\-\\-role both\\fR, beside PIN2 in \\fBTAMGA_PIN\\fR.",
            ".TP", ".B TAMGA_CA_PASSWORD",
            "the password of \\fBcosigner serve \\-\\-ca\\-key\\fR when it is encrypted.",
            ".TP", ".B TAMGA_COSIGNER_TOKEN_PIN",
            "the user PIN of the token holding the co-signer's server key (\\fB\\-\\-server\\-key pkcs11:LABEL\\fR).",
            ".TP", ".B TAMGA_TSA_URL", "the time-stamping authority when no \\fB\\-\\-tsa\\fR is given.",
            ".TP", ".B TAMGA_CARD_PIN, TAMGA_PKCS11_PIN, TAMGA_THRESHOLD_PIN, TAMGA_KEY_PASSWORD",
            "per-signer secrets for \\fBtamga compare\\fR.",
            ".TP", ".B XDG_DATA_HOME", "where split-key shares live (\\fItamga/threshold/ACCOUNT\\fR).",
            ".TP", ".B XDG_CACHE_HOME",
            "where \\fBtamga trust update\\fR keeps the trusted lists (\\fItamga/trust/\\fR; \\fI~/.cache\\fR when unset); \\fBtamga verify\\fR without \\fB\\-\\-trust\\fR/\\fB\\-\\-tsl\\fR trusts them.",
            ".TP", ".B XDG_CONFIG_HOME",
            "where the configuration lives (\\fItamga/config.json\\fR, \\fItamga/remote.json\\fR; \\fI~/.config\\fR when unset).",
            ".TP", ".B HOME", "the base of the XDG folders above when they are unset.",
            ".TP", ".B SOURCE_DATE_EPOCH", "the date this manual page carries (reproducible builds); today when unset.",
            ".TP", ".B http_proxy, https_proxy, all_proxy, no_proxy",
            "proxies for TSA, OCSP, trusted-list and co-signer calls (upper-case names too).",
            ".SH FILES",
            ".TP", ".I $XDG_DATA_HOME/tamga/threshold/ACCOUNT/",
            "a split key's device share (sealed under its PIN), its certificate, the device key \\fIdevice.key\\fR (0600) and the pinned co-signer.",
            ".TP", ".I $XDG_CONFIG_HOME/tamga/config.json",
            "what is set once: \\fBtsa\\fR (default TSA URL), \\fBtrust\\fR (\\fB\"cache\"\\fR or {\\fBanchors\\fR, \\fBintermediates\\fR}: PEM files), \\fBpkcs11Module\\fR, \\fBcosigner\\fR (URL), \\fBmobileID\\fR, \\fBsmartID\\fR. Options win; a malformed file is an error naming it and the key (docs/cli.md).",
            ".TP", ".I $XDG_CONFIG_HOME/tamga/remote.json",
            "Mobile-ID and Smart-ID service settings (\\fB\\-\\-remote\\-config\\fR overrides).",
            ".TP", ".I $XDG_CACHE_HOME/tamga/trust/",
            "the trusted lists of \\fBtamga trust update\\fR: the list of lists, each national list, their signers.",
            ".TP", ".I ./cosigner.db, ./cosigner.db.key",
            "the co-signer's SQLite database and its server key (\\fB\\-\\-db\\fR, \\fB\\-\\-key\\fR); the key seals every server share: back both up together.",
            ".TP", ".I .NAME.tamga\\-lock, .NAME.tamga\\-XXXXXX",
            "beside a container: the lock that serialises changes to it, and the file a change is written to before it is renamed into place.",
            ".SH EXAMPLES",
            ".nf",
        ]
        page += fitted(
            """
            tamga readers
            tamga container create contract.asice contract.pdf annex.pdf
            TAMGA_TSA_URL=http://tsa.example tamga sign contract.asice --with card
            tamga sign contract.asice --with pkcs11:MyToken --tsa http://tsa.example
            tamga trust update --territory EE,LV,LT
            tamga verify contract.asice
            tamga verify contract.asice --json
            tamga extend contract.asice --to LTA --tsa http://tsa.example
            tamga container timestamp old.asice old.asice.asics --tsa http://tsa.example
            tamga threshold enroll --server https://cosigner.example --code CODE --account me
            """
        ).map(escape)
        page += [
            ".fi",
            ".SH EXIT STATUS",
            ".nf",
        ]
        page += fitted(
            """
            0   success (verify: every signature VALID)
            1   verify: something INVALID or no signatures; compare: a signer failed
            2   usage error
            3   an input was refused (missing file, malformed or hostile container)
            4   signing failed; nothing was written
            5   verify: intact, but trust not established (or no trust configured); trust show: no cache
            6   writing failed; the original is intact
            7   a network service (TSA, OCSP, CA, co-signer) failed; trust update: a list failed or was kept
            8   readers --wait timed out
            9   the PIN was refused (tries left in the message)
            10  no usable card or token (no pcscd, no reader, no card)
            11  a system library cannot be loaded (the message names its package)
            130 cancelled
            """
        ).map(escape)
        page += [
            ".fi",
            ".SH SEE ALSO",
            "The project's docs/cli.md (JSON schemas), docs/cosigner-api.md, udev/README.md.",
            "",
        ]
        return page.joined(separator: "\n")
    }
}
