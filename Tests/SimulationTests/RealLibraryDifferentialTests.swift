import Foundation
import LoopbackTLS
import PKI
import Policies
import Simulation
import TestSupport
import Testing

/// The `okhttp` and `curl` models against the real libraries, on generated worlds: each world's server runs on
/// 127.0.0.1 presenting its chain, the real client connects with the world's anchors and pins, and its verdict
/// (and where it refused) must be the model's. `Scripts/differential/run.sh` runs more worlds (Docs/peers.md §13).
struct RealLibraryDifferentialTests {
    /// How many worlds (`MITMSIM_DIFFERENTIAL_WORLDS`, 32 unless set, at most 400) and from which seed
    /// (`MITMSIM_DIFFERENTIAL_SEED`, 23 unless set).
    static let worldCount = min(400, max(1, Int(ProcessInfo.processInfo.environment["MITMSIM_DIFFERENTIAL_WORLDS"] ?? "") ?? 32))
    static let seed = UInt64(ProcessInfo.processInfo.environment["MITMSIM_DIFFERENTIAL_SEED"] ?? "") ?? 23

    static let javaClassPath = ["/usr/share/java/okhttp.jar", "/usr/share/java/okio.jar"]
    static let probeSource = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/differential/OkHttpProbe.java").path
    static let hasOkHttp =
        ["/usr/bin/java", "/usr/bin/javac"].allSatisfy(FileManager.default.isExecutableFile(atPath:))
        && javaClassPath.allSatisfy(FileManager.default.fileExists(atPath:))
    static let hasCurl = FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")

    /// The worlds, each with its server started, and a directory for their files; the servers stop at the end.
    static func withServers(_ body: ([(world: DifferentialWorld, port: UInt16, directory: String)]) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mitmsim-differential-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let now = Date()
        let worlds = try (0..<worldCount).map { try DifferentialWorld(seed: seed, index: $0, now: now) }
        let servers = try worlds.map { world in
            try OriginServer(.init(application: BankApp(host: world.host), identity: world.identity, chain: world.chain), log: EventLog(keepsEvents: false))
        }
        defer {
            for server in servers { server.stop() }
        }
        var running: [(world: DifferentialWorld, port: UInt16, directory: String)] = []
        for (world, server) in zip(worlds, servers) {
            let folder = "\(directory)/\(world.index)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Certificate.writeBundle(world.anchors, to: "\(folder)/anchors.pem")
            running.append((world, server.port, folder))
        }
        try body(running)
    }

    /// The model's trust decision for `world`, on the same chain, anchors and clock.
    static func connection(_ world: DifferentialWorld) -> PresentedConnection {
        let trust = ServerTrust(certificates: world.chain, deviceTrustStore: DeviceTrustStore(system: world.anchors), verifyDate: Date())
        return PresentedConnection(
            serverTrust: trust, negotiated: NegotiatedTLS(version: .tls13, cipherSuite: "TLS_AES_128_GCM_SHA256"), host: world.host,
            domain: world.host)
    }

    /// "accepted", or "refused-" and the step that refused, as the probe prints it.
    static func okHttpVerdict(_ evaluation: PolicyEvaluation) -> String {
        switch evaluation.decidingStep?.check {
        case _ where evaluation.isTrusted: "accepted"
        case .okHttpTrustManager?: "refused-trust-manager"
        case .okHttpHostnameVerifier?: "refused-hostname"
        default: "refused-pinner"
        }
    }

    @Test(
        "The okhttp model accepts and refuses as Debian's real OkHttp does, at the same step, on generated worlds",
        .enabled(if: hasOkHttp, "java, javac or Debian's libokhttp-java (/usr/share/java/okhttp.jar, okio.jar) is not installed"))
    func okHttp() throws {
        try Self.withServers { running in
            let root = running[0].directory + "/.."
            let classes = "\(root)/classes"
            let classPath = Self.javaClassPath.joined(separator: ":")
            let compiled = try Subprocess.run("/usr/bin/timeout", ["120", "/usr/bin/javac", "-d", classes, "-cp", classPath, Self.probeSource])
            try #require(compiled.status == 0, "javac: \(compiled.output)")
            let manifest = running.map { world, port, directory in
                ([String(world.index), String(port), world.host, "\(directory)/anchors.pem"]
                    + world.okHttpPins.map { "\($0.pattern) sha256/\($0.certificate.publicKeySHA256Base64)" }).joined(separator: "\t")
            }
            try Data(manifest.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: "\(root)/manifest.tsv"))
            let probe = try Subprocess.run(
                "/usr/bin/timeout", ["300", "/usr/bin/java", "-cp", "\(classes):\(classPath)", "OkHttpProbe", "\(root)/manifest.tsv"])
            var verdicts: [Int: String] = [:]
            for line in probe.output.split(separator: "\n") {
                let fields = line.split(separator: " ", maxSplits: 1)
                if fields.count == 2, let index = Int(fields[0]) { verdicts[index] = String(fields[1]) }
            }
            try #require(verdicts.count == running.count, "the probe answered \(verdicts.count) of \(running.count) worlds: \(probe.output)")
            for (world, _, _) in running {
                let client = OkHttpClient(
                    certificatePinner: CertificatePinner(
                        pins: world.okHttpPins.map { CertificatePinner.Pin(pattern: $0.pattern, certificate: $0.certificate) }),
                    trustManager: .certificates(world.anchors))
                let evaluation = client.evaluate(Self.connection(world))
                #expect(
                    verdicts[world.index] == Self.okHttpVerdict(evaluation),
                    "seed \(Self.seed), \(world.summary): real OkHttp \(verdicts[world.index] ?? "?"), model \(evaluation.steps.map(\.detail))")
            }
        }
    }

    /// "accepted", "chain" (exit 60, "SSL certificate problem"), "host" (exit 60 on the name) or "pin" (exit 90).
    static func curlVerdict(status: Int32, output: String) -> String {
        switch status {
        case 0: "accepted"
        case 90: "pin"
        case 60 where output.contains("SSL certificate problem") || output.contains("verify result"): "chain"
        case 60 where output.contains("subject name"): "host"
        default: "exit \(status): \(output)"
        }
    }

    @Test(
        "The curl model (7.88.1) exits as the installed curl does, failing on the same check, on generated worlds",
        .enabled(if: hasCurl, "curl is not installed"))
    func curl() throws {
        let installed = try Subprocess.run("/usr/bin/curl", ["--version"]).output
        try #require(installed.hasPrefix("curl 7.88."), "the curl model is 7.88.1; this machine has \(installed.prefix(40))")
        try Self.withServers { running in
            for (world, port, directory) in running {
                let pins = world.curlPins.map { "sha256//\($0.publicKeySHA256Base64)" }.joined(separator: ";")
                let arguments =
                    ["10", "/usr/bin/curl", "-sS", "-o", "/dev/null", "--max-time", "5", "--cacert", "\(directory)/anchors.pem"]
                    + ["--resolve", "\(world.host):\(port):127.0.0.1"] + (pins.isEmpty ? [] : ["--pinnedpubkey", pins])
                    + ["https://\(world.host):\(port)/"]
                let real = try Subprocess.run("/usr/bin/timeout", arguments)
                let client = CurlClient(options: CurlOptions(pinnedPublicKey: pins.isEmpty ? nil : .hashes(pins), caCertificates: world.anchors))
                let evaluation = client.evaluate(Self.connection(world))
                let model: String =
                    switch evaluation.decidingStep?.check {
                    case _ where evaluation.isTrusted: "accepted"
                    case .curlPinnedPublicKey?: "pin"
                    case .curlVerifyHost?: "host"
                    default: "chain"
                    }
                #expect(
                    Self.curlVerdict(status: real.status, output: real.output) == model,
                    "seed \(Self.seed), \(world.summary): real curl \(real.status) \(real.output), model \(evaluation.steps.map(\.detail))")
            }
        }
    }
}
