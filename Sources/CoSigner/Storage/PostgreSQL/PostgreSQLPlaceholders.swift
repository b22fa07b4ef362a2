/// The co-signer's statements are written with SQLite's `?` placeholders; PostgreSQL numbers
/// them (`$1`, `$2`, …). A `?` inside a string literal, a quoted identifier or a comment is
/// text, not a placeholder, and stays as it is.
enum PostgreSQLPlaceholders {
    static func rewrite(_ sql: String) -> String {
        enum Context { case code, string, identifier, lineComment, blockComment }
        var context = Context.code
        var output = ""
        output.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        var previous: Character = " "
        for character in sql {
            switch context {
            case .code:
                switch character {
                case "?":
                    number += 1
                    output += "$\(number)"
                    previous = " "
                    continue
                case "'": context = .string
                case "\"": context = .identifier
                case "-" where previous == "-": context = .lineComment
                case "*" where previous == "/":
                    // "/*/" does not close: the "*" that opened the comment is not its end.
                    context = .blockComment
                    output.append(character)
                    previous = " "
                    continue
                default: break
                }
            // A doubled quote inside a literal ('it''s') leaves and re-enters it: the same result.
            case .string: if character == "'" { context = .code }
            case .identifier: if character == "\"" { context = .code }
            case .lineComment: if character == "\n" { context = .code }
            case .blockComment:
                if character == "/" && previous == "*" {
                    context = .code
                    output.append(character)
                    previous = " "
                    continue
                }
            }
            output.append(character)
            previous = character
        }
        return output
    }
}
