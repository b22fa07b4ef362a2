import FoundationEssentials
import Glibc
import TamgaCore

/// The certificates tamga trusts by default for DDOC (DigiDoc XML 1.0–1.3) signatures: the roots, CAs and OCSP responder
/// certificates of AS Sertifitseerimiskeskus (SK) that DigiDoc4j's DDOC module trusts, 26 certificates.
///
/// Why a fixed set and not a trusted list: a DDOC signature is a time-mark signature (the OCSP response, its nonce bound to
/// the signature value, is the proof of time), and SiVa validates DDOC with DigiDoc4j's `ddoc4j` module, which reads no
/// trusted list. SiVa's validation policy names the trust anchors for DIGIDOC-XML 1.0…1.3 as "Estonian CA certificates issued
/// by SK, defined in local configuration file" and does not check their revocation (open-eid/SiVa
/// `docs/siva3/appendix/validation_policy.md`). Most of these certificates expired in 2012–2016; some were never on the
/// Estonian trusted list (the roots, EID-SK and its responders) and the rest may have left it, so trust derived from today's
/// lists would reject DDOCs that SiVa accepts. tamga uses the set for DDOC only, by default: never for ASiC-E, BDOC or
/// ASiC-S, whose trust comes from the EU trusted lists (`TrustCache`, `EULOTLSigners`).
///
/// Provenance: exactly the production entries of DigiDoc4j's DDOC configuration (`DIGIDOC_CAS` in open-eid/digidoc4j
/// `digidoc4j/src/main/resources/digidoc4j.yaml` @18f16cc7, TEST entries left out; libdigidoc's `digidoc.conf` lists the
/// same certificates but SK Proxy OCSP Responder 2009). Each was found byte-identical (same SHA-256 of the DER) in two or more of:
/// - DigiDoc4j's own copies, open-eid/digidoc4j `ddoc4j/src/main/resources/certs/*.crt` (17 of its files could be read; its
///   stored `EECCRCA.crt` is corrupt, five stray characters in the base64, and matches once they are removed);
/// - Debian bookworm `libdigidoc-common` 3.10.5-4, `/usr/share/libdigidoc/*.crt` (libdigidoc's `etc/certs`);
/// - PyPI `esteid-certificates` 1.0 and 1.0.1 (Thorgate; 1.0.5 keeps only EECCRCA and ESTEID-SK 2015 of these);
/// - the copy of the official Estonian TSL, sequence #28 of 2016-01-13, in esig/dss
///   `dss-tsl-validation/src/test/resources/tsls/0A191C3E18CAB7B783E690D3E4431C354A068FF0-2.xml` @f46fce4b (20 of the 26);
/// - PyPI `certifi` 2016.2.28 (Mozilla's roots, for Juur-SK), JDigiDoc's `VTSL-EE.xml` (Zerotech/jdigidoc @5d44939d) and
///   RIA-DigiDoc-Android's `MobileIdViewModel.kt` (EECCRCA, ESTEID-SK 2015).
/// EID-SK (2004) and its two responder certificates are the only ones found in SK's own sources alone (DigiDoc4j and
/// libdigidoc). Every certificate's signature verifies under its issuer in the set. Per-certificate sources, validity, SHA-1,
/// the pairing and what is uncertain: docs/ddoc-trust.md. Public data; the tests check the fingerprints against the PEMs and
/// that document.
///
/// Verification must happen at the time-mark's producedAt (all but EECCRCA and ESTEID-SK 2015 have expired), must accept
/// SHA-1 and 1024-bit RSA (every certificate before 2015; the 2002–2009 responders are 1024-bit), and must pin responders:
/// SK OCSP RESPONDER 2011 is issued by the root, not by the CAs it answers for, so it is no RFC 6960 delegated responder.
public enum DDOCTrustSet {
    public enum Role: String, Sendable, CaseIterable {
        case root, ca, ocspResponder
    }

    public struct Entry: Sendable {
        public let role: Role
        /// The subject commonName. Not an identity: two KLASS3-SK 2010 CA certificates and two certificates each of
        /// EID-SK OCSP RESPONDER and KLASS3-SK OCSP RESPONDER share their names.
        public let name: String
        /// SHA-256 of the DER, hex upper case: the certificate's identity everywhere in this type.
        public let sha256: String
        public let pem: String
    }

    /// Which OCSP responder certificates are accepted for certificates a CA issued, by fingerprint.
    public struct Pairing: Sendable {
        /// SHA-256 of the CA certificate.
        public let ca: String
        /// SHA-256 of the responder certificates.
        public let responders: [String]
    }

    /// Parsed once; an entry whose PEM failed to parse would be a build defect, caught by the tests (it is left out here).
    static let parsed: [(entry: Entry, certificate: Certificate)] = entries.compactMap { entry in
        (try? Certificate.parseAll(pem: Data(entry.pem.utf8)))?.first.map { (entry: entry, certificate: $0) }
    }

    /// Every certificate of the set, in the order of `entries`.
    public static let certificates: [Certificate] = parsed.map(\.certificate)
    public static let roots: [Certificate] = parsedCertificates(.root)
    public static let cas: [Certificate] = parsedCertificates(.ca)
    public static let responders: [Certificate] = parsedCertificates(.ocspResponder)

    /// SHA-256 fingerprints (hex, upper case) in the order of `entries`.
    public static let fingerprints: [String] = entries.map(\.sha256)

    /// The set's certificates by the fingerprint computed from their DER (not the one written in `entries`: a mismatch
    /// finds nothing rather than the wrong certificate).
    static let byFingerprint: [String: Certificate] = Dictionary(certificates.map { (fingerprint(of: $0), $0) }) {
        first, _ in first
    }

    /// The entry of a certificate of the set, matched by its DER; nil for any other certificate.
    public static func entry(for certificate: Certificate) -> Entry? {
        let key = fingerprint(of: certificate)
        return parsed.first { fingerprint(of: $0.certificate) == key }?.entry
    }

    /// The OCSP responder certificates accepted for a certificate issued by `ca`, matched by `ca`'s DER, never by its name.
    /// Empty for a certificate that is not one of the set's CAs. Both KLASS3-SK 2010 certificates (one CA, one key) give
    /// the same responders, so it does not matter which of them a chain was built with.
    public static func responders(forIssuer ca: Certificate) -> [Certificate] {
        let key = fingerprint(of: ca)
        return pairings.filter { $0.ca == key }.flatMap(\.responders).compactMap { byFingerprint[$0] }
    }

    /// The CAs for whose certificates `responder` is accepted (the inverse of `responders(forIssuer:)`).
    public static func cas(forResponder responder: Certificate) -> [Certificate] {
        let key = fingerprint(of: responder)
        return pairings.filter { $0.responders.contains(key) }.compactMap { byFingerprint[$0.ca] }
    }

    static func fingerprint(of certificate: Certificate) -> String {
        Hex.encode(certificate.sha256Fingerprint.bytes, uppercase: true)
    }

    private static func parsedCertificates(_ role: Role) -> [Certificate] {
        parsed.filter { $0.entry.role == role }.map(\.certificate)
    }

    /// Responders of the set that DigiDoc4j pins but whose time-marks it refuses: its default production list of responders
    /// allowed for time-marks (`ALLOWED_OCSP_RESPONDERS_FOR_TM`, `Constant.Production.DEFAULT_OCSP_RESPONDERS` in
    /// open-eid/digidoc4j `digidoc4j/src/main/java/org/digidoc4j/Constant.java` @045fabac) names the other 13 responders'
    /// CNs but not SK Proxy OCSP Responder 2009 ("OCSP Responder does not meet TM requirements"). Kept in the set because
    /// DigiDoc4j's DDOC configuration pins it and EE TSL #28 lists it as OCSP/QC; whether tamga refuses its time-marks too is
    /// the verifier's decision.
    public static let notOnDigiDoc4jTimeMarkList: [String] = [
        "8752E33239B3FE58D1A28270E49744409502F9AC23A89304C390789CFFECB8A8"  // SK Proxy OCSP Responder 2009
    ]

    /// The CA ↔ OCSP responder pairing of DigiDoc4j's `digidoc4j.yaml` (each OCSP entry's CERTS and its CA) together with
    /// libdigidoc's `digidoc.conf` (DIGIDOC_OCSP_RESPONDER_CERT_n and its _CA), production entries only, keyed by certificate.
    /// DigiDoc4j itself does not enforce it when it verifies a DDOC: it finds the responder certificate by the response's
    /// responder-ID CN among all pinned ones (`BouncyCastleNotaryFactory.parseAndVerifyResponse`). Binding a responder to
    /// its CAs is stricter, so where the two configurations differ this takes the union. Every CA has at least one responder
    /// and every responder at least one CA (the tests check both).
    public static let pairings: [Pairing] = [
        // Both configurations; ESTEID-SK 2007 OCSP RESPONDER through DigiDoc4j's entry with CA_CN "ESTEID-SK" (its CA_CERT
        // is ESTEID-SK 2007.crt).
        Pairing(
            ca: "0B7A9DB60D95B06A8F4CFC0A9C1D7D92EC8D45551C56B679587929C99B20C573",  // ESTEID-SK
            responders: [
                "EA3D5419152B3F8A928AF823EEBCCBD63A6881B0D838CB056FD9CD5CA4857DAB",  // ESTEID-SK OCSP RESPONDER
                "46C5546FE6AE3DF80701116A6806F1BF13ECFE78B5D9C4FBEB52E2A8412BA5E7",  // ESTEID-SK OCSP RESPONDER 2005
                "94958D5A11E2076E1D5ABF7C02D6114CBCD1B55A44B97D0B4F4EE7A4DD97801B",
            ]),  // ESTEID-SK 2007 OCSP RESPONDER
        // Both configurations; SK Proxy OCSP Responder 2009 in DigiDoc4j's only.
        Pairing(
            ca: "A832B7A79B0EE162A2DA047F838C83A07E032F856466AD082BDCB9DFC7590FFA",  // KLASS3-SK
            responders: [
                "6B96EAC95118CC855743F35DFB69BD6A72E43D33D177EEE100E63A5E2963E725",  // KLASS3-SK OCSP RESPONDER (2003)
                "CB167DE2F05B38931ABDF296911F6951239D0A3B2362597662F22570EC3E9B0B",  // KLASS3-SK OCSP RESPONDER (2006)
                "6C6657EEA06D4946B42A3387F2AECA02397D3884DE430AB12F3439A67D45FF71",  // KLASS3-SK OCSP RESPONDER 2009
                "8752E33239B3FE58D1A28270E49744409502F9AC23A89304C390789CFFECB8A8",
            ]),  // SK Proxy OCSP Responder 2009
        // Both configurations; EID-SK 2007 OCSP RESPONDER through DigiDoc4j's entry with CA_CN "EID-SK" (its CA_CERT is
        // EID-SK 2007.crt): the only configured responder for EID-SK from 2009-03-27, when EID-SK OCSP RESPONDER expired, to 2010-04-17.
        Pairing(
            ca: "23D5550CD5566234EBB97327C6A7F74D9863A1414DE1647E654A7B9B2AF0606E",  // EID-SK
            responders: [
                "F597E1C4908A110CFA51FFC37C8B09B3EA99AC8D2CB4491F63519EFD7E9134F2",  // EID-SK OCSP RESPONDER (2004)
                "000A5E26FD90A13CFBF1C6C11685756D006C0F21DFF2E68FA787F091B31ABFA7",  // EID-SK OCSP RESPONDER (2006)
                "788CA829DCBEF9AE4547D8897F3E91C89E564CA1DA022F912A123DEF66C7BFCA",
            ]),  // EID-SK 2007 OCSP RESPONDER
        // Both configurations.
        Pairing(
            ca: "B114C6A2F210F8B43976289CAFFD70F6484FBCC61F1893E5D12676F4C2E5805B",  // ESTEID-SK 2007
            responders: [
                "94958D5A11E2076E1D5ABF7C02D6114CBCD1B55A44B97D0B4F4EE7A4DD97801B",  // ESTEID-SK 2007 OCSP RESPONDER
                "09CD0B7E887EFE7CDEE489F56AF06369984A33A1AADED71B69FD0BDE3D268A94",
            ]),  // ESTEID-SK 2007 OCSP RESPONDER 2010
        // Both configurations.
        Pairing(
            ca: "5D05516D8D31D0866A679D9B5ACF9FCA566F581A0098317D45E404BEFF159703",  // EID-SK 2007
            responders: [
                "788CA829DCBEF9AE4547D8897F3E91C89E564CA1DA022F912A123DEF66C7BFCA",  // EID-SK 2007 OCSP RESPONDER
                "AC6CA5874F5F138FADE174401FA41D8DEF1B67D747E3299C83CCF4764C014C57",
            ]),  // EID-SK 2007 OCSP RESPONDER 2010
        // One CA with two certificates (same name, same key): both map to the same responders. KLASS3-SK 2010 OCSP RESPONDER in
        // both configurations; SK OCSP RESPONDER 2011 by DigiDoc4j's pairing of it with the root EECCRCA, read as the CAs under that
        // root (its own KLASS3-SK 2010 OCSP RESPONDER expired 2016-08-25, the EECCRCA-issued CA certificate on 2024-03-18).
        Pairing(
            ca: "DC624A7115DDC41B4A84066FFC0DBC38F71AA87D54FE62F0C82040D836F613BD",  // KLASS3-SK 2010 (by Juur-SK)
            responders: [
                "81D91B3BA712F33B837100521ED8DFF8FBEE3020B68538A3EE499FB55D1F62E9",  // KLASS3-SK 2010 OCSP RESPONDER
                "50D62F373742287B5F18319E513C7BCA89BD78788B23DA356124CB90F9A636AF",
            ]),  // SK OCSP RESPONDER 2011
        Pairing(
            ca: "17F302219FCFCE8FD18CAC172F8B0D4496BA5DA8E49F871ABC1F9D0CAAA360E5",  // KLASS3-SK 2010 (by EECCRCA)
            responders: [
                "81D91B3BA712F33B837100521ED8DFF8FBEE3020B68538A3EE499FB55D1F62E9",  // KLASS3-SK 2010 OCSP RESPONDER
                "50D62F373742287B5F18319E513C7BCA89BD78788B23DA356124CB90F9A636AF",
            ]),  // SK OCSP RESPONDER 2011
        // libdigidoc names these three CAs for SK OCSP RESPONDER 2011; DigiDoc4j names their root EECCRCA.
        Pairing(
            ca: "41EC808E33CCA8659EAEA81670D6C7DC01446636E1F227561B6307B80BA63862",  // ESTEID-SK 2011
            // SK OCSP RESPONDER 2011
            responders: ["50D62F373742287B5F18319E513C7BCA89BD78788B23DA356124CB90F9A636AF"]),
        Pairing(
            ca: "7B1666A7991CFC28B64DA371F17141DBD6F5321F21B83A1A658D6A410D374E05",  // EID-SK 2011
            // SK OCSP RESPONDER 2011
            responders: ["50D62F373742287B5F18319E513C7BCA89BD78788B23DA356124CB90F9A636AF"]),
        Pairing(
            ca: "74D992D3910BCF7E34B8B5CD28F91EAEB4F41F3DA6394D78B8C43672D43F4F0F",  // ESTEID-SK 2015
            // SK OCSP RESPONDER 2011
            responders: ["50D62F373742287B5F18319E513C7BCA89BD78788B23DA356124CB90F9A636AF"]),
    ]

    /// The certificates: roots, then CAs, then OCSP responders, each by notBefore. Validity is in UTC.
    public static let entries: [Entry] = [
        // Juur-SK, root, 2001-08-30…2016-08-26, SHA-256 ECC3E9C3407503BEE091AA952F41348FF88BAA863B2264BEFAC807901574E939
        Entry(
            role: .root, name: "Juur-SK",
            sha256: "ECC3E9C3407503BEE091AA952F41348FF88BAA863B2264BEFAC807901574E939",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIE5jCCA86gAwIBAgIEO45L/DANBgkqhkiG9w0BAQUFADBdMRgwFgYJKoZIhvcN
                AQkBFglwa2lAc2suZWUxCzAJBgNVBAYTAkVFMSIwIAYDVQQKExlBUyBTZXJ0aWZp
                dHNlZXJpbWlza2Vza3VzMRAwDgYDVQQDEwdKdXVyLVNLMB4XDTAxMDgzMDE0MjMw
                MVoXDTE2MDgyNjE0MjMwMVowXTEYMBYGCSqGSIb3DQEJARYJcGtpQHNrLmVlMQsw
                CQYDVQQGEwJFRTEiMCAGA1UEChMZQVMgU2VydGlmaXRzZWVyaW1pc2tlc2t1czEQ
                MA4GA1UEAxMHSnV1ci1TSzCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEB
                AIFxNj4zB9bjMI0TfncyRsvPGbJgMUaXhvSYRqTCZUXP00B841oiqBB4M8yIsdOB
                SvZiF3tfTQou0M+LI+5PAk676w7KvRhj6IAcjeEcjT3g/1tf6mTll+g/mX8MCgkz
                ABpTpyHhOEvWgxutr2TC+Rx6jGZITWYfGAriPrsfB2WThbkasLnE+w0R9vXW+RvH
                LCu3GFH+4Hv2qEivbDtPL+/40UceJlfwUR0zlv/vWT3aTdEVNMfqPxZIe5EcgEMP
                PbgFPtGzlc3Yyg/CQ2fbt5PgIoIuvvVoKIO5wTtpeyDaTpxt4brNj3pssAki14sL
                2xzVWiZbDcDq5WDQn/413z8CAwEAAaOCAawwggGoMA8GA1UdEwEB/wQFMAMBAf8w
                ggEWBgNVHSAEggENMIIBCTCCAQUGCisGAQQBzh8BAQEwgfYwgdAGCCsGAQUFBwIC
                MIHDHoHAAFMAZQBlACAAcwBlAHIAdABpAGYAaQBrAGEAYQB0ACAAbwBuACAAdgDk
                AGwAagBhAHMAdABhAHQAdQBkACAAQQBTAC0AaQBzACAAUwBlAHIAdABpAGYAaQB0
                AHMAZQBlAHIAaQBtAGkAcwBrAGUAcwBrAHUAcwAgAGEAbABhAG0ALQBTAEsAIABz
                AGUAcgB0AGkAZgBpAGsAYQBhAHQAaQBkAGUAIABrAGkAbgBuAGkAdABhAG0AaQBz
                AGUAawBzMCEGCCsGAQUFBwIBFhVodHRwOi8vd3d3LnNrLmVlL2Nwcy8wKwYDVR0f
                BCQwIjAgoB6gHIYaaHR0cDovL3d3dy5zay5lZS9qdXVyL2NybC8wHQYDVR0OBBYE
                FASqekej5ImvGs8KQKcYP2/v6X2+MB8GA1UdIwQYMBaAFASqekej5ImvGs8KQKcY
                P2/v6X2+MA4GA1UdDwEB/wQEAwIB5jANBgkqhkiG9w0BAQUFAAOCAQEAe8EYlFOi
                CfP+JmeaUOTDBS8rNXiRTHyoERF5TElZrMj3hWVcRrs7EKACr81Ptcw2Kuxd/u+g
                kcm2k298gFTsxwhwDY77guwqYHhpNjbRxZyLabVAyJRld/JXIWY7zoVAtjNjGr95
                HvxcHdMdkxuLDF2FvZkwMhgJkVLpfKG6/2SSmuz+Ne6ML678IIbsSt4beDI3poHS
                na9aEhbKmVv8b20OxaAehsmR0FyYgl9jDIpaq9iVpszLita/ZEuOyoqysOkhMp6q
                qIWYNIE5ITuoOlIyPfZrN4YGWhWY3PARZv40ILcD9EEQfTmEeZZyY7aWAuVrua0Z
                TbvGRNs2yyqcjg==
                -----END CERTIFICATE-----
                """),
        // EE Certification Centre Root CA, root, 2010-10-30…2030-12-17, SHA-256 3E84BA4342908516E77573C0992F0979CA084E4685681FF195CCBA8A229B8A76
        Entry(
            role: .root, name: "EE Certification Centre Root CA",
            sha256: "3E84BA4342908516E77573C0992F0979CA084E4685681FF195CCBA8A229B8A76",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIEAzCCAuugAwIBAgIQVID5oHPtPwBMyonY43HmSjANBgkqhkiG9w0BAQUFADB1
                MQswCQYDVQQGEwJFRTEiMCAGA1UECgwZQVMgU2VydGlmaXRzZWVyaW1pc2tlc2t1
                czEoMCYGA1UEAwwfRUUgQ2VydGlmaWNhdGlvbiBDZW50cmUgUm9vdCBDQTEYMBYG
                CSqGSIb3DQEJARYJcGtpQHNrLmVlMCIYDzIwMTAxMDMwMTAxMDMwWhgPMjAzMDEy
                MTcyMzU5NTlaMHUxCzAJBgNVBAYTAkVFMSIwIAYDVQQKDBlBUyBTZXJ0aWZpdHNl
                ZXJpbWlza2Vza3VzMSgwJgYDVQQDDB9FRSBDZXJ0aWZpY2F0aW9uIENlbnRyZSBS
                b290IENBMRgwFgYJKoZIhvcNAQkBFglwa2lAc2suZWUwggEiMA0GCSqGSIb3DQEB
                AQUAA4IBDwAwggEKAoIBAQDIIMDs4MVLqwd4lfNE7vsLDP90jmG7sWLqI9iroWUy
                euuOF0+W2Ap7kaJjbMeMTC55v6kF/GlclY1i+blw7cNRfdCT5mzrMEvhvH2/UpvO
                bntl8jixwKIy72KyaOBhU8E2lf/slLo2rpwcpzIP5Xy0xm90/XsY6KxX7QYgSzIw
                WFv9zajmofxwvI6Sc9uXp3whrj3B9UiHbCe9nyV0gVWw93X2PaRka9ZP585ArQ/d
                MtO8ihJTmMmJ+xAdTX7Nfh9WDSFwhfYggx/2uh8Ej+p3iDXE/+pOoYtNP2MbRMNE
                1CV2yreN1x5KZmTNXMWcg+HCCIia7E6j8T4cLNlsHaFLAgMBAAGjgYowgYcwDwYD
                VR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAQYwHQYDVR0OBBYEFBLyWj7qVhy/
                zQas8fElyalL1BSZMEUGA1UdJQQ+MDwGCCsGAQUFBwMCBggrBgEFBQcDAQYIKwYB
                BQUHAwMGCCsGAQUFBwMEBggrBgEFBQcDCAYIKwYBBQUHAwkwDQYJKoZIhvcNAQEF
                BQADggEBAHv25MANqhlHt01Xo/6tu7Fq1Q+e2+RjxY6hUFaTlrg4wCQiZrxTFGGV
                v9DHKpY5P30osxBAIWrEr7BSdxjhlthWXePdNl4dp1BUoMUq5KqMlIpPnTX/dqQG
                E5Gion0ARD9V04I8GtVbvFZMIi5GQ4okQC3zErg7cBqklrkar4dBGmoYDQZPxz5u
                uSlNDUmJEYcyW+ZLBMjkXOZ0c5RdFpgTlf7727FE5TpwrDdr5rMzcijJs1eg9gIW
                iAYLtqZLICjU3j2LrTcFU3T+bsy8QxdxXvnFzBqpYe73dgzzcvRyrc9yAjYHR8/v
                GVCJYMzpJJUPwssd8m92kMfMdcGWxZ0=
                -----END CERTIFICATE-----
                """),
        // ESTEID-SK, CA, 2002-01-15…2012-01-13, SHA-256 0B7A9DB60D95B06A8F4CFC0A9C1D7D92EC8D45551C56B679587929C99B20C573
        Entry(
            role: .ca, name: "ESTEID-SK",
            sha256: "0B7A9DB60D95B06A8F4CFC0A9C1D7D92EC8D45551C56B679587929C99B20C573",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIFAjCCA+qgAwIBAgIEPERcgjANBgkqhkiG9w0BAQUFADBdMRgwFgYJKoZIhvcN
                AQkBFglwa2lAc2suZWUxCzAJBgNVBAYTAkVFMSIwIAYDVQQKExlBUyBTZXJ0aWZp
                dHNlZXJpbWlza2Vza3VzMRAwDgYDVQQDEwdKdXVyLVNLMB4XDTAyMDExNTE2NDQ1
                MFoXDTEyMDExMzE2NDQ1MFowfDEYMBYGCSqGSIb3DQEJARYJcGtpQHNrLmVlMQsw
                CQYDVQQGEwJFRTEiMCAGA1UEChMZQVMgU2VydGlmaXRzZWVyaW1pc2tlc2t1czEP
                MA0GA1UECxMGRVNURUlEMQowCAYDVQQEEwExMRIwEAYDVQQDEwlFU1RFSUQtU0sw
                ggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQCLeZO5NVo3zbwA8eFVCrrb
                eZQKvPDB7LUDPvzCqw7U2sC+IwEOdjjpJRF4lxFs+f8yC1bP+rqtWzrKhhJ2owfS
                AlIZMbly/OFjfLqOcyyi7qdfA/66u+69u/DY9tW5fqW93D73v5WNcNoIemCTydh9
                IFkQvMihWKH7LblBzCHa4W6qUcBZ7QsBgYpQS9n9fGJt5D2wCDeq0pF1Zy72G3CQ
                FrpuR/aPG28tv9r+C7oqncapbiJ7xIOa77Fm3o07M/9aarq/m1oHEp9CxYiH9nmD
                3kyMe8yxw5v02MTMmAcxOm83z5O4oXSDTALG5gDfZNPjJaNPno7J8FuGrI3vV8z3
                AgMBAAGjggGpMIIBpTAMBgNVHRMEBTADAQH/MA4GA1UdDwEB/wQEAwIB5jCCARYG
                A1UdIASCAQ0wggEJMIIBBQYKKwYBBAHOHwEBATCB9jCB0AYIKwYBBQUHAgIwgcMe
                gcAAUwBlAGUAIABzAGUAcgB0AGkAZgBpAGsAYQBhAHQAIABvAG4AIAB2AOQAbABq
                AGEAcwB0AGEAdAB1AGQAIABBAFMALQBpAHMAIABTAGUAcgB0AGkAZgBpAHQAcwBl
                AGUAcgBpAG0AaQBzAGsAZQBzAGsAdQBzACAAYQBsAGEAbQAtAFMASwAgAHMAZQBy
                AHQAaQBmAGkAawBhAGEAdABpAGQAZQAgAGsAaQBuAG4AaQB0AGEAbQBpAHMAZQBr
                AHMwIQYIKwYBBQUHAgEWFWh0dHA6Ly93d3cuc2suZWUvY3BzLzArBgNVHR8EJDAi
                MCCgHqAchhpodHRwOi8vd3d3LnNrLmVlL2p1dXIvY3JsLzAfBgNVHSMEGDAWgBQE
                qnpHo+SJrxrPCkCnGD9v7+l9vjAdBgNVHQ4EFgQUeBe1BfmzWM1ZjN5nXkQGTHWG
                aV0wDQYJKoZIhvcNAQEFBQADggEBAFIsMHaq4Ffkrxmzw38rHYh5Ia5JGxjtWfPp
                ag9pBtQNZHzY8j97xfPI15haE9Ah3u1WC+bsU2SndVSUGaZ0gKafMxDOy2DUw3B8
                4ymbNRiAFSWty+aKrMCjtdlPktbSQmxNSJAX9vVtM4Y2ory+dtAQ7g11GKHJ+l8B
                DUpOJA+l8hvS2l4K5whWDHCSqlplMiHPIKgBVArFRNzAq6dquMY+kS3e2PL+PM4G
                dDW5lRHR/6KUy0BHP2gX/BO4mYQ3BH2BHImUclNras0HISnV/pt6hIkgd1PsFt3r
                tEolAWP4DWBmc4zAYQJ5t0cEwFM329zCXSGIQIm3a1cMugF5Q/k=
                -----END CERTIFICATE-----
                """),
        // KLASS3-SK, CA, 2002-05-08…2012-05-05, SHA-256 A832B7A79B0EE162A2DA047F838C83A07E032F856466AD082BDCB9DFC7590FFA
        Entry(
            role: .ca, name: "KLASS3-SK",
            sha256: "A832B7A79B0EE162A2DA047F838C83A07E032F856466AD082BDCB9DFC7590FFA",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIEBDCCAuygAwIBAgIEPNkU9TANBgkqhkiG9w0BAQUFADBdMRgwFgYJKoZIhvcN
                AQkBFglwa2lAc2suZWUxCzAJBgNVBAYTAkVFMSIwIAYDVQQKExlBUyBTZXJ0aWZp
                dHNlZXJpbWlza2Vza3VzMRAwDgYDVQQDEwdKdXVyLVNLMB4XDTAyMDUwODEyMDcx
                N1oXDTEyMDUwNTExMDcxN1owgY4xGDAWBgkqhkiG9w0BCQEWCXBraUBzay5lZTEL
                MAkGA1UEBhMCRUUxIjAgBgNVBAoTGUFTIFNlcnRpZml0c2VlcmltaXNrZXNrdXMx
                ITAfBgNVBAsTGFNlcnRpZml0c2VlcmltaXN0ZWVudXNlZDEKMAgGA1UEBRMBMTES
                MBAGA1UEAxMJS0xBU1MzLVNLMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKC
                AQEAvIIeK3GJxoPCXVwan+HjJwYGaH3nb/rTPEqg5v9e1c7dnTDBdD2Yteg+lUdH
                BZDHLj1Tz+J/W9Foc0dzEr96S8+6nMXoonK2x0854JNH2UVbS/+YOGUM6iWSxkHw
                525tvn5tFaIQoaeh46aQFp9Dngcnv4Gatd0/7NCkLggjFrKmnNTPINpLAG9VoCpV
                yIMvcVCyTNvSQ+n33ToPO5vtULNYOtCF9MDVND+uNRE2o0tWIG0l84owYPA47tJO
                LgCpAxLNFR5Ys0nB/ofBYcO+YiCri0yc6t7ZPs/vcfbR6czIwW0GMjyHmVPLB+/W
                HS3P1sk29DdgIC42RTMthJS6ZQIDAQABo4GZMIGWMA8GA1UdEwQIMAYBAf8CAQAw
                DgYDVR0PAQH/BAQDAgHmMDMGA1UdHwQsMCowKKAmoCSGImh0dHA6Ly93d3cuc2su
                ZWUvY3Jscy9qdXVyL2NybC5jcmwwHwYDVR0jBBgwFoAUBKp6R6Pkia8azwpApxg/
                b+/pfb4wHQYDVR0OBBYEFOU/DJ1xPW+8Gb+a9G6/Cf5A652WMA0GCSqGSIb3DQEB
                BQUAA4IBAQASvWB+YrgN23EMLW7C5/XUwQLNN1RMDhr6UzOo5XHZ3pxUXq2Erk5g
                giS+UJIxkQaSg4OHRru8KTchoJDvS2neeYHOz05zJcAIwoy2GGkHq1iVN+QZaprD
                aDNYR5GGKgJb3FZrMtyX4dNwnrZzMFzd6t5YibCW+BDPAmqGJvNHzJ5YYdA7I3WT
                9Baan1ncKd4FtUVb54fppd19NkbCKKSUd7qRYDduNYqVs1C/C0qqLq4TrxoxoxSo
                +WNLiD01896sIRiPIy8qDOAXJU67382J5XXETe9wZO6o7+NaG0CrpzVY1OaaD2O6
                Wv/vSpxE2ugqaf0WsP35+coFCWdM2uHZ
                -----END CERTIFICATE-----
                """),
        // EID-SK, CA, 2004-05-10…2014-05-08, SHA-256 23D5550CD5566234EBB97327C6A7F74D9863A1414DE1647E654A7B9B2AF0606E
        Entry(
            role: .ca, name: "EID-SK",
            sha256: "23D5550CD5566234EBB97327C6A7F74D9863A1414DE1647E654A7B9B2AF0606E",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIEBDCCAuygAwIBAgIEQJ9YpTANBgkqhkiG9w0BAQUFADBdMRgwFgYJKoZIhvcN
                AQkBFglwa2lAc2suZWUxCzAJBgNVBAYTAkVFMSIwIAYDVQQKExlBUyBTZXJ0aWZp
                dHNlZXJpbWlza2Vza3VzMRAwDgYDVQQDEwdKdXVyLVNLMB4XDTA0MDUxMDEwMjU0
                MVoXDTE0MDUwODA5MjU0MVowgYsxGDAWBgkqhkiG9w0BCQEWCXBraUBzay5lZTEL
                MAkGA1UEBhMCRUUxIjAgBgNVBAoTGUFTIFNlcnRpZml0c2VlcmltaXNrZXNrdXMx
                ITAfBgNVBAsTGFNlcnRpZml0c2VlcmltaXN0ZWVudXNlZDEKMAgGA1UEBRMBMTEP
                MA0GA1UEAxMGRUlELVNLMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA
                uj80U//DJVfCY5H+vW9xxzBV5tef7no+ehDez9TXtso0HtI1y2400CTHPZckOxdj
                LgOa0TSKcEboGYATujSpVXfR2w4NOK91cmRTPcmBlk3S/FrZvTbwTkYEMAUG3ED0
                Ofv7uq8rn4UnKiQxzeClJV2gectPu19FdM9pCqJV3DGn95BOng2tcwba0fISDPUh
                vUYnuF4f9ZxblFHJTd82dFh9Qc/EkQ+czl8l72wyMOfWJwO50IbyRJJ5hIglFZ6q
                BWFT4s53W6ubT2RfOOhqoBdywNk3W5u1sUXCnkIr4MVjwWSeUvv0caanXhYskKTx
                tOYXFe0Rq/IsGrxUasRB5QIDAQABo4GcMIGZMBIGA1UdEwEB/wQIMAYBAf8CAQAw
                DgYDVR0PAQH/BAQDAgHmMDMGA1UdHwQsMCowKKAmoCSGImh0dHA6Ly93d3cuc2su
                ZWUvY3Jscy9qdXVyL2NybC5jcmwwHwYDVR0jBBgwFoAUBKp6R6Pkia8azwpApxg/
                b+/pfb4wHQYDVR0OBBYEFLS8J3CeB8vFZMMyGWzcH3opLjelMA0GCSqGSIb3DQEB
                BQUAA4IBAQBXF6vhu1kgHOBzET0WK5JjgNHbB7vX0JR2r8SGoNnkmWsnqlNtZxCU
                5YdB/HK/TmNmQykmf1qSI0gmarvCZ0aZfNNDERT5I67o15zlsoI207XvYIJ1oHPb
                Ia5VVKUnzb7nP3xcWx7HhDGb5A2qVvrMoxsWv+CcvoTKx1nvCCsOXiiSCZYVqQK5
                lw/NptHqwRh/e4ywE5ReQrUmD2MzfEB4s4aBHfOWSH4+ucJVFRvsIJqAFXwueq9E
                LgJYEnaqVtmmCl3Gfaff0Pi6eTAfZDrJ9v7lKRYOLtImDpiJUMygTtnX0YFa/zaW
                oMNrPAZ4RYS3FOq+6+XfoXx+IDLl+oew
                -----END CERTIFICATE-----
                """),
        // ESTEID-SK 2007, CA, 2007-01-03…2016-08-26, SHA-256 B114C6A2F210F8B43976289CAFFD70F6484FBCC61F1893E5D12676F4C2E5805B
        Entry(
            role: .ca, name: "ESTEID-SK 2007",
            sha256: "B114C6A2F210F8B43976289CAFFD70F6484FBCC61F1893E5D12676F4C2E5805B",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIID0zCCArugAwIBAgIERZugDTANBgkqhkiG9w0BAQUFADBdMRgwFgYJKoZIhvcN
                AQkBFglwa2lAc2suZWUxCzAJBgNVBAYTAkVFMSIwIAYDVQQKExlBUyBTZXJ0aWZp
                dHNlZXJpbWlza2Vza3VzMRAwDgYDVQQDEwdKdXVyLVNLMB4XDTA3MDEwMzEyMjIz
                N1oXDTE2MDgyNjE0MjMwMVowWzELMAkGA1UEBhMCRUUxIjAgBgNVBAoTGUFTIFNl
                cnRpZml0c2VlcmltaXNrZXNrdXMxDzANBgNVBAsTBkVTVEVJRDEXMBUGA1UEAxMO
                RVNURUlELVNLIDIwMDcwggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQDt
                Wp2jLCsA7K9AxoPDOL0geM1GoR0Q6wSUICCJYyFkUMboEMxpSzFB6tlb0ySlHEU6
                Fs+tjA4QrSqwaw0uNk4BXv1lkoOr6DUc+20+AQd5jB6A0atrltZ1XG5IvDEep3DJ
                Pykkk2MPxUz7dZx7XUEr/kdUWI9cDIkFWic7y9oTBY9JaV6lxm08kweZ/qTw5PU8
                /bTvZCE0ygvBXU4TDS2FpUJ/+jTzM2ocWa3QjFQv2Sir6LBvgNY3du/m+WLABq0d
                gN18R4nhFtmaVepqAeUuEi8eRBl6yLTSmMwYCY46LsK5CdjTCZSZv934FtNuyY6P
                h9nCXJAgNAY+GfNJfdMXAgMBAAGjgZwwgZkwEgYDVR0TAQH/BAgwBgEB/wIBADAO
                BgNVHQ8BAf8EBAMCAf4wMwYDVR0fBCwwKjAooCagJIYiaHR0cDovL3d3dy5zay5l
                ZS9jcmxzL2p1dXIvY3JsLmNybDAfBgNVHSMEGDAWgBQEqnpHo+SJrxrPCkCnGD9v
                7+l9vjAdBgNVHQ4EFgQUSAbevoyHV5WAeGP6nCMrK6A6GHUwDQYJKoZIhvcNAQEF
                BQADggEBACO6SJrjN5WZuiLSMy/tSmT/w3dd/KPErSAdUIJYkC7hOIauW7jZ3VNg
                NUMHSIkUoP8AviEMjGA4lkT61YScpJAdmgl8Y80HFdZV5CsThhddoIdZ3cZjSI4N
                ZmTVkSduTjoySALxKL3ZEIPrepQDvNEeV1WSpI5+u/vMekUWJSPc8BK9O2av1e9R
                esKyPJidqrIksHFjNS+Yt8Ouw7F10MHaPPzMiwoa0DYTVsIKJncPTQmvdJG8M0DD
                ToiiNPQuUy5d1CA75Wtjs+yILGZXpOfbdoQhE7G4pbZaF1s69jKp+zc0ZT4g2OoK
                fI2TiIX9qeGJMxkOENcd1DDqYVfePmo=
                -----END CERTIFICATE-----
                """),
        // EID-SK 2007, CA, 2007-01-05…2016-08-26, SHA-256 5D05516D8D31D0866A679D9B5ACF9FCA566F581A0098317D45E404BEFF159703
        Entry(
            role: .ca, name: "EID-SK 2007",
            sha256: "5D05516D8D31D0866A679D9B5ACF9FCA566F581A0098317D45E404BEFF159703",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIID4jCCAsqgAwIBAgIERZ4nqjANBgkqhkiG9w0BAQUFADBdMRgwFgYJKoZIhvcN
                AQkBFglwa2lAc2suZWUxCzAJBgNVBAYTAkVFMSIwIAYDVQQKExlBUyBTZXJ0aWZp
                dHNlZXJpbWlza2Vza3VzMRAwDgYDVQQDEwdKdXVyLVNLMB4XDTA3MDEwNTEwMjU0
                NloXDTE2MDgyNjE0MjMwMVowajELMAkGA1UEBhMCRUUxIjAgBgNVBAoTGUFTIFNl
                cnRpZml0c2VlcmltaXNrZXNrdXMxITAfBgNVBAsTGFNlcnRpZml0c2VlcmltaXN0
                ZWVudXNlZDEUMBIGA1UEAxMLRUlELVNLIDIwMDcwggEiMA0GCSqGSIb3DQEBAQUA
                A4IBDwAwggEKAoIBAQDifhEdyvuhk/3TJEGMJ1tEZOskE81yMqPGGXaPHXACJ7fn
                cn1D1uQFt+RG8/ckh7zDquHV1m4HQk7dchaP00rvgsvRlYC9GPcFt6TW8w3t+Bkx
                Y1RNbmONgH3qzikljk7m6Nb8UGtL9hOmZdw5k5t9Ht8fgHTnoBkFrxYgsv9d4CCk
                BTSprNUK+vy/NTak4iAYinWtK6tRHHb1fxRsLUXiDLSO42Kz+rehhslANX+9Y5/h
                0wlh3pcmxLB1JWAP0O9fV6N1LUQ3Ym7wMp/lBXuPvl52yJuSZDWUF7GkIp+vUifO
                SefF6CeGh8K9BXDvuOqg+5c/6gkfEQxpRgdu+q5FAgMBAAGjgZwwgZkwEgYDVR0T
                AQH/BAgwBgEB/wIBADAOBgNVHQ8BAf8EBAMCAf4wMwYDVR0fBCwwKjAooCagJIYi
                aHR0cDovL3d3dy5zay5lZS9jcmxzL2p1dXIvY3JsLmNybDAfBgNVHSMEGDAWgBQE
                qnpHo+SJrxrPCkCnGD9v7+l9vjAdBgNVHQ4EFgQUHAf0nL+kJWyztJ4iHx+USBtY
                eo0wDQYJKoZIhvcNAQEFBQADggEBABaiEXv415Oh7AgHODwKRyNFqPcSSOgpLCy1
                XJB3hl3fi21fslccWuBhfzqHQCiQi0fewh109IJiHq8n1PeKoHBCUVq6NFpxkVsU
                lUPBr0Qsya1O3SQjuOsBLzUWBvY25dtBuAkBMCo0V1Erf7iTeOzuL4LLbCoeOfeQ
                T3HPmEfSqP5f8V10ST8erbiTVPJwzr66vXaT9YKxy8NyAQc2iaOHuYmGKxs8dgDQ
                RkG6b2a/f5q21YEQKDhvz7VvM6tH+F+rohA2wAvVz4tcPtyw5WEYcavr1KHgz4eZ
                VWsqh2OsHUK9qMas5m/44O1/hXrjpMy5IQsiB4ASXDuXvdOTVbU=
                -----END CERTIFICATE-----
                """),
        // KLASS3-SK 2010 (by Juur-SK), CA, 2010-03-31…2016-08-26, SHA-256 DC624A7115DDC41B4A84066FFC0DBC38F71AA87D54FE62F0C82040D836F613BD
        Entry(
            role: .ca, name: "KLASS3-SK 2010",
            sha256: "DC624A7115DDC41B4A84066FFC0DBC38F71AA87D54FE62F0C82040D836F613BD",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIID5TCCAs2gAwIBAgIES7MTKDANBgkqhkiG9w0BAQUFADBdMRgwFgYJKoZIhvcN
                AQkBFglwa2lAc2suZWUxCzAJBgNVBAYTAkVFMSIwIAYDVQQKExlBUyBTZXJ0aWZp
                dHNlZXJpbWlza2Vza3VzMRAwDgYDVQQDEwdKdXVyLVNLMB4XDTEwMDMzMTA5MTcy
                OFoXDTE2MDgyNjE0MjMwMVowbTELMAkGA1UEBhMCRUUxIjAgBgNVBAoTGUFTIFNl
                cnRpZml0c2VlcmltaXNrZXNrdXMxITAfBgNVBAsTGFNlcnRpZml0c2VlcmltaXN0
                ZWVudXNlZDEXMBUGA1UEAxMOS0xBU1MzLVNLIDIwMTAwggEiMA0GCSqGSIb3DQEB
                AQUAA4IBDwAwggEKAoIBAQCrlaYRX2v89k8Hd0ADaOfnUcIn7iM6aOXkAR+jp582
                7ZhDqDyNddF9ZUoBgPghGNIrkHbH7qwex39YnI0ka24lCjcwEMvQMPbyPnX/a4Ry
                J+wEZttmjBl++FfrZK54L+vD7Dyy4YYB0Og9ktB4qptsDBj+giiv/MGPeGeNs3Ta
                cJdNb7+3splTPtPKlDfrufvq4H6jNOv9S9bC+j2VVY9uCFXUro8AA3hoOEKJdSjl
                pYCa51N8KGLVJYRuc/K81xqi054Jz+Cy/HY/AcXkk2JkxlpJoEXmcuTkxjO/QE/X
                bd+mRJHnq6+HurOiKcxKwZCPAa+d+dvRPkbyq9ohMXH9AgMBAAGjgZwwgZkwEgYD
                VR0TAQH/BAgwBgEB/wIBADAOBgNVHQ8BAf8EBAMCAcYwMwYDVR0fBCwwKjAooCag
                JIYiaHR0cDovL3d3dy5zay5lZS9jcmxzL2p1dXIvY3JsLmNybDAfBgNVHSMEGDAW
                gBQEqnpHo+SJrxrPCkCnGD9v7+l9vjAdBgNVHQ4EFgQUXXUUEYz0pY5Cj3uyQESj
                7tZ6O3IwDQYJKoZIhvcNAQEFBQADggEBADFuAGtSoO8PsWRw/QxFzc5EZtbq2KXC
                9yZ8YQPWBLY4Mh3OVLFJqWyKC+8JHy9D5tJTG49F5UHyDJPufD/XvC2rjRlkqvS/
                W7sy3MqGh7e+6bg+aD4mo+98Oalnqi12UD+ki+N8JKPXjHNJ31AvH6E/xDsCsvtz
                ubylxI+FU8R0XODIUFbBqRtatRI1/zVaKRhD6LNGPt3rz/3IJKmuEv6b29mzL+p4
                oNULqpPr6aTmheZme8ZHuEIh3Zp5kdoX3i2D4hsmgClpevZifo196zeKRLk0Qs6n
                mRjoMxyk6jYIric3/VnV81oyhXSBY1GZnbM4qP1w2S5kSA2bb1pkwFo=
                -----END CERTIFICATE-----
                """),
        // KLASS3-SK 2010 (by EECCRCA), CA, 2011-03-18…2024-03-18, SHA-256 17F302219FCFCE8FD18CAC172F8B0D4496BA5DA8E49F871ABC1F9D0CAAA360E5
        Entry(
            role: .ca, name: "KLASS3-SK 2010",
            sha256: "17F302219FCFCE8FD18CAC172F8B0D4496BA5DA8E49F871ABC1F9D0CAAA360E5",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIErDCCA5SgAwIBAgIQAznVp1LayatNgy6bN8f9QjANBgkqhkiG9w0BAQUFADB1
                MQswCQYDVQQGEwJFRTEiMCAGA1UECgwZQVMgU2VydGlmaXRzZWVyaW1pc2tlc2t1
                czEoMCYGA1UEAwwfRUUgQ2VydGlmaWNhdGlvbiBDZW50cmUgUm9vdCBDQTEYMBYG
                CSqGSIb3DQEJARYJcGtpQHNrLmVlMB4XDTExMDMxODEwMDYxOFoXDTI0MDMxODEw
                MDYxOFowbTELMAkGA1UEBhMCRUUxIjAgBgNVBAoTGUFTIFNlcnRpZml0c2Vlcmlt
                aXNrZXNrdXMxITAfBgNVBAsTGFNlcnRpZml0c2VlcmltaXN0ZWVudXNlZDEXMBUG
                A1UEAxMOS0xBU1MzLVNLIDIwMTAwggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEK
                AoIBAQCrlaYRX2v89k8Hd0ADaOfnUcIn7iM6aOXkAR+jp5827ZhDqDyNddF9ZUoB
                gPghGNIrkHbH7qwex39YnI0ka24lCjcwEMvQMPbyPnX/a4RyJ+wEZttmjBl++Ffr
                ZK54L+vD7Dyy4YYB0Og9ktB4qptsDBj+giiv/MGPeGeNs3TacJdNb7+3splTPtPK
                lDfrufvq4H6jNOv9S9bC+j2VVY9uCFXUro8AA3hoOEKJdSjlpYCa51N8KGLVJYRu
                c/K81xqi054Jz+Cy/HY/AcXkk2JkxlpJoEXmcuTkxjO/QE/Xbd+mRJHnq6+HurOi
                KcxKwZCPAa+d+dvRPkbyq9ohMXH9AgMBAAGjggE+MIIBOjASBgNVHRMBAf8ECDAG
                AQH/AgEAMA4GA1UdDwEB/wQEAwIBxjCBlAYDVR0gBIGMMIGJMIGGBgsrBgEEAc4f
                ZAEBATB3MCEGCCsGAQUFBwIBFhVodHRwczovL3d3dy5zay5lZS9jcHMwUgYIKwYB
                BQUHAgIwRh5EAEEAcwB1AHQAdQBzAGUAIABzAGUAcgB0AGkAZgBpAGsAYQBhAHQA
                LgAgAEMAbwByAHAAbwByAGEAdABlACAASQBEAC4wHQYDVR0OBBYEFF11FBGM9KWO
                Qo97skBEo+7WejtyMB8GA1UdIwQYMBaAFBLyWj7qVhy/zQas8fElyalL1BSZMD0G
                A1UdHwQ2MDQwMqAwoC6GLGh0dHA6Ly93d3cuc2suZWUvcmVwb3NpdG9yeS9jcmxz
                L2VlY2NyY2EuY3JsMA0GCSqGSIb3DQEBBQUAA4IBAQC3qNBgY2I9Wqm4LZYKAjCY
                kc2Nltm1RS9frMvQJ4aEE4Y4TtW2LPcQp2lenOf9aYdEB8G/E9CytZSPlFuvDdsd
                knj6fg1XCeu6ITR2wIkxJeAeLQvrFEfb1mcAa5tU9RNalZhYc7MFMFQTjQP+GBNx
                z+KIjNDVASFdv7TCe7GBjsW8Dfes9lQGHaWsBRkHCyuPGIHfH+cmMuhLtWqa4Qlg
                4f54kcsGO7s4buKtk6XqEj8Cj2ITdfk/aUs9QoxxkYWGwSUlCueTamzufXEJo9yz
                5Jp6IFdGjotmjb/EBUCf2sFfI83a4Cm1D3L3/KYb5g3cYlDEpPWNqbNuA1XosIqK
                -----END CERTIFICATE-----
                """),
        // EID-SK 2011, CA, 2011-03-18…2024-03-18, SHA-256 7B1666A7991CFC28B64DA371F17141DBD6F5321F21B83A1A658D6A410D374E05
        Entry(
            role: .ca, name: "EID-SK 2011",
            sha256: "7B1666A7991CFC28B64DA371F17141DBD6F5321F21B83A1A658D6A410D374E05",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIFADCCA+igAwIBAgIQQyvUTmJDa0ZNgy+/fS0vWjANBgkqhkiG9w0BAQUFADB1
                MQswCQYDVQQGEwJFRTEiMCAGA1UECgwZQVMgU2VydGlmaXRzZWVyaW1pc2tlc2t1
                czEoMCYGA1UEAwwfRUUgQ2VydGlmaWNhdGlvbiBDZW50cmUgUm9vdCBDQTEYMBYG
                CSqGSIb3DQEJARYJcGtpQHNrLmVlMB4XDTExMDMxODEwMTExMVoXDTI0MDMxODEw
                MTExMVowYTELMAkGA1UEBhMCRUUxIjAgBgNVBAoMGUFTIFNlcnRpZml0c2Vlcmlt
                aXNrZXNrdXMxFDASBgNVBAMMC0VJRC1TSyAyMDExMRgwFgYJKoZIhvcNAQkBFglw
                a2lAc2suZWUwggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQC2Q1zKMt7D
                ytbntSLoYAAVkEwV+5djSr0vSIG/Zm9seKyx+2PY8sVzXRoUD1CMIYnstDhBSKMj
                n2/+HpA7pOipAIAMrk6uKnpSTTdFbQ+0fzJVPokBgsdsQ6R5TZFPB1nu5zgRRlQm
                WIFxOpDiNHTt0LObUhWLXzUb31vc1Wmao2IYcDx1TCs/1E9+camiCl2B5lXrPEU3
                wBq4waD54izS20DK05+6+hHRg+TqoIg5YSmwbjStEyd/8AQeokwVloyyH49bnpel
                uADcZJgxxE9ZUvVWHoxYfmg1IeRU72jHTcIjNf1cQN2+9/FtHQMnGzDBgmAPpghw
                Wr3JtW0JWvMXAgMBAAGjggGeMIIBmjASBgNVHRMBAf8ECDAGAQH/AgEAMA4GA1Ud
                DwEB/wQEAwIBBjCB9AYDVR0gBIHsMIHpMIHmBgsrBgEEAc4fZAEBATCB1jCBsAYI
                KwYBBQUHAgIwgaMegaAASwBhAHMAdQB0AGEAdABhAGsAcwBlACAAZgD8APwAcwBp
                AGwAaQBzAHQAZQBsAGUAIABpAHMAaQBrAHUAdABlAGwAZQAgAHMAZQByAHQAaQBm
                AGkAawBhAGEAdABpAGQAZQAgAHYA5ABsAGoAYQBzAHQAYQBtAGkAcwBlAGsAcwAg
                AGsAbwBtAG0AZQByAHQAcwBhAGwAdQBzAGUAbAAuMCEGCCsGAQUFBwIBFhVodHRw
                czovL3d3dy5zay5lZS9DUFMwHQYDVR0OBBYEFLEQlwL63YbGeEGkwzKI+/4f58AF
                MB8GA1UdIwQYMBaAFBLyWj7qVhy/zQas8fElyalL1BSZMD0GA1UdHwQ2MDQwMqAw
                oC6GLGh0dHA6Ly93d3cuc2suZWUvcmVwb3NpdG9yeS9jcmxzL2VlY2NyY2EuY3Js
                MA0GCSqGSIb3DQEBBQUAA4IBAQAxau3ohdFkpvaiVUR7arNovQUZRCG9Ge3udqHY
                emovyU7N60Hgomc/ZG+uunScATTUhBcv9a5zkQxb1dQ1LYDRfNr9CqI0QvSEE4t9
                Sfu3fOhyLrlmb3s8xhhYLJBJ325uDvtO/qFeXLlcRXMF5nU8FE2IyaZP1CHYKVh5
                QNPPQiGZGSox5oOkCvmt4lUl4lZUwVie75us/WtrD6DJeREBTEDHORIfg8E9RA1y
                /7t2gT9vrU8tabeSZlD03qwXe0nJ9RscI/P0HT8vuo1PGzCfbH9xFqfoZ2jdJ0Hz
                xrFM8VsL/AtCw0dmrxRHLlZzqSw0G7b0W40mwOQauO2gbMfn
                -----END CERTIFICATE-----
                """),
        // ESTEID-SK 2011, CA, 2011-03-18…2024-03-18, SHA-256 41EC808E33CCA8659EAEA81670D6C7DC01446636E1F227561B6307B80BA63862
        Entry(
            role: .ca, name: "ESTEID-SK 2011",
            sha256: "41EC808E33CCA8659EAEA81670D6C7DC01446636E1F227561B6307B80BA63862",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIFBTCCA+2gAwIBAgIQKVKTqv2MxtRNgzCjwmRRDTANBgkqhkiG9w0BAQUFADB1
                MQswCQYDVQQGEwJFRTEiMCAGA1UECgwZQVMgU2VydGlmaXRzZWVyaW1pc2tlc2t1
                czEoMCYGA1UEAwwfRUUgQ2VydGlmaWNhdGlvbiBDZW50cmUgUm9vdCBDQTEYMBYG
                CSqGSIb3DQEJARYJcGtpQHNrLmVlMB4XDTExMDMxODEwMTQ1OVoXDTI0MDMxODEw
                MTQ1OVowZDELMAkGA1UEBhMCRUUxIjAgBgNVBAoMGUFTIFNlcnRpZml0c2Vlcmlt
                aXNrZXNrdXMxFzAVBgNVBAMMDkVTVEVJRC1TSyAyMDExMRgwFgYJKoZIhvcNAQkB
                Fglwa2lAc2suZWUwggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQCz6Xxs
                Zh6r/aXcNe3kSpNMOqmQoAXUpzzcr4ZSaGZh/7JHIiplvNi6tbW/lK7sAiRsb65K
                zMWROEauld66ggbDPga6kU97C+AXGu7+DROXstjUOv6VlrHZVAnLmIOkycpWaxjM
                +EfQPZuDxEbkw96B3/fG69Zbp3s9y6WEhwU5Y9IiQl8YTkGnNUxidQbON1BGQm+H
                VEsgTf22J6r6G3FsE07rnMNskNC3DjuLSCUKF4kH0rVGVK9BdiCdFaZjHEykjwjI
                GzqnyxyRKe4YbJ6B9ABm95eSFgMBHtZEYU+q0VUIQGhAGAurOTXjWi1TssA42mnL
                GQZEI5GXMXtabp51AgMBAAGjggGgMIIBnDASBgNVHRMBAf8ECDAGAQH/AgEAMA4G
                A1UdDwEB/wQEAwIBBjCB9gYDVR0gBIHuMIHrMIHoBgsrBgEEAc4fZAEBATCB2DCB
                sgYIKwYBBQUHAgIwgaUegaIASwBhAHMAdQB0AGEAdABhAGsAcwBlACAAaQBzAGkA
                awB1AHQAdAD1AGUAbgBkAGEAdgBhAGwAZQAgAGQAbwBrAHUAbQBlAG4AZABpAGwA
                ZQAgAGsAYQBuAHQAYQB2AGEAdABlACAAcwBlAHIAdABpAGYAaQBrAGEAYQB0AGkA
                ZABlACAAdgDkAGwAagBhAHMAdABhAG0AaQBzAGUAawBzAC4wIQYIKwYBBQUHAgEW
                FWh0dHBzOi8vd3d3LnNrLmVlL0NQUzAdBgNVHQ4EFgQUe2ryVVBcuNl6CIdBrvqi
                Kz1bV3YwHwYDVR0jBBgwFoAUEvJaPupWHL/NBqzx8SXJqUvUFJkwPQYDVR0fBDYw
                NDAyoDCgLoYsaHR0cDovL3d3dy5zay5lZS9yZXBvc2l0b3J5L2NybHMvZWVjY3Jj
                YS5jcmwwDQYJKoZIhvcNAQEFBQADggEBAKC4IN3FC2gVDIH05TNMgFrQOCGSnXhz
                oJclRLoQ81BCOXTZI4qn7N74FHEnrAy6uNG7SS5qANqSaPIL8dp63jg/L4qn4iWa
                B5q5GGJOV07SnTHS7gUrqChGClnUeHxiZbL13PkP37Lnc+TKl1SKfgtn5FbH5cqr
                hvbA/VF3Yzlimu+L7EVohW9HKxZ//z8kDn6ieiPFfZdTOov/0eXVLlxqklybUuS6
                LYRRDiqQupgBKQBTwNbC8x0UHX00HokW+dCVcQvsUbv4xLhRq/MvyTthE+RdbkrV
                0JuzbfZvADfj75nA3+ZAzFYS5ZpMOjZ9p4rQVKpzQTklrF0m6mkdcEo=
                -----END CERTIFICATE-----
                """),
        // ESTEID-SK 2015, CA, 2015-12-17…2030-12-17, SHA-256 74D992D3910BCF7E34B8B5CD28F91EAEB4F41F3DA6394D78B8C43672D43F4F0F
        Entry(
            role: .ca, name: "ESTEID-SK 2015",
            sha256: "74D992D3910BCF7E34B8B5CD28F91EAEB4F41F3DA6394D78B8C43672D43F4F0F",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIGcDCCBVigAwIBAgIQRUgJC4ec7yFWcqzT3mwbWzANBgkqhkiG9w0BAQwFADB1
                MQswCQYDVQQGEwJFRTEiMCAGA1UECgwZQVMgU2VydGlmaXRzZWVyaW1pc2tlc2t1
                czEoMCYGA1UEAwwfRUUgQ2VydGlmaWNhdGlvbiBDZW50cmUgUm9vdCBDQTEYMBYG
                CSqGSIb3DQEJARYJcGtpQHNrLmVlMCAXDTE1MTIxNzEyMzg0M1oYDzIwMzAxMjE3
                MjM1OTU5WjBjMQswCQYDVQQGEwJFRTEiMCAGA1UECgwZQVMgU2VydGlmaXRzZWVy
                aW1pc2tlc2t1czEXMBUGA1UEYQwOTlRSRUUtMTA3NDcwMTMxFzAVBgNVBAMMDkVT
                VEVJRC1TSyAyMDE1MIICIjANBgkqhkiG9w0BAQEFAAOCAg8AMIICCgKCAgEA0oH6
                1NDxbdW9k8nLA1qGaL4B7vydod2Ewp/STBZB3wEtIJCLdkpEsS8pXfFiRqwDVsgG
                Gbu+Q99trlb5LI7yi7rIkRov5NftBdSNPSU5rAhYPQhvZZQgOwRaHa5Ey+BaLJHm
                LqYQS9hQvQsCYyws+xVvNFUpK0pGD64iycqdMuBl/nWq3fLuZppwBh0VFltm4nhr
                /1S0R9TRJpqFUGbGr4OK/DwebQ5PjhdS40gCUNwmC7fPQ4vIH+x+TCk2aG+u3MoA
                z0IrpVWqiwzG/vxreuPPAkgXeFCeYf6fXLsGz4WivsZFbph2pMjELu6sltlBXfAG
                3fGv43t91VXicyzR/eT5dsB+zFsW1sHV+1ONPr+qzgDxCH2cmuqoZNfIIq+buob3
                eA8ee+XpJKJQr+1qGrmhggjvAhc7m6cU4x/QfxwRYhIVNhJf+sKVThkQhbJ9XxuK
                k3c18wymwL1mpDD0PIGJqlssMeiuJ4IzagFbgESGNDUd4icm0hQT8CmQeUm1GbWe
                BYseqPhMQX97QFBLXJLVy2SCyoAz7Bq1qA43++EcibN+yBc1nQs2Zoq8ck9MK0bC
                xDMeUkQUz6VeQGp69ImOQrsw46qTz0mtdQrMSbnkXCuLan5dPm284J9HmaqiYi6j
                6KLcZ2NkUnDQFesBVlMEm+fHa2iR6lnAFYZ06UECAwEAAaOCAgowggIGMB8GA1Ud
                IwQYMBaAFBLyWj7qVhy/zQas8fElyalL1BSZMB0GA1UdDgQWBBSzq4i8mdVipIUq
                CM20HXI7g3JHUTAOBgNVHQ8BAf8EBAMCAQYwdwYDVR0gBHAwbjAIBgYEAI96AQIw
                CQYHBACL7EABAjAwBgkrBgEEAc4fAQEwIzAhBggrBgEFBQcCARYVaHR0cHM6Ly93
                d3cuc2suZWUvQ1BTMAsGCSsGAQQBzh8BAjALBgkrBgEEAc4fAQMwCwYJKwYBBAHO
                HwEEMBIGA1UdEwEB/wQIMAYBAf8CAQAwQQYDVR0eBDowOKE2MASCAiIiMAqHCAAA
                AAAAAAAAMCKHIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAMCcGA1Ud
                JQQgMB4GCCsGAQUFBwMJBggrBgEFBQcDAgYIKwYBBQUHAwQwfAYIKwYBBQUHAQEE
                cDBuMCAGCCsGAQUFBzABhhRodHRwOi8vb2NzcC5zay5lZS9DQTBKBggrBgEFBQcw
                AoY+aHR0cDovL3d3dy5zay5lZS9jZXJ0cy9FRV9DZXJ0aWZpY2F0aW9uX0NlbnRy
                ZV9Sb290X0NBLmRlci5jcnQwPQYDVR0fBDYwNDAyoDCgLoYsaHR0cDovL3d3dy5z
                ay5lZS9yZXBvc2l0b3J5L2NybHMvZWVjY3JjYS5jcmwwDQYJKoZIhvcNAQEMBQAD
                ggEBAHRWDGI3P00r2sOnlvLHKk9eE7X93eT+4e5TeaQsOpE5zQRUTtshxN8Bnx2T
                oQ9rgi18q+MwXm2f0mrGakYYG0bix7ZgDQvCMD/kuRYmwLGdfsTXwh8KuL6uSHF+
                U/ZTss6qG7mxCHG9YvebkN5Yj/rYRvZ9/uJ9rieByxw4wo7b19p22PXkAkXP5y3+
                qK/Oet98lqwI97kJhiS2zxFYRk+dXbazmoVHnozYKmsZaSUvoYNNH19tpS7BLdsg
                i9KpbvQLb5ywIMq9ut3+b2Xvzq8yzmHMFtLIJ6Afu1jJpqD82BUAFcvi5vhnP8M7
                b974R18WCOpgNQvXDI+2/8ZINeU=
                -----END CERTIFICATE-----
                """),
        // ESTEID-SK OCSP RESPONDER, OCSP, 2002-03-20…2005-03-24, SHA-256 EA3D5419152B3F8A928AF823EEBCCBD63A6881B0D838CB056FD9CD5CA4857DAB
        Entry(
            role: .ocspResponder, name: "ESTEID-SK OCSP RESPONDER",
            sha256: "EA3D5419152B3F8A928AF823EEBCCBD63A6881B0D838CB056FD9CD5CA4857DAB",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIDuDCCAqCgAwIBAgIEPJilyDANBgkqhkiG9w0BAQUFADB8MRgwFgYJKoZIhvcN
                AQkBFglwa2lAc2suZWUxCzAJBgNVBAYTAkVFMSIwIAYDVQQKExlBUyBTZXJ0aWZp
                dHNlZXJpbWlza2Vza3VzMQ8wDQYDVQQLEwZFU1RFSUQxCjAIBgNVBAQTATExEjAQ
                BgNVBAMTCUVTVEVJRC1TSzAeFw0wMjAzMjAxNTA3NTJaFw0wNTAzMjQxNTA3NTJa
                MGoxCzAJBgNVBAYTAkVFMQ8wDQYDVQQKEwZFU1RFSUQxDTALBgNVBAsTBE9DU1Ax
                ITAfBgNVBAMTGEVTVEVJRC1TSyBPQ1NQIFJFU1BPTkRFUjEYMBYGCSqGSIb3DQEJ
                ARYJcGtpQHNrLmVlMIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC10BeCObXZ
                ZWcDX298Wqfd16hpi9tuSbT4L+kowTj+aWz7PDsFpKQWqhxCdlicu67xCT0zAAja
                K6x9cwasiIdre++IkscRi00w20G5nTPocxpwGTHqwHx4ED7cceK4t4pbj/zB8Flu
                VNVii8ouG9ZEhH76j/Icx0X27Sq5AS0CwwIDAQABo4HXMIHUMBMGA1UdJQQMMAoG
                CCsGAQUFBwMJMBIGCSsGBAUFBzABBQQFMAMEATAwgYkGA1UdIwSBgTB/gBR4F7UF
                +bNYzVmM3mdeRAZMdYZpXaFhpF8wXTEYMBYGCSqGSIb3DQEJARYJcGtpQHNrLmVl
                MQswCQYDVQQGEwJFRTEiMCAGA1UEChMZQVMgU2VydGlmaXRzZWVyaW1pc2tlc2t1
                czEQMA4GA1UEAxMHSnV1ci1TS4IEPERcgjAdBgNVHQ4EFgQUzpYj2gwlDYK9ahyG
                yKa0AkK5ys0wDQYJKoZIhvcNAQEFBQADggEBADrq0tGkwsrddEqUbsOpXi75Xs4G
                VkOyseysNqZZCvLqCF7qTSMiC+fzRxQbXQDhuOT7QQvi3JAoA5zTIm2RvIO1fmrV
                nJ6CsObjxxvXtcSLI+bICG4uQYgEA+duDRgICpmtCCjtmxb+2/cSJLGioaKiwn0Y
                wgeEowOgjDMh2o4otm6FjtyT1GZsZm56U7WkFa7tSwkHKw427iZUWVrED6W9AfAT
                Y14rNnAk8Jqz06w4rPnGE4kYjO+UqMLmFU2KImdrTp1O7h4YLCVlxH/e/He8r7FS
                gzXSG4EqlD/TMEdCLu7DSWR3SEgJPvKWCpNWzv2DRldHp+kQO3k+R/f2c80=
                -----END CERTIFICATE-----
                """),
        // KLASS3-SK OCSP RESPONDER, OCSP, 2003-04-01…2006-04-05, SHA-256 6B96EAC95118CC855743F35DFB69BD6A72E43D33D177EEE100E63A5E2963E725
        Entry(
            role: .ocspResponder, name: "KLASS3-SK OCSP RESPONDER",
            sha256: "6B96EAC95118CC855743F35DFB69BD6A72E43D33D177EEE100E63A5E2963E725",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIDXTCCAkWgAwIBAgIEPolzuzANBgkqhkiG9w0BAQUFADCBjjEYMBYGCSqGSIb3
                DQEJARYJcGtpQHNrLmVlMQswCQYDVQQGEwJFRTEiMCAGA1UEChMZQVMgU2VydGlm
                aXRzZWVyaW1pc2tlc2t1czEhMB8GA1UECxMYU2VydGlmaXRzZWVyaW1pc3RlZW51
                c2VkMQowCAYDVQQFEwExMRIwEAYDVQQDEwlLTEFTUzMtU0swHhcNMDMwNDAxMTEx
                MDUxWhcNMDYwNDA1MTAxMDUxWjB9MQswCQYDVQQGEwJFRTEiMCAGA1UEChMZQVMg
                U2VydGlmaXRzZWVyaW1pc2tlc2t1czENMAsGA1UECxMET0NTUDEhMB8GA1UEAxMY
                S0xBU1MzLVNLIE9DU1AgUkVTUE9OREVSMRgwFgYJKoZIhvcNAQkBFglwa2lAc2su
                ZWUwgZ8wDQYJKoZIhvcNAQEBBQADgY0AMIGJAoGBALXQF4I5tdllZwNfb3xap93X
                qGmL225JtPgv6SjBOP5pbPs8OwWkpBaqHEJ2WJy7rvEJPTMACNorrH1zBqyIh2t7
                74iSxxGLTTDbQbmdM+hzGnAZMerAfHgQPtxx4ri3iluP/MHwWW5U1WKLyi4b1kSE
                fvqP8hzHRfbtKrkBLQLDAgMBAAGjVzBVMBMGA1UdJQQMMAoGCCsGAQUFBwMJMB8G
                A1UdIwQYMBaAFOU/DJ1xPW+8Gb+a9G6/Cf5A652WMB0GA1UdDgQWBBTOliPaDCUN
                gr1qHIbIprQCQrnKzTANBgkqhkiG9w0BAQUFAAOCAQEAd/8FCyPC9zXxcAZN67KC
                NU4+XNJ8e+LmG602lBe+lS7Pw4pOgMKebgULKh1fEBHQ2K7FSUWMZdPWkDHaKVRh
                646yVbFZbfEmKNq4LhRf13/hoUdrG5uRVmCsV03WSfgfUVfb1cZf8tDMIwCmsNXu
                22k9wykeHallpUmGUfbVZygqfKE2NVQpm2FULiKWBFKXqbMtW5R3xmDS3bjrAIAd
                UdYhxhfdCHCphsQf/FJlxb8UFOUa8SeRNr5eL7s8znLnrC5pKPpWGbUNSlrhLJZH
                IeXfwbOamae6UVvjto6bMqRe2sxCsMA0dGz+tMiglfmTVInxpEKBkyvF/on/2qwt
                Vw==
                -----END CERTIFICATE-----
                """),
        // EID-SK OCSP RESPONDER, OCSP, 2004-05-10…2007-05-15, SHA-256 F597E1C4908A110CFA51FFC37C8B09B3EA99AC8D2CB4491F63519EFD7E9134F2
        Entry(
            role: .ocspResponder, name: "EID-SK OCSP RESPONDER",
            sha256: "F597E1C4908A110CFA51FFC37C8B09B3EA99AC8D2CB4491F63519EFD7E9134F2",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIDVzCCAj+gAwIBAgIEQJ+U4jANBgkqhkiG9w0BAQUFADCBizEYMBYGCSqGSIb3
                DQEJARYJcGtpQHNrLmVlMQswCQYDVQQGEwJFRTEiMCAGA1UEChMZQVMgU2VydGlm
                aXRzZWVyaW1pc2tlc2t1czEhMB8GA1UECxMYU2VydGlmaXRzZWVyaW1pc3RlZW51
                c2VkMQowCAYDVQQFEwExMQ8wDQYDVQQDEwZFSUQtU0swHhcNMDQwNTEwMTQ0MjQy
                WhcNMDcwNTE1MTM0MjQyWjB6MQswCQYDVQQGEwJFRTEiMCAGA1UEChMZQVMgU2Vy
                dGlmaXRzZWVyaW1pc2tlc2t1czENMAsGA1UECxMET0NTUDEeMBwGA1UEAxMVRUlE
                LVNLIE9DU1AgUkVTUE9OREVSMRgwFgYJKoZIhvcNAQkBFglwa2lAc2suZWUwgZ8w
                DQYJKoZIhvcNAQEBBQADgY0AMIGJAoGBALXQF4I5tdllZwNfb3xap93XqGmL225J
                tPgv6SjBOP5pbPs8OwWkpBaqHEJ2WJy7rvEJPTMACNorrH1zBqyIh2t774iSxxGL
                TTDbQbmdM+hzGnAZMerAfHgQPtxx4ri3iluP/MHwWW5U1WKLyi4b1kSEfvqP8hzH
                RfbtKrkBLQLDAgMBAAGjVzBVMBMGA1UdJQQMMAoGCCsGAQUFBwMJMB8GA1UdIwQY
                MBaAFLS8J3CeB8vFZMMyGWzcH3opLjelMB0GA1UdDgQWBBTOliPaDCUNgr1qHIbI
                prQCQrnKzTANBgkqhkiG9w0BAQUFAAOCAQEAo4givhw0UMEOE/RVjSpdY+uoAz6Z
                uNkWYZrhamrLuziJHQdpvxy1ACAAFfDpHc0lRK+wcnFV8NCWxtohZgCzpWB8HzLV
                NgFnt/40CFBqkzRT6wL3jhVflu6lQdhBLmxPzs06BIEZixP0iEOKrIzezEePf3/e
                a6kapVsg5zjPq8iW9ua39cmBp4D0sQ4yd6BMnLPyn77k7zlEzbQfFhAtLis7z6uF
                S0XRJh9PAvcLRPhBGBBcBnGk+x+TAF35OBGL0BOmv/6XqByx/97ACcpOo8ga/CIo
                tOQgyddpBH6bX0HisicUGpLGcpLkZG0HaUKXOeyibYwE/IDM7jrDrzOrPw==
                -----END CERTIFICATE-----
                """),
        // ESTEID-SK OCSP RESPONDER 2005, OCSP, 2005-03-08…2012-01-12, SHA-256 46C5546FE6AE3DF80701116A6806F1BF13ECFE78B5D9C4FBEB52E2A8412BA5E7
        Entry(
            role: .ocspResponder, name: "ESTEID-SK OCSP RESPONDER 2005",
            sha256: "46C5546FE6AE3DF80701116A6806F1BF13ECFE78B5D9C4FBEB52E2A8412BA5E7",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIDPDCCAiSgAwIBAgIEQi2iwTANBgkqhkiG9w0BAQUFADB8MRgwFgYJKoZIhvcN
                AQkBFglwa2lAc2suZWUxCzAJBgNVBAYTAkVFMSIwIAYDVQQKExlBUyBTZXJ0aWZp
                dHNlZXJpbWlza2Vza3VzMQ8wDQYDVQQLEwZFU1RFSUQxCjAIBgNVBAQTATExEjAQ
                BgNVBAMTCUVTVEVJRC1TSzAeFw0wNTAzMDgxMzA0MDFaFw0xMjAxMTIxMzA0MDFa
                MG8xCzAJBgNVBAYTAkVFMQ8wDQYDVQQKEwZFU1RFSUQxDTALBgNVBAsTBE9DU1Ax
                JjAkBgNVBAMTHUVTVEVJRC1TSyBPQ1NQIFJFU1BPTkRFUiAyMDA1MRgwFgYJKoZI
                hvcNAQkBFglwa2lAc2suZWUwgZ8wDQYJKoZIhvcNAQEBBQADgY0AMIGJAoGBAI8m
                LeLkRHLxMNCB5Pz8R5DnvPdVxBS91PoHboLnbhjlp1ecByVosjwGpXCGu8tUPuv8
                1Azgqq97AsSugM1J7Pu0gj4bg0Mf6O/9XyoT7RI7H0BuEn4KJQlFcw7tXizI5KUW
                FFZ4Qg8kfg0xwrDrLIjusBtRbeRARG3DhH8dgZBpAgMBAAGjVzBVMBMGA1UdJQQM
                MAoGCCsGAQUFBwMJMB8GA1UdIwQYMBaAFHgXtQX5s1jNWYzeZ15EBkx1hmldMB0G
                A1UdDgQWBBRM+GJhloJeOPpJDgvA0clxQXdnVTANBgkqhkiG9w0BAQUFAAOCAQEA
                fD8dP+swtSeigLxL3uUXV/tmQkjre7Ww39Uey71LdtxQ6zC7MDjcsLW13JaU0pRu
                u/p/eGe6h4/w46tSMsBx/U+D1WnHeCj1ED9SFWwfNQFVz9FkM5JEkPDm7lw5hHox
                IghRHAC3NMbR3sCrVQA2YELf2WypslROoz8XlRT1LN4pwVehpBeWO7xbQPUtoaxK
                rSCGumtxtxA3KRJ7POHPTAH4cvipxaZhS1ZcXbKtxsesGW+7KLZirpTBT17ICXEA
                1CFXDWmJ8MHRhbeNWK3G1PERgTiGtBQV7Z00CzmJPHmb1yfcT27+WZ1W9tRQsjhG
                EWyMVkNnZooWHIjLpNucQA==
                -----END CERTIFICATE-----
                """),
        // KLASS3-SK OCSP RESPONDER, OCSP, 2006-03-23…2009-03-27, SHA-256 CB167DE2F05B38931ABDF296911F6951239D0A3B2362597662F22570EC3E9B0B
        Entry(
            role: .ocspResponder, name: "KLASS3-SK OCSP RESPONDER",
            sha256: "CB167DE2F05B38931ABDF296911F6951239D0A3B2362597662F22570EC3E9B0B",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIDXTCCAkWgAwIBAgIERCKLGDANBgkqhkiG9w0BAQUFADCBjjEYMBYGCSqGSIb3
                DQEJARYJcGtpQHNrLmVlMQswCQYDVQQGEwJFRTEiMCAGA1UEChMZQVMgU2VydGlm
                aXRzZWVyaW1pc2tlc2t1czEhMB8GA1UECxMYU2VydGlmaXRzZWVyaW1pc3RlZW51
                c2VkMQowCAYDVQQFEwExMRIwEAYDVQQDEwlLTEFTUzMtU0swHhcNMDYwMzIzMTE0
                ODQwWhcNMDkwMzI3MTE0ODQwWjB9MQswCQYDVQQGEwJFRTEiMCAGA1UEChMZQVMg
                U2VydGlmaXRzZWVyaW1pc2tlc2t1czENMAsGA1UECxMET0NTUDEhMB8GA1UEAxMY
                S0xBU1MzLVNLIE9DU1AgUkVTUE9OREVSMRgwFgYJKoZIhvcNAQkBFglwa2lAc2su
                ZWUwgZ8wDQYJKoZIhvcNAQEBBQADgY0AMIGJAoGBAKKTI8Aex0Gva9eeeBkM3fGT
                iNOEvjj2McN3tOJBMAEvG/G7Npu0/2fAEKFFUv4NnPyH3MiC7s6R8PtPMhV5GBG6
                kWVztL/gQnlIjAbo1l654+jApIQjT3vdVZDIYyS6lKlYoAdG40CgLlVtRihargQ7
                7azlfORkyRfhKZcSQe8tAgMBAAGjVzBVMBMGA1UdJQQMMAoGCCsGAQUFBwMJMB8G
                A1UdIwQYMBaAFOU/DJ1xPW+8Gb+a9G6/Cf5A652WMB0GA1UdDgQWBBQUQsudE6pY
                aIJSuWurylGItfy52DANBgkqhkiG9w0BAQUFAAOCAQEAV+Vu+qzrHe7HDjMHq9Dd
                OQTz833QcMRY0huSgphMOgqNjqjPqTNpHPgNvE6HKGdQ0+VWr8IyRWcxnPMZNihm
                aCGMpFMpYuH0fx9nsjXDbjat8MfGuX2m1EADGOwjtjMuoYTEGEUe3MBeFkmPFDIY
                peuS+I4Qv34tOsGvFOpsDkobSATq4EFw/5hI9WfWaEMYkmBXdeokoVjbNpt+gtdG
                KNBU42AlxLrcc+YzAE1hj5qH99/hl0X6r63pTjUb1ZMRjGQg7ELwmddms7wB5LKK
                i5kbfmag5hBtDKGs2s0xW1be4ylNOrT9lqUYuPn9lwcHNg1IS42mYVChV97Tlt/5
                vw==
                -----END CERTIFICATE-----
                """),
        // EID-SK OCSP RESPONDER, OCSP, 2006-03-23…2009-03-27, SHA-256 000A5E26FD90A13CFBF1C6C11685756D006C0F21DFF2E68FA787F091B31ABFA7
        Entry(
            role: .ocspResponder, name: "EID-SK OCSP RESPONDER",
            sha256: "000A5E26FD90A13CFBF1C6C11685756D006C0F21DFF2E68FA787F091B31ABFA7",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIDVzCCAj+gAwIBAgIERCKL4zANBgkqhkiG9w0BAQUFADCBizEYMBYGCSqGSIb3
                DQEJARYJcGtpQHNrLmVlMQswCQYDVQQGEwJFRTEiMCAGA1UEChMZQVMgU2VydGlm
                aXRzZWVyaW1pc2tlc2t1czEhMB8GA1UECxMYU2VydGlmaXRzZWVyaW1pc3RlZW51
                c2VkMQowCAYDVQQFEwExMQ8wDQYDVQQDEwZFSUQtU0swHhcNMDYwMzIzMTE1MjAz
                WhcNMDkwMzI3MTE1MjAzWjB6MQswCQYDVQQGEwJFRTEiMCAGA1UEChMZQVMgU2Vy
                dGlmaXRzZWVyaW1pc2tlc2t1czENMAsGA1UECxMET0NTUDEeMBwGA1UEAxMVRUlE
                LVNLIE9DU1AgUkVTUE9OREVSMRgwFgYJKoZIhvcNAQkBFglwa2lAc2suZWUwgZ8w
                DQYJKoZIhvcNAQEBBQADgY0AMIGJAoGBAJXYEhLiVs7JNpHWhoze68+oRFEcIsUz
                VvhXQIpNJowEs7blTp7C6UJKdK8DC6RpfiehJUdiZILl+wRGGP28Xg049Uku2oiZ
                YX/B2EW829cGfsktDZGh8wJxya3vlyHjXOueAwZjNtK74LxpPXWCWSlePJyzvvW8
                dGJuYG5Uh0IvAgMBAAGjVzBVMBMGA1UdJQQMMAoGCCsGAQUFBwMJMB8GA1UdIwQY
                MBaAFLS8J3CeB8vFZMMyGWzcH3opLjelMB0GA1UdDgQWBBQRDqx+35L2TZfA3b9X
                f7cnBm7zUTANBgkqhkiG9w0BAQUFAAOCAQEACUFA/IIgn9jZoB+mF05nU9SK/WOq
                qVhUCFVjYfGNltxtAJjM+HWuNWTpzPEATSxPexaNguNQBSLz57/rU3bgSX8bzwYF
                jBFQSZuJEWD30Svynf3pSGuLA6yGkZlSH4mfccjXJML8kw7HKjb4RHJAtFCPE5ny
                xzhCqar6yx7o3OTg7ytf8M7RH0KELbAjCYq9My/yjA8+ML/CzXDFRLWlurhSVJ/9
                MVZljdJ0Lg2vmnb1NGUcQQmXP/jfHIiJPDUGajYBZd4nx5BiMlCAonuBWXYJ5pJU
                J4uz3qMrrYAxp3BWn0NhysUX2fM92KQxxHHqvVWHKD5Q6Ja4W/Ws0QU3VA==
                -----END CERTIFICATE-----
                """),
        // ESTEID-SK 2007 OCSP RESPONDER, OCSP, 2007-01-04…2010-01-08, SHA-256 94958D5A11E2076E1D5ABF7C02D6114CBCD1B55A44B97D0B4F4EE7A4DD97801B
        Entry(
            role: .ocspResponder, name: "ESTEID-SK 2007 OCSP RESPONDER",
            sha256: "94958D5A11E2076E1D5ABF7C02D6114CBCD1B55A44B97D0B4F4EE7A4DD97801B",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIDnDCCAoSgAwIBAgIERZ0acjANBgkqhkiG9w0BAQUFADBbMQswCQYDVQQGEwJF
                RTEiMCAGA1UEChMZQVMgU2VydGlmaXRzZWVyaW1pc2tlc2t1czEPMA0GA1UECxMG
                RVNURUlEMRcwFQYDVQQDEw5FU1RFSUQtU0sgMjAwNzAeFw0wNzAxMDQxNTE3MDZa
                Fw0xMDAxMDgxNTE3MDZaMG8xCzAJBgNVBAYTAkVFMQ8wDQYDVQQKEwZFU1RFSUQx
                DTALBgNVBAsTBE9DU1AxJjAkBgNVBAMTHUVTVEVJRC1TSyAyMDA3IE9DU1AgUkVT
                UE9OREVSMRgwFgYJKoZIhvcNAQkBFglwa2lAc2suZWUwgZ8wDQYJKoZIhvcNAQEB
                BQADgY0AMIGJAoGBAJmoB3SJCpPzcoHNqK1J0tRNQjgr5iuB27uE1VacIbITjD/N
                c1AefKz5ydNPIaBNehm4yKxBYGxEeWOSJHVXyhJMg53EAUOw/45c46gvznXupHuJ
                6TEiGjh1pxaXTeLSnTqzNDZDAGQsOTgIbwGLa5U5ad8rXYu2YkJKsAfo6jT5AgMB
                AAGjgdcwgdQwEwYDVR0lBAwwCgYIKwYBBQUHAwkwEgYJKwYEBQUHMAEFBAUwAwQB
                MDCBiQYDVR0jBIGBMH+AFEgG3r6Mh1eVgHhj+pwjKyugOhh1oWGkXzBdMRgwFgYJ
                KoZIhvcNAQkBFglwa2lAc2suZWUxCzAJBgNVBAYTAkVFMSIwIAYDVQQKExlBUyBT
                ZXJ0aWZpdHNlZXJpbWlza2Vza3VzMRAwDgYDVQQDEwdKdXVyLVNLggRFm6ANMB0G
                A1UdDgQWBBRJ/snw1GDL3fUH9n9Cpn8yhXiC7DANBgkqhkiG9w0BAQUFAAOCAQEA
                YzGkZD/uaXlWPeye1z5IiI83nmAjiJyvoj/r3BB9ZFWMX+ZY4Fz6/V/fzD0xXoeD
                pWbBKxcuctPXzXYxEH17n0/3yGOz8jhdJNBUCwRmd+96oHsU9aWSf+D2tiq1jPw6
                HVCiUYOhC/OWjg/+JpFlWsBV4gTW8/2PSGig85XlEsWLK7i7tIe60nnw/rWnfbCc
                kMRcbrAF1L/JIlnUYUdkGOGQ9KPVqwR/MyWrwFIcSy2QIbcIaWMuiUc1nt8bmIXK
                oFZxbLzXYC00zba9cY7lSC4WPuhBtrQJ9JWb4OeoXd5j6O45UaH6XbarfrhER1GH
                L06cTyksT18p2L2GrMuEJg==
                -----END CERTIFICATE-----
                """),
        // EID-SK 2007 OCSP RESPONDER, OCSP, 2007-04-13…2010-04-17, SHA-256 788CA829DCBEF9AE4547D8897F3E91C89E564CA1DA022F912A123DEF66C7BFCA
        Entry(
            role: .ocspResponder, name: "EID-SK 2007 OCSP RESPONDER",
            sha256: "788CA829DCBEF9AE4547D8897F3E91C89E564CA1DA022F912A123DEF66C7BFCA",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIDOjCCAiKgAwIBAgIERh9YjTANBgkqhkiG9w0BAQUFADBqMQswCQYDVQQGEwJF
                RTEiMCAGA1UEChMZQVMgU2VydGlmaXRzZWVyaW1pc2tlc2t1czEhMB8GA1UECxMY
                U2VydGlmaXRzZWVyaW1pc3RlZW51c2VkMRQwEgYDVQQDEwtFSUQtU0sgMjAwNzAe
                Fw0wNzA0MTMxMDE2NDVaFw0xMDA0MTcwOTE2NDVaMH8xCzAJBgNVBAYTAkVFMSIw
                IAYDVQQKExlBUyBTZXJ0aWZpdHNlZXJpbWlza2Vza3VzMQ0wCwYDVQQLEwRPQ1NQ
                MSMwIQYDVQQDExpFSUQtU0sgMjAwNyBPQ1NQIFJFU1BPTkRFUjEYMBYGCSqGSIb3
                DQEJARYJcGtpQHNrLmVlMIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQD+Z0LZ
                6TjBzx4x+UshExea1nIMsS86xAN6u/amLV8XQE+vodEld8iqtRsrvFiQ74isYOys
                1JKqiq+1ryic6j2FnMDZueLiXZl51QWyuhWu+aT4BwEaA8rUxMgKJ94zWksrqSf9
                cjoaap+9DlDhEsrDa+/89CPl2rlZIB5lqeHLQQIDAQABo1cwVTATBgNVHSUEDDAK
                BggrBgEFBQcDCTAfBgNVHSMEGDAWgBQcB/Scv6QlbLO0niIfH5RIG1h6jTAdBgNV
                HQ4EFgQUMsMzikmZqG6CcdgnD5VAXfQeCrgwDQYJKoZIhvcNAQEFBQADggEBAH0e
                UFQ7LznD4R8XWj/6rsNhe0fme3Os7cyZGNkx1EWenkgdMHCV/gN3SyIfrjW7sEJM
                62sS1X+8Ke2J+6b5YH0TcSmSDqYICn6zVbsq5MLtHW5wmwKucBJ5xFgoC3NNCEp8
                wVrzuQmm6xCvFWQVQ6uNhjuxCQxcDKgLwpL7iEcBEMmTTKkvqEtqrvu/LZ/a2OHy
                tkEoXGheN8KlEcIv7AJBPVL8OCv4UpgyUOrVnmIeX2F/KG3wmo4U3kVupuF9kaPr
                OeOGYG3ZzK2HNwfRNkZ/Ej7AuPazkumAHdsJBbpTdBYq8d8er8XZKai24Ra/e5eE
                mcMye+O8IpxAA4ExY+I=
                -----END CERTIFICATE-----
                """),
        // KLASS3-SK OCSP RESPONDER 2009, OCSP, 2009-03-26…2012-05-04, SHA-256 6C6657EEA06D4946B42A3387F2AECA02397D3884DE430AB12F3439A67D45FF71
        Entry(
            role: .ocspResponder, name: "KLASS3-SK OCSP RESPONDER 2009",
            sha256: "6C6657EEA06D4946B42A3387F2AECA02397D3884DE430AB12F3439A67D45FF71",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIDzzCCAregAwIBAgIEScskSjANBgkqhkiG9w0BAQUFADCBjjEYMBYGCSqGSIb3
                DQEJARYJcGtpQHNrLmVlMQswCQYDVQQGEwJFRTEiMCAGA1UEChMZQVMgU2VydGlm
                aXRzZWVyaW1pc2tlc2t1czEhMB8GA1UECxMYU2VydGlmaXRzZWVyaW1pc3RlZW51
                c2VkMQowCAYDVQQFEwExMRIwEAYDVQQDEwlLTEFTUzMtU0swHhcNMDkwMzI2MDY0
                NDI2WhcNMTIwNTA0MDU0NDI2WjCBgjELMAkGA1UEBhMCRUUxIjAgBgNVBAoTGUFT
                IFNlcnRpZml0c2VlcmltaXNrZXNrdXMxDTALBgNVBAsTBE9DU1AxJjAkBgNVBAMT
                HUtMQVNTMy1TSyBPQ1NQIFJFU1BPTkRFUiAyMDA5MRgwFgYJKoZIhvcNAQkBFglw
                a2lAc2suZWUwgZ8wDQYJKoZIhvcNAQEBBQADgY0AMIGJAoGBAKi6weNl7Wj7sL6J
                D4YUNt/JXQ79KL53x5m4QGRsijGJaV5YggE5rJyVZGlsX4FSd9JFIV597ypAUGDb
                LPf0nDdlSIGteP7zamyETI3GI6bKfkeUuIE707r7uC+8FFe9iHOOL20+pi7WFzwn
                yXT9yuWs0eCoKdjQvLpMiq0MBIm9AgMBAAGjgcIwgb8wEwYDVR0lBAwwCgYIKwYB
                BQUHAwkwaAYDVR0gBGEwXzBdBgorBgEEAc4fBAECME8wJQYIKwYBBQUHAgIwGRoX
                U0sgdGltZSBzdGFtcGluZyBwb2xpY3kwJgYIKwYBBQUHAgEWGmh0dHA6Ly93d3cu
                c2suZWUvYWphdGVtcGVsMB8GA1UdIwQYMBaAFOU/DJ1xPW+8Gb+a9G6/Cf5A652W
                MB0GA1UdDgQWBBT59PTkSIzYXNBxQQnAhqH3BtED0TANBgkqhkiG9w0BAQUFAAOC
                AQEAhyl3H6fo1bz3mD0JcD4eY1slcwec92Qgkn6i9TsO5TlDQCJxiC/80zlh+H5d
                gIMcNQ6gNbr1cWsUw7xAanv2hGlg20IWq7uCyy5LDghFpO2BWDzTJjmiVTXzyVEv
                qST0W6efDiwi1tA8H7b+aAzc9ItWm7pYlucGvneKJq07t/UvU9ONSDUfVLPNMr8s
                lwCMOexVDZ+eiBlvrLL3N7NouPs7UpFh/+m5JsERmeLbbrNYimHUUn2PJ/trJ3kB
                EVFToO+nFdBElfzC3bjSlbPXFxSOL+AqSgvRIaB4CEWUxa33wzoZNaVpCh5AupxQ
                OGdr4u7ajw5hkV8Y9VZ7OFej6A==
                -----END CERTIFICATE-----
                """),
        // SK Proxy OCSP Responder 2009, OCSP, 2009-05-15…2012-05-05, SHA-256 8752E33239B3FE58D1A28270E49744409502F9AC23A89304C390789CFFECB8A8
        Entry(
            role: .ocspResponder, name: "SK Proxy OCSP Responder 2009",
            sha256: "8752E33239B3FE58D1A28270E49744409502F9AC23A89304C390789CFFECB8A8",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIEUjCCAzqgAwIBAgIESg1N9TANBgkqhkiG9w0BAQUFADCBjjEYMBYGCSqGSIb3
                DQEJARYJcGtpQHNrLmVlMQswCQYDVQQGEwJFRTEiMCAGA1UEChMZQVMgU2VydGlm
                aXRzZWVyaW1pc2tlc2t1czEhMB8GA1UECxMYU2VydGlmaXRzZWVyaW1pc3RlZW51
                c2VkMQowCAYDVQQFEwExMRIwEAYDVQQDEwlLTEFTUzMtU0swHhcNMDkwNTE1MTEx
                MTQ5WhcNMTIwNTA1MTEwNzE3WjCBgTELMAkGA1UEBhMCRUUxIjAgBgNVBAoTGUFT
                IFNlcnRpZml0c2VlcmltaXNrZXNrdXMxDTALBgNVBAsTBE9DU1AxJTAjBgNVBAMT
                HFNLIFByb3h5IE9DU1AgUmVzcG9uZGVyIDIwMDkxGDAWBgkqhkiG9w0BCQEWCXBr
                aUBzay5lZTCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAJ6rr1AZFPun
                WKMJAse70wx9Utc57qgbrJdk8iiOrcUN2FApNal2wFnRIw9rsF8u9KPu3g47ZSuK
                KYkpdVVupTwt6gK+brQczfQShO3xOCj7cubcl5+6jDPXSh47zma10hh4tJ5VECOi
                CDBhIRfA/UJfMYj6BYgEhFuRQxEBgAF5yyEJX1X8Sco/GQcha4Er5SyEhHvXu/vv
                g0OVfLRqH/7gGBBRLPMOsDImmXf+C0UYKs7ywFBf+M0VnWH9u0p7E8XzA8s3m2iv
                TdU/JYIU5Zy7NFeV9NJgZw3iaLCO1dbV2gBIWpgGvqlwQ3coKHMs3tMBT25+WWmK
                VMsHFi254ysCAwEAAaOBwjCBvzATBgNVHSUEDDAKBggrBgEFBQcDCTBoBgNVHSAE
                YTBfMF0GCisGAQQBzh8EAQIwTzAlBggrBgEFBQcCAjAZGhdTSyB0aW1lIHN0YW1w
                aW5nIHBvbGljeTAmBggrBgEFBQcCARYaaHR0cDovL3d3dy5zay5lZS9hamF0ZW1w
                ZWwwHwYDVR0jBBgwFoAU5T8MnXE9b7wZv5r0br8J/kDrnZYwHQYDVR0OBBYEFCRX
                W4FmpJ/GGw3/AXu5czpgogbJMA0GCSqGSIb3DQEBBQUAA4IBAQB9U7sG/M/w7eXB
                Qh5tDOZ7XLCRmhrmGk9+1RdAP54SmMzc1nnglmfgl13ncaizPleu0p8541a51XCY
                qQMJbry47YkEnq48ImiAjEpkbaCZsZhX06uUpA9DlstEW/wBZzSCUoGsklbBolwT
                WAP97B7trizPe102hNvD5IMaXrMqaH9hQcoYmKyJHBQnxW2bXxYjeXvIDcAQvevL
                P8IIOLqdib029GFcM7U889FaBcO4cPxx4kITXC2hAvdiZwGuDVAz15Byl8RAfNWr
                lmv+IBRSQpAecnLYozJYyRNcFPrYLd9aXbej6p6sRCHgC452czoM0VbMmisrK8pm
                6yZ0J1r+
                -----END CERTIFICATE-----
                """),
        // EID-SK 2007 OCSP RESPONDER 2010, OCSP, 2009-12-01…2016-08-26, SHA-256 AC6CA5874F5F138FADE174401FA41D8DEF1B67D747E3299C83CCF4764C014C57
        Entry(
            role: .ocspResponder, name: "EID-SK 2007 OCSP RESPONDER 2010",
            sha256: "AC6CA5874F5F138FADE174401FA41D8DEF1B67D747E3299C83CCF4764C014C57",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIEMTCCAxmgAwIBAgIESxUA8TANBgkqhkiG9w0BAQUFADBqMQswCQYDVQQGEwJF
                RTEiMCAGA1UEChMZQVMgU2VydGlmaXRzZWVyaW1pc2tlc2t1czEhMB8GA1UECxMY
                U2VydGlmaXRzZWVyaW1pc3RlZW51c2VkMRQwEgYDVQQDEwtFSUQtU0sgMjAwNzAe
                Fw0wOTEyMDExMTQxMzBaFw0xNjA4MjYxMzIzMDBaMIGEMQswCQYDVQQGEwJFRTEi
                MCAGA1UEChMZQVMgU2VydGlmaXRzZWVyaW1pc2tlc2t1czENMAsGA1UECxMET0NT
                UDEoMCYGA1UEAxMfRUlELVNLIDIwMDcgT0NTUCBSRVNQT05ERVIgMjAxMDEYMBYG
                CSqGSIb3DQEJARYJcGtpQHNrLmVlMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIB
                CgKCAQEAso91KG7EHsjAxMairaCKUHSOyXp5rzxRq5Y9LfDyplVbHfh34fbB7M5G
                +wnu5CZgJsfJ7DF3MjpA7nlAHd5alAynIUl/CNXejf+XnJ/vyF1eQvAoWvnjBPVI
                S0mbaABgF54ybAGE2E7UKeZVOAj7RoQVAMHQcYVjxZW5OWz3yJX9KdaDZPOzqlGt
                RYKUASHiwAFwExKcqfaHOj0qO8+KdSvEBaVlpe5kunEVEvn+kgNKBtzdH2XFMjVF
                a4im31KW+iq7mNQwUiZDSe9ho6T6UrWu7g8yTQowx3SYLTqVxR0YVgcYNCx7nn1A
                VGNxK3oeonrHHqcBp6qSAIYXeQNfiQIDAQABo4HDMIHAMBMGA1UdJQQMMAoGCCsG
                AQUFBwMJMGkGA1UdIARiMGAwXgYKKwYBBAHOHwQBAjBQMCUGCCsGAQUFBwICMBka
                F1NLIHRpbWUgc3RhbXBpbmcgcG9saWN5MCcGCCsGAQUFBwIBFhtodHRwOi8vd3d3
                LnNrLmVlL2FqYXRlbXBlbC8wHwYDVR0jBBgwFoAUHAf0nL+kJWyztJ4iHx+USBtY
                eo0wHQYDVR0OBBYEFPBOCDPMR+kfp7Ozk5U68E68/AseMA0GCSqGSIb3DQEBBQUA
                A4IBAQCRaqmxZgJiJ+MLamb/P4vyS6azr6/tj8dZCK++V/3GnecRm7CiZpR47EnW
                0NyDzCecGyTWSkVlnZPnNvXRx700Nn0M4Inia5pNhSuVmWS3p5eV70vCbsfRD26+
                6CZhkHWnL/J2xpqeacULtgPPz9gBTyC2ybQr17dv7W5Qc+3UFywmE5N8ozQuEJro
                Gz7P+yCbBEssWcmIUNDNdO0xs6aQZ1f+DV4FUB0lajuILYFz4xM+81akYFVqaGPC
                VwbQgFSWRKmamj8FxfWjA4DCrgkHVR1rA3tZyirfCBK9cfWpTCLr8zq9Ur0jTAeG
                rHRzHlUrB9mYZwyr0kNOyl9293xh
                -----END CERTIFICATE-----
                """),
        // ESTEID-SK 2007 OCSP RESPONDER 2010, OCSP, 2009-12-01…2016-08-26, SHA-256 09CD0B7E887EFE7CDEE489F56AF06369984A33A1AADED71B69FD0BDE3D268A94
        Entry(
            role: .ocspResponder, name: "ESTEID-SK 2007 OCSP RESPONDER 2010",
            sha256: "09CD0B7E887EFE7CDEE489F56AF06369984A33A1AADED71B69FD0BDE3D268A94",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIEkjCCA3qgAwIBAgIESxUPmTANBgkqhkiG9w0BAQUFADBbMQswCQYDVQQGEwJF
                RTEiMCAGA1UEChMZQVMgU2VydGlmaXRzZWVyaW1pc2tlc2t1czEPMA0GA1UECxMG
                RVNURUlEMRcwFQYDVQQDEw5FU1RFSUQtU0sgMjAwNzAeFw0wOTEyMDExMjQ1MDBa
                Fw0xNjA4MjYxMzIzMDBaMIGHMQswCQYDVQQGEwJFRTEiMCAGA1UECgwZQVMgU2Vy
                dGlmaXRzZWVyaW1pc2tlc2t1czENMAsGA1UECwwET0NTUDErMCkGA1UEAwwiRVNU
                RUlELVNLIDIwMDcgT0NTUCBSRVNQT05ERVIgMjAxMDEYMBYGCSqGSIb3DQEJARYJ
                cGtpQHNrLmVlMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA48pyM/Qf
                eiU1Kbu4AdcAUKXBiwbYbBl4gCltZHC5fZ77fKj2mqfPX2/XW1EqzbVvG0PYIkap
                kQzBr3R1S6Uaxh1DLC2Cc8BRnqmhXoE03o8En7N9xpN9dGGDBHp2aElBcVVZnAvF
                4jgbPDCNFAeo3cvpjIx18n0URiVOZFEdxDvF8PFo/exKXtjRM+jk3K6+9doHYvSX
                n9klFbT8Wge87Qdll3gQzZE3L8QMXF0z4xbBH1lyTmVLt5yZ0fxoE0jNlZFvn2w2
                EDnU4CKfId8w6Zjd5kdxomcwDzGuuLzdiJllPt05USJcY4FHn9YAVKWmofYY/o6x
                OUzU8fAz6yA1tQIDAQABo4IBLzCCASswEwYDVR0lBAwwCgYIKwYBBQUHAwkwaQYD
                VR0gBGIwYDBeBgorBgEEAc4fBAECMFAwJQYIKwYBBQUHAgIwGRoXU0sgdGltZSBz
                dGFtcGluZyBwb2xpY3kwJwYIKwYBBQUHAgEWG2h0dHA6Ly93d3cuc2suZWUvYWph
                dGVtcGVsLzCBiQYDVR0jBIGBMH+AFEgG3r6Mh1eVgHhj+pwjKyugOhh1oWGkXzBd
                MRgwFgYJKoZIhvcNAQkBFglwa2lAc2suZWUxCzAJBgNVBAYTAkVFMSIwIAYDVQQK
                ExlBUyBTZXJ0aWZpdHNlZXJpbWlza2Vza3VzMRAwDgYDVQQDEwdKdXVyLVNLggRF
                m6ANMB0GA1UdDgQWBBQ4AhAwumZ6EXROIl5wZQXedXpOFDANBgkqhkiG9w0BAQUF
                AAOCAQEAJ/LvPUevNRcBp+J78fZRofhk/ifKNLxCUoh8T3MjtU9u5R0KojRlye+1
                NU8MqH/zrKhr6TPxuXD0cRrFQ9Hy60II7IzzaegrQVNgq7UgQINvCuNxWZcGtEa3
                ba9M7tBpQeFxqp3CpBytGeVuXn65hqOBKdp/zYEiMUUkYNAT5A6SSPYLAOgARCI/
                ydBx+cw0l0fwYvw72FKZa2Mlt5DmXBccCtrQ4l/sb95xfANCNe5n5sBvBhY4F+sI
                WZUVJ8fTVh7iGaVPSayQfeAAei0m/4/ksiXBwfx6qhzyB3yqcnSk489oBrrCegua
                /t+3LizfHpNZvDphKMPuAZ4uheLfQA==
                -----END CERTIFICATE-----
                """),
        // KLASS3-SK 2010 OCSP RESPONDER, OCSP, 2010-04-08…2016-08-25, SHA-256 81D91B3BA712F33B837100521ED8DFF8FBEE3020B68538A3EE499FB55D1F62E9
        Entry(
            role: .ocspResponder, name: "KLASS3-SK 2010 OCSP RESPONDER",
            sha256: "81D91B3BA712F33B837100521ED8DFF8FBEE3020B68538A3EE499FB55D1F62E9",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIELzCCAxegAwIBAgICAMswDQYJKoZIhvcNAQEFBQAwbTELMAkGA1UEBhMCRUUx
                IjAgBgNVBAoTGUFTIFNlcnRpZml0c2VlcmltaXNrZXNrdXMxITAfBgNVBAsTGFNl
                cnRpZml0c2VlcmltaXN0ZWVudXNlZDEXMBUGA1UEAxMOS0xBU1MzLVNLIDIwMTAw
                HhcNMTAwNDA4MDgwMTMxWhcNMTYwODI1MjIwMDAwWjCBgjEYMBYGCSqGSIb3DQEJ
                ARYJcGtpQHNrLmVlMQswCQYDVQQGEwJFRTEiMCAGA1UEChMZQVMgU2VydGlmaXRz
                ZWVyaW1pc2tlc2t1czENMAsGA1UECxMET0NTUDEmMCQGA1UEAxMdS0xBU1MzLVNL
                IDIwMTAgT0NTUCBSRVNQT05ERVIwggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEK
                AoIBAQDhWwGpngF0sdGCgOgiyT12A/Vdm9sMPr/cUwZhU7DA5C8rU1yJhbrh28fM
                pv0eas6/+IC1oDxI24zjfWIKfHwpBmhUTFsmvmKRIu4a1F6VwNwYEdoAZrQDpzZS
                ve6H6R/+0Uy0BAolebdhPUK22pKd8V1CBY3de886Ray8uUJu09MAU8j+xsoUNOzy
                xiWdAVp1YTXRhhUt+EQVYJ22RBZ6+b9fPQvgb9aWgE/WwqUh7OrgTnrGZVzgO46p
                rfE7zkALG0FYZCzQTCMH8aIqqte0E3HwSVlKh9qwbRPB9WTDCtCqajh4qgGRTXvW
                T4vATlHvx8GpJ3roZkp5AlQno3hTAgMBAAGjgcIwgb8waAYDVR0gBGEwXzBdBgor
                BgEEAc4fBAECME8wJQYIKwYBBQUHAgIwGRoXU0sgdGltZSBzdGFtcGluZyBwb2xp
                Y3kwJgYIKwYBBQUHAgEWGmh0dHA6Ly93d3cuc2suZWUvYWphdGVtcGVsMBMGA1Ud
                JQQMMAoGCCsGAQUFBwMJMB8GA1UdIwQYMBaAFF11FBGM9KWOQo97skBEo+7Wejty
                MB0GA1UdDgQWBBQ3MJkXG2Go/6j4bem465aue3P5qjANBgkqhkiG9w0BAQUFAAOC
                AQEAKhoVTII1ECecFkyt9Ogr0XW3WEFprrqTDE4IycMlx+LNjWk30aknMldEtzIC
                5nCDX27NCWkpbN1o/3ddBv0cKMa05ZK8sHQxU6A5Oev8DCp72/LFEChq5IDqgqW2
                BiHhyfPfr93JIuV03b/Wgq3fpRyBd21VE9254W4A90xeNxDvdpqxlrD2Lonzm/V/
                oomzEHsp4kKxXkPmRU4vGtTnxxAnxYp9OuLkvpUCLNoAWMbYqb4cbYzaZ9tQIkBy
                3nJ352Rs5obYDb3R/ZVWuYLLSocWL7b2QwlDP7LA8VNDqmQvioHt8GcyKXQ5/eWM
                vj2ePt58waVhwfSdd4nANKtq1g==
                -----END CERTIFICATE-----
                """),
        // SK OCSP RESPONDER 2011, OCSP, 2011-03-18…2024-03-18, SHA-256 50D62F373742287B5F18319E513C7BCA89BD78788B23DA356124CB90F9A636AF
        Entry(
            role: .ocspResponder, name: "SK OCSP RESPONDER 2011",
            sha256: "50D62F373742287B5F18319E513C7BCA89BD78788B23DA356124CB90F9A636AF",
            pem: """
                -----BEGIN CERTIFICATE-----
                MIIEvDCCA6SgAwIBAgIQcpyVmdruRVxNgzI3N/NZQTANBgkqhkiG9w0BAQUFADB1
                MQswCQYDVQQGEwJFRTEiMCAGA1UECgwZQVMgU2VydGlmaXRzZWVyaW1pc2tlc2t1
                czEoMCYGA1UEAwwfRUUgQ2VydGlmaWNhdGlvbiBDZW50cmUgUm9vdCBDQTEYMBYG
                CSqGSIb3DQEJARYJcGtpQHNrLmVlMB4XDTExMDMxODEwMjE0M1oXDTI0MDMxODEw
                MjE0M1owgZ0xCzAJBgNVBAYTAkVFMQ4wDAYDVQQIEwVIYXJqdTEQMA4GA1UEBxMH
                VGFsbGlubjEiMCAGA1UEChMZQVMgU2VydGlmaXRzZWVyaW1pc2tlc2t1czENMAsG
                A1UECxMET0NTUDEfMB0GA1UEAxMWU0sgT0NTUCBSRVNQT05ERVIgMjAxMTEYMBYG
                CSqGSIb3DQEJARYJcGtpQHNrLmVlMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIB
                CgKCAQEAihvGyhMVrgReHluKln1za6gvCE/mlSREmWjJFpL9llvuEUZoPFIypYA8
                g5u1VfgkeW5gDq25jAOq4FyXeDGIa+pJn2h0o2Wc2aeppVG/emfGm/jA8jjeyMrw
                H8fAJrqVQ7c9X2xSwJEch/P2d8CfMZt5YF6gqLtPvG1b+n6otBZA5wjIFfJ/inJB
                MUvqHSz3+PLfxO2/T3Wyk/c8M9HIMqTelqyiMGRgWehiU1OsL9armv3dQrHs1wm6
                vHaxfpfWB9YAFpeo9aYqhPCxVt/zo2NQB6vxyZS0hsOrXL7SxRToOJaqsnvlbf0e
                rPPFtRHUvbojYYgl+fzlz0Jt6QJoNwIDAQABo4IBHTCCARkwEwYDVR0lBAwwCgYI
                KwYBBQUHAwkwHQYDVR0OBBYEFKWhSGFt537NmJ50nCm7vYrecgxZMIGCBgNVHSAE
                ezB5MHcGCisGAQQBzh8EAQIwaTA+BggrBgEFBQcCAjAyHjAAUwBLACAAdABpAG0A
                ZQAgAHMAdABhAG0AcABpAG4AZwAgAHAAbwBsAGkAYwB5AC4wJwYIKwYBBQUHAgEW
                G2h0dHBzOi8vd3d3LnNrLmVlL2FqYXRlbXBlbDAfBgNVHSMEGDAWgBQS8lo+6lYc
                v80GrPHxJcmpS9QUmTA9BgNVHR8ENjA0MDKgMKAuhixodHRwOi8vd3d3LnNrLmVl
                L3JlcG9zaXRvcnkvY3Jscy9lZWNjcmNhLmNybDANBgkqhkiG9w0BAQUFAAOCAQEA
                w2sKwvTHtYGtD8Jw9mNUuj/mWiBSBEBeY2LhW8V6tjBPAPp3s6iWOh0FbVR2LUyr
                qRwgT3fyWiGsiDm/6cIqM+IblLp/8ztfRQjquhW6XCD9SK02OQ9ZSdBwcmoAApZL
                GXQC34wdgmV/hLTTNxONnDACBKz9U+Dy9a4ZT4tpNkbH8jq/BMne8FzbvRt1bjpX
                BP7gjLX+zdx8/hp0Wq4tD+f9NVX0+vm9ahEKuzx4QzPnSB7hhWM9OnLZT7noRQa+
                KWk5c+e5VoR5R2t7MjVl8Cd+2llxiSxqMSbU5/23BzAKgN+NQdrBZAzpZ7lfaAuL
                FaICP+bAm6uW2JUrM6abOw==
                -----END CERTIFICATE-----
                """),
    ]
}
