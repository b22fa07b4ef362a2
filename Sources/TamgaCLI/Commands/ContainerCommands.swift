import ASiC
import FoundationEssentials
import Glibc
import TamgaCore

/// `tamga container create OUT.asice FILE...`
struct ContainerCreateCommand: Command {
    static let path = ["container", "create"]
    static let abstract = "Packs files into a new, unsigned ASiC-E container."
    static let usage = "OUT.asice FILE... [--media-type TYPE] [--compression auto|store|deflate] [--force] [--json]"
    static let help = """
        Options:
        \(DataFileOptions.help)
          --force              replace OUT.asice if it exists
          --json               print the new container's listing as JSON
          --quiet, -q          no progress bar
        The file is written beside OUT.asice and renamed into place when complete.
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--force"])
    static let options: Set<String> = DataFileOptions.options

    let output: String
    let files: [String]
    let fileOptions: DataFileOptions
    let force: Bool
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count >= 2 else {
            throw UsageError("give the container to create and at least one file")
        }
        output = arguments.positionals[0]
        files = Array(arguments.positionals.dropFirst())
        fileOptions = try DataFileOptions(arguments)
        force = arguments.has("--force")
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        if FileManager.default.fileExists(atPath: output) && !force { throw ContainerError.alreadyExists(output) }
        let lock = try context.lockContainer(output)
        defer { withExtendedLifetime(lock) {} }
        let container = Container(creatingAt: output)
        container.progress = context.terminal.progress(quiet: global.quiet)
        try fileOptions.add(files, to: container)
        try container.save()
        try ContainerListCommand.show(Container(openingAt: output), context, json: global.json)
        return .success
    }
}

/// `tamga container add CONTAINER FILE...`
struct ContainerAddCommand: Command {
    static let path = ["container", "add"]
    static let abstract = "Adds data files to an unsigned container (refused once it is signed)."
    static let usage = "CONTAINER FILE... [--media-type TYPE] [--compression auto|store|deflate] [--json]"
    static let help = "Options: as for container create. The container is rewritten atomically."
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = DataFileOptions.options

    let container: String
    let files: [String]
    let fileOptions: DataFileOptions
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count >= 2 else { throw UsageError("give the container and at least one file") }
        container = arguments.positionals[0]
        files = Array(arguments.positionals.dropFirst())
        fileOptions = try DataFileOptions(arguments)
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let lock = try context.lockContainer(container)
        defer { withExtendedLifetime(lock) {} }
        let opened = try Container(openingAt: container)
        opened.progress = context.terminal.progress(quiet: global.quiet)
        try fileOptions.add(files, to: opened)
        try opened.save()
        try ContainerListCommand.show(opened, context, json: global.json)
        return .success
    }
}

/// `tamga container remove CONTAINER NAME...`
struct ContainerRemoveCommand: Command {
    static let path = ["container", "remove"]
    static let abstract = "Removes data files from an unsigned container; removing the last one deletes the container."
    static let usage = "CONTAINER NAME... [--json]"
    static let help = "Refused once the container holds a signature."
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = []

    let container: String
    let names: [String]
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count >= 2 else { throw UsageError("give the container and the data file name") }
        container = arguments.positionals[0]
        names = Array(arguments.positionals.dropFirst())
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let lock = try context.lockContainer(container)
        defer { withExtendedLifetime(lock) {} }
        let opened = try Container(openingAt: container)
        for name in names { try opened.removeDataFile(named: name) }
        switch try opened.save() {
        case .deleted:
            if global.json {
                struct Deleted: Encodable {
                    let container: String
                    let deleted: Bool
                }
                context.terminal.json(Deleted(container: container, deleted: true))
            } else {
                context.terminal.line("Removed the last data file; \(TerminalText.escaped(container)) was deleted.")
            }
        case .written:
            try ContainerListCommand.show(opened, context, json: global.json)
        }
        return .success
    }
}

/// `tamga container ls CONTAINER`
struct ContainerListCommand: Command {
    static let path = ["container", "ls"]
    static let abstract = "Lists a container's data files (name, size, media type) and signatures."
    static let usage = "CONTAINER [--verbose] [--json]"
    static let help = """
        Reads ASiC-E (.asice, .sce, .bdoc) and ASiC-S (.asics, .scs: one data object, signed by an
        RFC 3161 time-stamp token META-INF/timestamp.tst or by XAdES in META-INF/signatures.xml).
        For a time-stamp token the signature line shows the token's serial number, the TSA and
        genTime. Nothing is verified here; use tamga verify for a verdict. A signer is shown as a
        person reads the name (given name and surname, or the common name, and the personal code).
        Options:
          --verbose, -v   also each signer's full certificate subject (RFC 4514)
          --json          the listing as JSON (schema in docs/cli.md): "signer" the full subject,
                          "signerName" as shown
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--verbose", "-v"])
    static let options: Set<String> = []

    let container: String
    let verbose: Bool
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1 else { throw UsageError("give exactly one container") }
        container = arguments.positionals[0]
        verbose = arguments.has("--verbose") || arguments.has("-v")
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        try Self.show(Container(openingAt: container), context, json: global.json, verbose: verbose)
        return .success
    }

    struct Listing: Encodable {
        struct File: Encodable {
            let name: String
            let mediaType: String
            let size: UInt64
            let compressedSize: UInt64?
            let stored: Bool
        }
        let container: String
        /// "ASiC-E" or "ASiC-S".
        let type: String
        let signed: Bool
        let dataFiles: [File]
        let signatures: [Container.SignatureSummary]
        let warnings: [String]
    }

    static func show(_ container: Container, _ context: CommandContext, json: Bool, verbose: Bool = false) throws {
        let listing = Listing(
            container: container.path, type: container.kind.rawValue, signed: container.isSigned,
            dataFiles: container.dataFiles.map {
                .init(
                    name: $0.name, mediaType: $0.mediaType, size: $0.size,
                    compressedSize: $0.compressedSize, stored: $0.isStored)
            },
            signatures: container.signatureSummaries(), warnings: container.structureWarnings)
        if json {
            context.terminal.json(listing)
            return
        }
        // Names, media types, signer names and ids come from the container: a right-to-left
        // override or a C1 control in them must not rearrange or restyle what is printed.
        let e = TerminalText.escaped
        let t = context.terminal
        t.line(
            "\(e(listing.container)) (\(listing.type)): \(listing.dataFiles.count) data file(s), \(listing.signatures.count) signature(s)"
        )
        for file in listing.dataFiles {
            t.line(
                "  \(e(file.name))  \(ByteCount.format(file.size))  \(e(file.mediaType))\(file.stored ? "  (stored)" : "")"
            )
        }
        for signature in listing.signatures {
            let isToken = signature.file.hasSuffix(".tst")
            let what = isToken ? "time-stamp token \(e(signature.id ?? "?"))" : "signature \(e(signature.id ?? "?"))"
            let name = signature.signerName ?? signature.signer
            let signer = isToken ? "TSA \(e(name ?? "unknown"))" : e(name ?? "unknown signer")
            t.line("  \(what) in \(e(signature.file)): \(signer), \(e(signature.signingTime ?? "no time"))")
            if verbose, let subject = signature.signer { t.line(TamgaCommandLine.printable("    subject: \(subject)")) }
            if let roles = signature.claimedRoles { t.line("    roles: \(e(roles.joined(separator: "; ")))") }
            if let place = signature.productionPlace { t.line("    place: \(e(place))") }
        }
        for warning in listing.warnings { t.line("  warning: \(e(warning))") }
    }
}

/// `tamga container extract CONTAINER [NAME...] [--to DIR] [--force]`
struct ContainerExtractCommand: Command {
    static let path = ["container", "extract"]
    static let abstract = "Writes data files (all, or those named) into a folder."
    static let usage = "CONTAINER [NAME...] [--to DIR] [--force] [--json]"
    static let help = """
        Works on ASiC-E and ASiC-S containers (for an ASiC-S, its one data object; for DigiDoc's
        time-stamped archive x.asice.asics, that is the inner container x.asice).
        Options:
          --to DIR    the folder to write into (default: the current folder)
          --force     overwrite existing files (otherwise nothing is written if any exists)
        Names are checked when the container is opened and made safe for the file system here
        (control characters become "_", a leading "-" or a "." name gets "_" in front). Two data
        files that would land on one path (-x.txt and _-x.txt) are refused before anything is
        written. All or nothing: if any file fails (a corrupt entry, a full disk), what this
        extraction created is removed and replaced files keep their old content.
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--force"])
    static let options: Set<String> = ["--to"]

    let container: String
    let names: [String]
    let folder: String
    let force: Bool
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard let first = arguments.positionals.first else { throw UsageError("give the container") }
        container = first
        names = Array(arguments.positionals.dropFirst())
        folder = arguments.value("--to") ?? FileManager.default.currentDirectoryPath
        force = arguments.has("--force")
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let opened = try Container(openingAt: container)
        opened.progress = context.terminal.progress(quiet: global.quiet)
        let written = try opened.extract(names, to: folder, overwrite: force)
        if global.json {
            context.terminal.json(["extracted": written])
        } else {
            for path in written { context.terminal.line("extracted \(TerminalText.escaped(path))") }
        }
        return .success
    }
}

/// `tamga container timestamp IN OUT.asics --tsa URL`
struct ContainerTimestampCommand: Command {
    static let path = ["container", "timestamp"]
    static let abstract = "Time-stamps a whole container into an ASiC-S archive (IN as its one data object)."
    static let usage = "IN.asice OUT.asics [--tsa URL] [--timeout SECONDS] [--force] [--json]"
    static let help = """
        Writes the time-stamped archive of a container as DigiDoc does when a signature can no longer
        be extended (ETSI EN 319 162-1 §4.3/4.4): OUT.asics holds mimetype (stored, first), the
        bytes of IN unchanged as its only data object (named like IN), and META-INF/timestamp.tst,
        an RFC 3161 token over the SHA-256 of those bytes. IN is only read and must be a container
        tamga opens; its signatures are not judged (verify it separately). OUT is written beside
        its final path, checked, fsynced and renamed into place: a failure leaves no output.
        Options:
          --tsa URL            the RFC 3161 time-stamping authority (or $TAMGA_TSA_URL)
          --timeout SECONDS    per network request (default 20)
          --force              replace OUT if it exists
          --json               print the new container's listing as JSON
          --quiet, -q          no progress bar
        Exit codes: 0 written, 2 usage, 3 IN refused or OUT exists, 6 write failed, 7 TSA failed.
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--force"])
    static let options: Set<String> = ["--tsa", "--timeout"]

    let input: String
    let output: String
    let longTerm: LongTermOptions
    let force: Bool
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 2 else {
            throw UsageError("give the container to time-stamp and the .asics to write")
        }
        input = arguments.positionals[0]
        output = arguments.positionals[1]
        longTerm = try LongTermOptions(arguments)
        force = arguments.has("--force")
        global = GlobalOptions(arguments)
        if URL(fileURLWithPath: input).standardizedFileURL == URL(fileURLWithPath: output).standardizedFileURL {
            throw UsageError("the output would replace the input; give another path for OUT.asics")
        }
        // Readers (tamga's and DigiDoc's) open these names as ASiC-E whatever the mimetype says,
        // so an archive written under one could never be read back: refuse before the TSA is asked.
        let outputExtension = URL(fileURLWithPath: output).pathExtension.lowercased()
        if ["asice", "sce", "bdoc"].contains(outputExtension) {
            throw UsageError(
                "OUT is an ASiC-S archive, but a .\(outputExtension) name is always read as ASiC-E: name it .asics or .scs"
            )
        }
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        guard let client = try longTerm.services(environment: context.environment).timeStamping else {
            throw UsageError("give the time-stamping authority with --tsa URL (or $\(LongTermOptions.environmentTSA))")
        }
        let archive = try await Container.timeStampArchive(
            of: input, to: output, timeStamping: client, overwrite: force,
            progress: context.terminal.progress(quiet: global.quiet))
        try ContainerListCommand.show(archive, context, json: global.json)
        return .success
    }
}
