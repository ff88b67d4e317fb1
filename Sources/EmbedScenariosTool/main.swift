import Foundation

// EmbedScenariosTool OUTPUT.swift FILE.yaml...
//
// Writes one Swift source that holds the name and text of every given file, so the ScenarioFiles module
// (under Simulation) carries the lesson catalog itself: a copied binary needs neither the source tree nor a resource bundle.
// The EmbedScenarios plugin runs this at build time; nobody needs to run it by hand.

/// Stops the build with one line naming the file and what is wrong.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("EmbedScenariosTool: \(message)\n".utf8))
    exit(1)
}

/// A Swift string literal whose value is exactly `text`. Everything but printable ASCII is written as an
/// escape, so no content (quotes, backslashes, `#`, line breaks, combining marks) can end the literal early.
func literal(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": result += "\\\\"
        case "\"": result += "\\\""
        case "\n": result += "\\n"
        case " "..."~": result.unicodeScalars.append(scalar)
        default: result += "\\u{" + String(scalar.value, radix: 16) + "}"
        }
    }
    return result + "\""
}

let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else { fail("usage: EmbedScenariosTool OUTPUT.swift FILE.yaml...") }
let files = arguments.dropFirst().map { URL(fileURLWithPath: $0) }.sorted { $0.lastPathComponent < $1.lastPathComponent }

var source = """
    // Generated at build time by EmbedScenariosTool from Scenarios/*.yaml. Do not edit.

    /// The lesson files as they were when this module was built: file name and text, in file-name order.
    package let embeddedScenarioFiles: [(name: String, text: String)] = [

    """
for file in files {
    guard let data = FileManager.default.contents(atPath: file.path) else { fail("\(file.path): cannot be read") }
    guard let text = String(data: data, encoding: .utf8) else { fail("\(file.path): not UTF-8 text") }
    source += "    (\(literal(file.lastPathComponent)), \(literal(text))),\n"
}
source += "]\n"

do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
} catch {
    fail("\(output): \(error)")
}
