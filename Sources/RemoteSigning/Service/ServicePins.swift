import FoundationEssentials
import Glibc
import TamgaCore

/// The TLS trust tamga gives SK's service hosts by default. SK asks relying parties to pin the
/// services' certificates, but the leaf certificates it publishes are replaced every year, so a
/// build that shipped leaf pins alone would stop signing once a year. The hosts' chains are
/// pinned instead: for the Smart-ID hosts only the root their leaf chains to (DigiCert Global
/// Root G2, through "DigiCert Global G2 TLS RSA SHA256 2020 CA1") is trusted, plus the usual
/// name check. Operators add the published leaf certificates on top (`leafCertificates`, several
/// at once across a rotation); `--service-cert` replaces all of it.
public enum ServicePins {
    /// DigiCert Global Root G2 (the copy in Debian's ca-certificates, `mozilla/DigiCert_Global_Root_G2.crt`;
    /// SHA-256 CB3CCBB76031E5E0138F8DD39A23F9DE47FFC35E43C1144CEA27D46A5AB1CB5F, valid to 2038-01-15).
    static let digiCertGlobalRootG2PEM = """
        -----BEGIN CERTIFICATE-----
        MIIDjjCCAnagAwIBAgIQAzrx5qcRqaC7KGSxHQn65TANBgkqhkiG9w0BAQsFADBh
        MQswCQYDVQQGEwJVUzEVMBMGA1UEChMMRGlnaUNlcnQgSW5jMRkwFwYDVQQLExB3
        d3cuZGlnaWNlcnQuY29tMSAwHgYDVQQDExdEaWdpQ2VydCBHbG9iYWwgUm9vdCBH
        MjAeFw0xMzA4MDExMjAwMDBaFw0zODAxMTUxMjAwMDBaMGExCzAJBgNVBAYTAlVT
        MRUwEwYDVQQKEwxEaWdpQ2VydCBJbmMxGTAXBgNVBAsTEHd3dy5kaWdpY2VydC5j
        b20xIDAeBgNVBAMTF0RpZ2lDZXJ0IEdsb2JhbCBSb290IEcyMIIBIjANBgkqhkiG
        9w0BAQEFAAOCAQ8AMIIBCgKCAQEAuzfNNNx7a8myaJCtSnX/RrohCgiN9RlUyfuI
        2/Ou8jqJkTx65qsGGmvPrC3oXgkkRLpimn7Wo6h+4FR1IAWsULecYxpsMNzaHxmx
        1x7e/dfgy5SDN67sH0NO3Xss0r0upS/kqbitOtSZpLYl6ZtrAGCSYP9PIUkY92eQ
        q2EGnI/yuum06ZIya7XzV+hdG82MHauVBJVJ8zUtluNJbd134/tJS7SsVQepj5Wz
        tCO7TG1F8PapspUwtP1MVYwnSlcUfIKdzXOS0xZKBgyMUNGPHgm+F6HmIcr9g+UQ
        vIOlCsRnKPZzFBQ9RnbDhxSJITRNrw9FDKZJobq7nMWxM4MphQIDAQABo0IwQDAP
        BgNVHRMBAf8EBTADAQH/MA4GA1UdDwEB/wQEAwIBhjAdBgNVHQ4EFgQUTiJUIBiV
        5uNu5g/6+rkS7QYXjzkwDQYJKoZIhvcNAQELBQADggEBAGBnKJRvDkhj6zHd6mcY
        1Yl9PMWLSn/pvtsrF9+wX3N3KjITOYFnQoQj8kVnNeyIv/iPsGEMNKSuIEyExtv4
        NeF22d+mQrvHRAiGfzZ0JFrabA0UWTW98kndth/Jsw1HKj2ZL7tcu7XUIOGZX1NG
        Fdtom/DzMNU+MeKNhJ7jitralj41E6Vf8PlwUHBHQRFXGU7Aj64GxJUTFy8bJZ91
        8rGOmaFvE7FBcf6IKshPECBV1/MUReXgRPTqh5Uykw7+U0b6LJ3/iyK5S9kJRaTe
        pLiaWN0bfVKfjllDiIGknibVb63dDcY3fe0Dkhvld1927jyNxF1WW6LZZm6zNTfl
        MrY=
        -----END CERTIFICATE-----
        """

    /// The Smart-ID relying-party API hosts, live and demo.
    public static let smartIDHosts: Set<String> = ["rp-api.smart-id.com", "sid.demo.sk.ee"]

    /// The certificates a service host's TLS chain must end in by default; empty for any other
    /// host, which keeps the system's trust. The host is looked up in its canonical form
    /// (`HostName`: lower case, one trailing dot dropped), the form the connection resolves and
    /// checks the certificate against, so `rp-api.smart-id.com.` is pinned like
    /// `rp-api.smart-id.com`. Throws (fails closed, never widens to the system's trust) for a
    /// host that has no canonical form, or should the shipped certificate not parse.
    public static func anchors(forHost host: String) throws -> [Certificate] {
        guard let name = HostName.canonical(host) else {
            throw RemoteSigningError.badConfiguration(
                service: "TLS pins", detail: "the host \(TextLimits.quoted(host)) is not an ASCII host name")
        }
        guard smartIDHosts.contains(name) else { return [] }
        return [try Certificate(derOrPEM: Data(digiCertGlobalRootG2PEM.utf8))]
    }
}
