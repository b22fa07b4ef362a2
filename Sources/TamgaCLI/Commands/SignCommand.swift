import ASiC
import FoundationEssentials
import Glibc
import TamgaCore

/// `tamga sign CONTAINER --with key:FILE | card[:READER]`
struct SignCommand: Command {
    static let path = ["sign"]
    static let abstract = "Adds a XAdES signature over every data file of a container."
    static let usage =
        "CONTAINER [FILE...] --with key:FILE|card[:READER]|pkcs11[:LABEL][:ID]|threshold[:ACCOUNT]|mobile-id:PHONE:ID|smart-id:CC:ID [--module PATH] [--profile B|T|LT|LTA] [--tsa URL] [--cert CERT.pem] [--pin-file FILE] [options] [--json]"
    static let help = """
        With FILE arguments, CONTAINER is created from them and signed in the same pass (each file is
        read once); it must not exist unless --force is given. --media-type and --compression work as
        for container create.
        Signers:
          --with key:FILE        a private key file: PEM or DER PKCS#8 (encrypted or not, with the
                                 certificate given by --cert or in the same PEM), or PKCS#12 (.p12)
          --with card[:READER]   the ID card in a PC/SC reader (EstEID IDEMIA/Thales, FinEID): its
                                 signing certificate, PIN2 asked once after the card says how many
                                 tries are left (or typed on the reader's PIN pad). With several
                                 cards present, name the reader (tamga readers) or pick at the prompt.
          --with pkcs11[:LABEL][:KEY-ID]  a key on a PKCS#11 token (tamga tokens lists them): the token
                                 by label (or the only one), the key by its CKA_ID in hex (or the only
                                 certificate, or the only nonRepudiation one); the PIN asked once per
                                 session, and once per signature for keys that demand it
          --module PATH          with pkcs11: this PKCS#11 library instead of the p11-kit registered ones
          --with threshold[:ACCOUNT]  the split key enrolled on this device (tamga threshold enroll)
          --with mobile-id:PHONE:ID   Mobile-ID: the phone number (+372…) and national identity number
          --with smart-id:CC:ID       Smart-ID: the country (EE, LV, LT) and identity code; the person
                                 confirms the certificate choice, then the signature, in the app.
                                 Both print the verification code before the phone is asked.
        \(RemoteOptions.help)
        Profile (default LT, the lowest level DigiDoc accepts):
          --profile B|T|LT|LTA B: signature only; T: + time-stamp; LT: + issuer certificate and OCSP;
                               LTA: + archive time-stamp. A TSA or OCSP failure writes nothing.
        \(LongTermOptions.help)
        Secrets (asked once, never retried): --pin-file FILE, else $TAMGA_PIN, else a prompt with echo off.
        Signed properties:
          --role TEXT            a claimed signer role (repeatable)
          --city, --street, --state, --postal-code, --country TEXT    the production place
          --signing-certificate v1|v2   SigningCertificate (v1) or SigningCertificateV2 (default v2,
                                 ETSI EN 319 132-1 baseline; both verify with DigiDoc)
          --digest sha256|sha384|sha512 the hash of the data-file references (default sha256)
          --rsa-pss              sign with RSA-PSS instead of PKCS#1 v1.5 (RSA keys)
        The container is rewritten atomically, only after the new signature has been checked against
        the certificate and its time-stamp and OCSP response have been received and checked.
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--rsa-pss", "--force"])
    static let options: Set<String> = Set([
        "--with", "--module", "--cert", "--pin-file", "--role", "--city", "--street", "--state",
        "--postal-code", "--country", "--signing-certificate", "--digest",
    ])
    .union(DataFileOptions.options).union(LongTermOptions.options).union(["--profile"]).union(RemoteOptions.options)

    let container: String
    let newFiles: [String]
    let fileOptions: DataFileOptions
    let longTerm: LongTermOptions
    let force: Bool
    let signer: SignerSpecification
    let certificatePath: String?
    let pinFile: String?
    let options: SignatureOptions
    let pss: Bool
    let module: String?
    let remote: RemoteOptions
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard let first = arguments.positionals.first else { throw UsageError("give the container to sign") }
        container = first
        newFiles = Array(arguments.positionals.dropFirst())
        fileOptions = try DataFileOptions(arguments)
        longTerm = try LongTermOptions(arguments)
        force = arguments.has("--force")
        guard let with = arguments.value("--with") else {
            throw UsageError("say which signer with --with key:FILE or --with card")
        }
        signer = try SignerSpecification(with)
        certificatePath = arguments.value("--cert")
        pinFile = arguments.value("--pin-file")
        var options = SignatureOptions()
        options.profile = try SignatureProfile(argument: arguments.value("--profile") ?? "LT")
        options.roles = arguments.all("--role")
        let place = SignatureOptions.ProductionPlace(
            city: arguments.value("--city"), streetAddress: arguments.value("--street"),
            stateOrProvince: arguments.value("--state"), postalCode: arguments.value("--postal-code"),
            countryName: arguments.value("--country"))
        options.productionPlace = place
        if let form = arguments.value("--signing-certificate") {
            guard let reference = SignatureOptions.CertificateReference(rawValue: form) else {
                throw UsageError("--signing-certificate takes v1 or v2")
            }
            options.certificateReference = reference
        }
        if place.streetAddress != nil && options.certificateReference == .v1 {
            throw UsageError("--street needs the v2 form (SignatureProductionPlaceV2)")
        }
        if let digest = arguments.value("--digest") {
            guard let choice = TamgaDigestChoice(rawValue: digest) else {
                throw UsageError("--digest takes sha256, sha384 or sha512")
            }
            options.referenceDigest = choice
        }
        self.options = options
        pss = arguments.has("--rsa-pss")
        module = arguments.value("--module")
        if module != nil, case .pkcs11 = signer {
        } else if module != nil {
            throw UsageError("--module goes with --with pkcs11")
        }
        remote = try RemoteOptions(arguments)
        global = GlobalOptions(arguments)
        try Self.refuseOptionsThatDoNotApply(to: signer, arguments)
    }

    /// Every option that cannot apply to the chosen signer is refused, not ignored: a person who
    /// gave it meant something by it (an ignored --rsa-pss with an EC key signed ECDSA, exit 0).
    static func refuseOptionsThatDoNotApply(to signer: SignerSpecification, _ arguments: ParsedArguments) throws {
        let remoteSigner: Bool
        switch signer {
        case .mobileID, .smartID: remoteSigner = true
        default: remoteSigner = false
        }
        if !remoteSigner,
            let given = RemoteOptions.options.sorted().first(where: {
                arguments.value($0) != nil || !arguments.all($0).isEmpty
            })
        {
            throw UsageError("\(given) goes with --with mobile-id or smart-id")
        }
        if arguments.value("--cert") != nil, case .keyFile = signer {
        } else if arguments.value("--cert") != nil {
            throw UsageError(
                "--cert goes with --with key:FILE (a card, token, split key or mobile signer brings its own certificate)"
            )
        }
        if remoteSigner, arguments.value("--pin-file") != nil {
            throw UsageError("--pin-file does not apply to Mobile-ID or Smart-ID: the PIN is typed on the phone")
        }
        if arguments.has("--rsa-pss") {
            switch signer {
            case .card, .threshold, .mobileID:
                throw UsageError("--rsa-pss applies to RSA keys only; this signer's key is EC (leave --rsa-pss out)")
            default: break
            }
        }
    }

    struct Outcome: Encodable {
        let container: String
        let signatureFile: String
        /// The full RFC 4514 subject; `signerName` as a person reads it.
        let signer: String
        let signerName: String
        let algorithm: String
        let profile: String
        let dataFiles: [String]
        /// Seconds per phase (prepare, sign, timeStamp, ocsp, write).
        let phases: SigningPhases?
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        // One run at a time per container, from reading it to renaming the signed one into place:
        // otherwise two runs both read the old container and the later rename drops a signature.
        let lock = try context.lockContainer(container)
        defer { withExtendedLifetime(lock) {} }
        // Open (or assemble) first: a bad container or file is reported before anyone is asked for a password.
        let opened: Container
        if newFiles.isEmpty {
            opened = try Container(openingAt: container)
        } else {
            if FileManager.default.fileExists(atPath: container) && !force {
                throw ContainerError.alreadyExists(container)
            }
            opened = Container(creatingAt: container)
            try fileOptions.add(newFiles, to: opened)
        }
        // A DDOC is read-only: say so before anything about time-stamps or PINs.
        if opened.kind == .ddoc { throw ContainerError.ddocReadOnly }
        opened.progress = context.terminal.progress(quiet: global.quiet)
        let secrets = SecretInput(pinFile: pinFile, environment: context.environment)
        var services = try longTerm.services(environment: context.environment)
        if options.profile > .B && services.timeStamping == nil {  // say so before asking for a password
            throw UsageError(
                "\(options.profile.withArticle) signature needs a time-stamping authority: give --tsa URL or set "
                    + "\(LongTermOptions.environmentTSA) (or choose --profile B)")
        }
        // --module, else the configuration's pkcs11Module (else p11-kit's registered modules).
        var module = self.module
        if module == nil, case .pkcs11 = self.signer {
            module = try Configuration.load(environment: context.environment).pkcs11Module
        }
        let signer = try await self.signer.makeSigner(
            certificatePath: certificatePath, secrets: secrets, pss: pss, terminal: context.terminal,
            module: module, remote: remote)
        // An option that cannot apply to this signer is refused, not ignored:
        // --rsa-pss on an EC key would otherwise sign ECDSA and exit 0.
        if pss, !signer.algorithm.isRSAPSS {
            throw UsageError(
                "--rsa-pss applies to RSA keys only; this signer's key signs \(signer.algorithm) (leave --rsa-pss out)")
        }
        services.issuerCandidates += (signer as? SoftwareSigner)?.chain ?? []
        let file = try await opened.sign(with: signer, options: options, services: services)
        let certificate = try await signer.certificate()
        let outcome = Outcome(
            container: container, signatureFile: file, signer: certificate.subject,
            signerName: DistinguishedName.readableName(rfc4514: certificate.subject),
            algorithm: signer.algorithm.description, profile: options.profile.rawValue,
            dataFiles: opened.dataFiles.map(\.name), phases: opened.lastSigningPhases)
        if global.json {
            context.terminal.json(outcome)
        } else {
            context.terminal.line(TamgaCommandLine.printable("Signed \(container) as \(outcome.signerName)"))
            context.terminal.line(
                TamgaCommandLine.printable(
                    "  \(outcome.algorithm), profile \(outcome.profile); signature written to \(file); \(outcome.dataFiles.count) data file(s) covered"
                ))
            // verify asks for LT by default: say so now rather than let the next command surprise.
            if options.profile < .LT, !global.quiet {
                context.terminal.error(
                    "tamga: note: \(options.profile.withArticle)-level signature; `tamga verify` requires LT unless given --min-profile \(options.profile.rawValue)"
                )
            }
        }
        return .success
    }
}
