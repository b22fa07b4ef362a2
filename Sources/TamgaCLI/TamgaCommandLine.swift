public enum TamgaCommandLine { public static func main(_ a: [String]) async -> Int32 { 0 } }
