import Foundation
import PKI

/// Writes a scenario's PKI to a directory, in the forms apps, curl and Wireshark take.
public enum PKIExport {
    /// Returns the paths written. Keys and the `.p12` are 0600; every file is written atomically.
    public static func write(_ scenario: Scenario, to directory: String) throws -> [String] {
        try write(World(scenario), to: directory)
    }

    /// Writes `world`, already built (the lab exports the certificates its servers use).
    public static func write(_ world: World, to directory: String) throws -> [String] {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw PKIError.cannotWrite(path: directory, reason: "cannot create the directory")
        }
        var written: [String] = []
        func path(_ name: String) -> String {
            let full = directory + "/" + name
            written.append(full)
            return full
        }
        var pins: [String] = []
        for entry in world.entries {
            try entry.certificate.write(to: path("\(entry.id).pem"))
            try entry.certificate.write(to: path("\(entry.id).cer"))
            try entry.identity.privateKey.write(to: path("\(entry.id).key"))
            pins.append("\(entry.certificate.publicKeyPin)  \(entry.id)")
        }
        if let client = world.client {
            try client.identity.certificate.write(to: path("\(client.id).pem"))
            try client.identity.privateKey.write(to: path("\(client.id).key"))
            try client.identity.writePKCS12(to: path("\(client.id).p12"), password: client.password)
            pins.append("\(client.identity.certificate.publicKeyPin)  \(client.id) (.p12 password: \(client.password))")
        }
        try Certificate.writeBundle(world.server.chain, to: path("server-chain.pem"))
        try Data((pins.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path("pins.txt")), options: .atomic)
        return written
    }
}
