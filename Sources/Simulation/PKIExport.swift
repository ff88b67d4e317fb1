import Foundation
import PKI

/// Writes a scenario's PKI to a directory, in the forms apps, curl and Wireshark take.
public enum PKIExport {
    /// Returns the paths written. Keys and the `.p12` are 0600; every file is written atomically.
    public static func write(_ scenario: Scenario, to directory: String) throws -> [String] {
        try write(scenario, world: World(scenario.world, clock: scenario.clock), to: directory)
    }

    /// Writes `world`, already built for `scenario` (the lab exports the certificates its servers use).
    public static func write(_ scenario: Scenario, world: World, to directory: String) throws -> [String] {
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
        for (id, identity) in world.identities {
            try identity.certificate.write(to: path("\(id).pem"))
            try identity.certificate.write(to: path("\(id).cer"))
            try identity.privateKey.write(to: path("\(id).key"))
            pins.append("\(identity.certificate.publicKeyPin)  \(id)")
        }
        if let client = world.clientIdentity, let bundle = world.clientPKCS12, let spec = scenario.world.clientIdentity {
            try client.certificate.write(to: path("\(spec.id).pem"))
            try client.privateKey.write(to: path("\(spec.id).key"))
            try client.writePKCS12(to: path("\(spec.id).p12"), password: bundle.password)
            pins.append("\(client.certificate.publicKeyPin)  \(spec.id) (.p12 password: \(bundle.password))")
        }
        let chain = [scenario.server.leaf] + scenario.server.chain
        try Certificate.writeBundle(chain.compactMap { world.identity($0)?.certificate }, to: path("server-chain.pem"))
        try Data((pins.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path("pins.txt")), options: .atomic)
        return written
    }
}
