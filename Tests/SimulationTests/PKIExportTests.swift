import Foundation
import PKI
import Simulation
import Testing

/// `PKIExport` writes only inside the directory it is given, whatever ids a shared lesson file uses.
struct PKIExportTests {
    @Test func anIdThatWouldReachOutsideTheDirectoryIsRefusedAndNothingIsWritten() throws {
        let parent = NSTemporaryDirectory() + "mitmsim-export-id-\(UUID().uuidString)"
        let directory = parent + "/export"
        defer { try? FileManager.default.removeItem(atPath: parent) }
        var lesson = try ScenarioCatalog.builtIn.load("02-forged-untrusted-ca")
        lesson.world.authorities.append(AuthoritySpec(id: "../outside", name: "Outside"))

        let refusal = #expect(throws: PKIError.self) { try PKIExport.write(lesson, to: directory) }
        #expect("\(refusal.map { "\($0)" } ?? "")" == "\(directory)/../outside.pem: cannot be written (not a plain file name)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent) == ["export"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }
}
