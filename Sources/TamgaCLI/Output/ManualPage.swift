import Foundation

/// `tamga help --man`: the manual page (troff, man(7) macros) made from the same texts as
/// `--help`, so the page and the built-in help never disagree. `make install` writes it to
/// `share/man/man1/tamga.1`.
enum ManualPage {
    /// Escapes text for troff: backslashes, and a leading dot or quote that would read as a request.
    static func escape(_ line: String) -> String {
        var text = line.replacingOccurrences(of: "\\", with: "\\e")
        if text.hasPrefix(".") || text.hasPrefix("'") { text = "\\&" + text }
        return text
    }

    static func render(commands: [any Command.Type], version: String, overview: String) -> String {
        var page = [
            ".TH TAMGA 1 \"\" \"tamga \(version)\" \"User Commands\"",
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
        page += overview.split(separator: "\n", omittingEmptySubsequences: false).map { escape(String($0)) }
        page += [".fi", ".SH COMMANDS"]
        for command in commands {
            page += [".SS \"tamga \(command.path.joined(separator: " "))\"", escape(command.abstract), ".PP", ".nf",
                     escape("tamga \(command.path.joined(separator: " ")) \(command.usage)"), "", ]
            page += command.help.split(separator: "\n", omittingEmptySubsequences: false).map { escape(String($0)) }
            page += [".fi"]
        }
        page += [
            ".SH ENVIRONMENT",
            ".TP", ".B TAMGA_PIN", "PIN or password when no \\fB\\-\\-pin\\-file\\fR is given (else a prompt with echo off).",
            ".TP", ".B TAMGA_NEW_PIN", "the new PIN for PIN changes.",
            ".TP", ".B TAMGA_TSA_URL", "the time-stamping authority when no \\fB\\-\\-tsa\\fR is given.",
            ".TP", ".B TAMGA_CARD_PIN, TAMGA_PKCS11_PIN, TAMGA_THRESHOLD_PIN, TAMGA_KEY_PASSWORD", "per-signer secrets for \\fBtamga compare\\fR.",
            ".TP", ".B XDG_DATA_HOME", "where split-key shares live (\\fItamga/threshold/ACCOUNT\\fR).",
            ".TP", ".B XDG_CACHE_HOME", "where \\fBtamga trust update\\fR keeps the trusted lists (\\fItamga/trust/\\fR; \\fI~/.cache\\fR when unset); \\fBtamga verify\\fR without \\fB\\-\\-trust\\fR/\\fB\\-\\-tsl\\fR trusts them.",
            ".TP", ".B http_proxy, https_proxy, no_proxy", "proxies for TSA, OCSP and co-signer calls.",
            ".SH EXIT STATUS",
            ".nf",
            "0   success (verify: every signature VALID)",
            "1   verify: something INVALID or no signatures; compare: a signer failed",
            "2   usage error",
            "3   an input was refused (missing file, malformed or hostile container)",
            "4   signing failed; nothing was written",
            "5   verify: intact, but trust not established (or no trust configured); trust show: no cache",
            "6   writing failed; the original is intact",
            "7   a network service (TSA, OCSP, CA, co-signer) failed; trust update: a list failed or was kept",
            "8   readers \\-\\-wait timed out",
            "9   the PIN was refused (tries left in the message)",
            "10  no usable card or token",
            "130 cancelled",
            ".fi",
            ".SH SEE ALSO",
            "The project's docs/cli.md (JSON schemas), docs/cosigner-api.md, udev/README.md.",
            "",
        ]
        return page.joined(separator: "\n")
    }
}
