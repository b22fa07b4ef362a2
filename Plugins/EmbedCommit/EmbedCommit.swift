import Foundation
import PackagePlugin

/// Writes `BuildCommit.swift` (the commit `tamga --version` shows) before every build of the
/// target that uses it, by running `scripts/build-commit.sh`. A prebuild command, not a build
/// command: a commit changes no input file SwiftPM could watch, so it has to run each time; the
/// script rewrites the file only when its content changes, so an unchanged commit recompiles
/// nothing. Builds from a tarball without `.git` (or without git) get the commit from
/// `.tamga-commit` (a `git archive` export-subst file), else "unknown": they never fail here.
@main
struct EmbedCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
        let package = context.package.directoryURL
        return [
            .prebuildCommand(
                displayName: "Embedding the source commit in \(target.name)",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [package.appending(path: "scripts/build-commit.sh").path, package.path, output.path],
                outputFilesDirectory: output)
        ]
    }
}
