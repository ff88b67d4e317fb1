import Foundation
import Testing

/// Where the lessons come from: the catalog built into the binary, wherever the binary is, unless
/// `--scenarios` or `$MITMSIM_SCENARIOS` names a directory; the working directory never decides.
struct LessonSourceTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let lessonFiles = ((try? FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("Scenarios").path)) ?? [])
        .filter { $0.hasSuffix(".yaml") }.sorted()

    /// An empty directory holding only the built binary (a hard link, else a copy), as a teacher hands it out.
    final class CopiedBinary {
        let directory: URL
        let binary: URL

        init() throws {
            directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("mitmsim-copied-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            binary = directory.appendingPathComponent("mitmsim")
            // A hard link where the file system allows it: the binary under another path, as a copy puts it, without
            // writing its 50 MB again for every test.
            do {
                try FileManager.default.linkItem(at: CommandLine.binary, to: binary)
            } catch {
                try FileManager.default.copyItem(at: CommandLine.binary, to: binary)
            }
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// A directory in the copy's folder holding one lesson from the repository, under another name.
        func lessonDirectory(_ name: String, holding lesson: String, as id: String) throws -> String {
            let path = directory.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: LessonSourceTests.repository.appendingPathComponent("Scenarios/\(lesson)"), to: path.appendingPathComponent("\(id).yaml"))
            return path.path
        }

        /// Runs the copy with the copy's folder as working directory and `$MITMSIM_SCENARIOS` unset unless given.
        func run(_ arguments: [String], scenariosVariable: String? = nil) throws -> CommandLine.Result {
            try CommandLine.run(arguments, binary: binary, currentDirectory: directory, environment: ["MITMSIM_SCENARIOS": scenariosVariable])
        }
    }

    static func firstLine(_ result: CommandLine.Result) -> String {
        String(result.standardOutput.split(separator: "\n").first ?? "")
    }

    static func listedIds(_ result: CommandLine.Result) -> [String] {
        result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("  ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    @Test func aCopiedBinaryListsTheWholeCatalogAndRunsEveryLessonWithNoScenariosInSight() throws {
        let copy = try CopiedBinary()
        let list = try copy.run(["list"])
        #expect(list.status == 0, "\(list.standardError)")
        #expect(Self.firstLine(list) == "\(Self.lessonFiles.count) lessons from the catalog built into mitmsim")
        #expect(Self.listedIds(list) == Self.lessonFiles.map { String($0.dropLast(".yaml".count)) })

        let all = try copy.run(["run", "--all"])
        #expect(all.status == 0, "\(all.standardError)")
        #expect(all.standardOutput.hasSuffix("\(Self.lessonFiles.count) passed, 0 failed\n"))
    }

    @Test func aStrayScenariosDirectoryInTheWorkingDirectoryIsIgnored() throws {
        let copy = try CopiedBinary()
        _ = try copy.lessonDirectory("Scenarios", holding: Self.lessonFiles[0], as: "99-stray")
        let list = try copy.run(["list"])
        #expect(Self.firstLine(list) == "\(Self.lessonFiles.count) lessons from the catalog built into mitmsim")
        #expect(!list.standardOutput.contains("99-stray"))
        #expect(try copy.run(["run", "99-stray"]).status == 2)
    }

    @Test func theEnvironmentVariableWinsOverTheCatalogAndTheOptionWinsOverBoth() throws {
        let copy = try CopiedBinary()
        let fromVariable = try copy.lessonDirectory("from-variable", holding: Self.lessonFiles[0], as: "98-from-variable")
        let fromOption = try copy.lessonDirectory("from-option", holding: Self.lessonFiles[0], as: "97-from-option")

        let variable = try copy.run(["list"], scenariosVariable: fromVariable)
        #expect(Self.firstLine(variable) == "1 lesson from $MITMSIM_SCENARIOS (\(fromVariable))")
        #expect(Self.listedIds(variable) == ["98-from-variable"])

        let option = try copy.run(["list", "--scenarios", fromOption], scenariosVariable: fromVariable)
        #expect(Self.firstLine(option) == "1 lesson from --scenarios \(fromOption)")
        #expect(Self.listedIds(option) == ["97-from-option"])
        #expect(try copy.run(["run", "97-from-option", "--scenarios", fromOption], scenariosVariable: fromVariable).status == 0)
    }

    @Test func aFilePathAlwaysLoadsThatFileWhateverTheSource() throws {
        let copy = try CopiedBinary()
        let elsewhere = try copy.lessonDirectory("elsewhere", holding: Self.lessonFiles[0], as: "96-by-path")
        let other = try copy.lessonDirectory("other", holding: Self.lessonFiles[1], as: "95-other")
        for path in ["elsewhere/96-by-path.yaml", elsewhere + "/96-by-path.yaml"] {
            #expect(try copy.run(["run", path]).status == 0, "\(path)")
            #expect(try copy.run(["run", path], scenariosVariable: other).status == 0, "\(path)")
        }
    }

    @Test func anUnknownIdNamesTheSourceInOneLineAndExitsTwo() throws {
        let result = try CopiedBinary().run(["run", "no-such-lesson"])
        #expect(result.status == 2)
        #expect(result.standardError == "mitmsim: the catalog built into mitmsim: no scenario 'no-such-lesson' (mitmsim list shows the ids)\n")
    }

    @Test func theScenariosHelpNamesNoBuildPath() throws {
        let help = try CopiedBinary().run(["list", "--help"])
        #expect(help.standardOutput.contains("--scenarios <dir>"))
        #expect(help.standardOutput.contains("built-in catalog"))
        #expect(!help.standardOutput.contains(Self.repository.path))
    }
}
