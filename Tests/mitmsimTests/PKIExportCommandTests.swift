import Foundation
import Testing

/// `mitmsim pki export` writing into a directory: modes that do not depend on the umask, and all files or none.
struct PKIExportCommandTests {
    func temporaryDirectory() -> String { NSTemporaryDirectory() + "mitmsim-export-files-\(UUID().uuidString)" }

    func export(_ lesson: String, to directory: String) throws -> CommandLine.Result {
        try CommandLine.run(["pki", "export", lesson, "--out", directory, "--scenarios", ScenarioCommandTests.scenarios])
    }

    @Test func underUmask000KeysAre0600TheOtherFiles0644AndTheDirectoriesItCreates0755() throws {
        let base = temporaryDirectory()
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        // A relative path of one-letter names, as a user types it: "e" is made on the way to "e/x".
        let script = "umask 000; exec \"$0\" pki export 24-two-way-tls --out e/x --scenarios \"$1\""
        let result = try CommandLine.run(
            ["-c", script, CommandLine.binary.path, ScenarioCommandTests.scenarios], binary: URL(fileURLWithPath: "/bin/sh"),
            currentDirectory: URL(fileURLWithPath: base))
        #expect(result.status == 0, "\(result.standardError)")

        let directory = base + "/e/x"
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(files.contains("pins.txt") && files.contains("client.p12") && files.contains("client.key"))
        for file in files {
            let secret = file.hasSuffix(".key") || file.hasSuffix(".p12")
            #expect(try mode(directory + "/" + file) == (secret ? 0o600 : 0o644), "\(file)")
        }
        #expect(try mode(directory) == 0o755)
        #expect(try mode(base + "/e") == 0o755)
    }

    @Test func anExportThatCannotWriteOneFileExitsWith2InOneLineAndLeavesThePreviousExportAsItWas() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try export("02-forged-untrusted-ca", to: directory).status == 0)
        // Lesson 24 writes the same bank files plus a client identity; a directory stands where its .p12 goes.
        try FileManager.default.createDirectory(atPath: directory + "/client.p12/kept", withIntermediateDirectories: true)
        let previous = try contents(directory)

        let result = try export("24-two-way-tls", to: directory)
        #expect(result.status == 2)
        #expect(result.standardError == "mitmsim: \(directory)/client.p12: cannot be written (it is a directory)\n")
        #expect(result.standardOutput.isEmpty)
        #expect(try contents(directory) == previous, "every file of the previous export, byte for byte, and nothing else")
    }

    func mode(_ path: String) throws -> Int? {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
    }

    /// Every entry (files with their bytes, directories as empty) under `directory`, hidden ones included.
    func contents(_ directory: String) throws -> [String: Data] {
        var entries: [String: Data] = [:]
        for name in try FileManager.default.subpathsOfDirectory(atPath: directory) {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory)
            entries[name] = isDirectory.boolValue ? Data() : try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
        }
        return entries
    }
}
