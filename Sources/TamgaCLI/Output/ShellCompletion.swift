/// `tamga help --completion bash|zsh`: a completion script for the shell, made from the very
/// tables the commands are parsed with (their `path`, `flags` and `options`), so that it offers
/// every command and option tamga takes and none it refuses. `make install` and the .deb put
/// them where bash-completion and zsh look (`share/bash-completion/completions/tamga`,
/// `share/zsh/vendor-completions/_tamga`).
///
/// Commands and option names are completed; the value after an option that takes one, and any
/// other word, completes as a file name (most values are paths; the rest are short words the
/// help lists).
enum ShellCompletion {
    enum Shell: String, CaseIterable {
        case bash, zsh
    }

    /// One command line's words and what may follow them.
    struct Entry {
        let path: String
        let flags: [String]
        let options: [String]
    }

    static func entries(_ commands: [any Command.Type]) -> [Entry] {
        commands.map { command in
            Entry(
                path: command.path.joined(separator: " "), flags: (command.flags.union(["--help"])).sorted(),
                options: command.options.sorted())
        }
    }

    /// The first words, in the order the commands are listed, then `help`.
    static func firstWords(_ commands: [any Command.Type]) -> [String] {
        var words: [String] = []
        for command in commands where !words.contains(command.path[0]) { words.append(command.path[0]) }
        return words + ["help"]
    }

    /// Each group (a first word with subcommands) and its subcommands, in order.
    static func groups(_ commands: [any Command.Type]) -> [(group: String, subcommands: [String])] {
        var result: [(group: String, subcommands: [String])] = []
        for command in commands where command.path.count > 1 {
            if let index = result.firstIndex(where: { $0.group == command.path[0] }) {
                result[index].subcommands.append(command.path[1])
            } else {
                result.append((command.path[0], [command.path[1]]))
            }
        }
        return result
    }

    static func render(_ shell: Shell, commands: [any Command.Type]) -> String {
        switch shell {
        case .bash: return bash(commands)
        case .zsh: return zsh(commands)
        }
    }

    /// Words are tamga's own option and command names ([a-z0-9-]): nothing here needs quoting
    /// in either shell, which `words` checks so that a future name cannot break the script.
    static func words(_ list: [String]) -> String {
        list.filter { word in
            word.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        }
        .joined(separator: " ")
    }

    static func bash(_ commands: [any Command.Type]) -> String {
        var script = """
            # bash completion for tamga (made by `tamga help --completion bash`; do not edit).
            _tamga() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
                local first=${COMP_WORDS[1]} key flags='' options=''
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY=($(compgen -W '\(words(firstWords(commands)))' -- "$cur"))
                    return
                fi
                key=$first
                case $first in

            """
        for (group, subcommands) in groups(commands) {
            script += """
                        \(group))
                            if [ "$COMP_CWORD" -eq 2 ]; then
                                COMPREPLY=($(compgen -W '\(words(subcommands))' -- "$cur"))
                                return
                            fi
                            key="$first ${COMP_WORDS[2]}" ;;

                """
        }
        script += """
                    help)
                        COMPREPLY=($(compgen -W '\(words(firstWords(commands).filter { $0 != "help" } + ["--man", "--completion"]))' -- "$cur"))
                        return ;;
                esac
                case $key in

            """
        for entry in entries(commands) {
            script += """
                        '\(entry.path)') flags='\(words(entry.flags))' options='\(words(entry.options))' ;;

                """
        }
        script += """
                    *) return ;;
                esac
                local option
                for option in $options; do
                    if [ "$prev" = "$option" ]; then
                        compopt -o filenames 2>/dev/null
                        COMPREPLY=($(compgen -f -- "$cur"))
                        return
                    fi
                done
                if [[ $cur == -* ]]; then
                    COMPREPLY=($(compgen -W "$flags $options" -- "$cur"))
                else
                    compopt -o filenames 2>/dev/null
                    COMPREPLY=($(compgen -f -- "$cur"))
                fi
            }
            complete -F _tamga tamga

            """
        return script
    }

    static func zsh(_ commands: [any Command.Type]) -> String {
        var script = """
            #compdef tamga
            # zsh completion for tamga (made by `tamga help --completion zsh`; do not edit).
            _tamga() {
                local key=${words[2]}
                local -a flags options
                if (( CURRENT == 2 )); then
                    compadd -- \(words(firstWords(commands)))
                    return
                fi
                case ${words[2]} in

            """
        for (group, subcommands) in groups(commands) {
            script += """
                        \(group))
                            if (( CURRENT == 3 )); then
                                compadd -- \(words(subcommands))
                                return
                            fi
                            key="${words[2]} ${words[3]}" ;;

                """
        }
        script += """
                    help)
                        compadd -- \(words(firstWords(commands).filter { $0 != "help" } + ["--man", "--completion"]))
                        return ;;
                esac
                case $key in

            """
        for entry in entries(commands) {
            script += """
                        '\(entry.path)') flags=(\(words(entry.flags))) options=(\(words(entry.options))) ;;

                """
        }
        script += """
                    *) return 1 ;;
                esac
                if (( ${options[(Ie)${words[CURRENT-1]}]} )); then
                    _files
                elif [[ $PREFIX == -* ]]; then
                    compadd -- $flags $options
                else
                    _files
                fi
            }
            _tamga "$@"

            """
        return script
    }
}
