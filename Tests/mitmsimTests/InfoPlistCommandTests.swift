import Foundation
import Testing

/// A lesson whose Info.plist is broken stops `mitmsim run` with exit status 2 and one escaped line that names
/// the lesson, its `client.infoPlist` key, the plist file and the key path inside it.
struct InfoPlistCommandTests {
    @Test("A broken Info.plist beside a lesson is one escaped line on standard error, and exit status 2")
    func aBrokenInfoPlistIsOneLine() throws {
        let directory = NSTemporaryDirectory() + "mitmsim-plist-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lesson = try String(contentsOfFile: ScenarioCommandTests.scenarios + "/03-installed-attacker-ca.yaml", encoding: .utf8)
        #expect(lesson.contains("  library: afnetworking-4\n"))
        try lesson.replacingOccurrences(of: "  library: afnetworking-4\n", with: "  library: afnetworking-4\n  infoPlist: Info.plist\n")
            .write(toFile: directory + "/x.yaml", atomically: true, encoding: .utf8)
        let plist: [String: Any] = ["NSAppTransportSecurity": ["NSExceptionDomains": ["\u{1B}[2Jbank.test": [String: Any]()]]]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0).write(to: URL(fileURLWithPath: directory + "/Info.plist"))
        let result = try CommandLine.run(["run", directory + "/x.yaml"])
        #expect(result.status == 2)
        #expect(
            result.standardError
                == "mitmsim: \(directory)/x.yaml: client.infoPlist: \(directory)/Info.plist: NSAppTransportSecurity.NSExceptionDomains.\\e[2Jbank.test: "
                + "'\\e[2Jbank.test' is not a domain name (write the bare name: no scheme, port, path or wildcard; NSIncludesSubdomains covers subdomains)\n")
        #expect(result.standardOutput.isEmpty)
    }
}
