import Foundation
import LoopbackTLS
import PKI
import Policies
import Testing

extension NetworkTests {
    @Suite struct HygieneTests {
        let world = NetworkWorld.shared

        /// Inodes of the sockets this process has open.
        static func socketInodes() -> Set<String> {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return Set(
                fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
                    .filter { $0.hasPrefix("socket:[") }.map { String($0.dropFirst("socket:[".count).dropLast()) })
        }

        /// This process's open TCP sockets with an end on one of `ports`, by inode. Each descriptor is asked
        /// for its ends (getsockname, getpeername): /proc/net/tcp is no snapshot, and a machine with thousands
        /// of connections in TIME_WAIT can skip lines while it is read.
        static func openSockets(on ports: Set<UInt16>) -> Set<String> {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return Set(
                fds.compactMap(Int32.init).compactMap { fd -> String? in
                    let ends = [getsockname, getpeername].compactMap { query -> UInt16? in
                        var address = sockaddr_in()
                        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                        let status = withUnsafeMutablePointer(to: &address) {
                            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { query(fd, $0, &length) }
                        }
                        return status == 0 && address.sin_family == sa_family_t(AF_INET) ? UInt16(bigEndian: address.sin_port) : nil
                    }
                    guard ends.contains(where: ports.contains), let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"),
                        link.hasPrefix("socket:[")
                    else { return nil }
                    return String(link.dropFirst("socket:[".count).dropLast())
                })
        }

        /// Thread ids of mitmsim's worker threads alive now (other suites' included).
        static func workerThreads() -> Set<String> {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return Set(tasks.filter { (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?.hasPrefix("mitmsim-worker") == true })
        }

        /// Other suites' threads end when their tests do, so wait for them too (bounded: 30 s at most).
        static func eventually(_ condition: () -> Bool) -> Bool {
            for _ in 0..<1500 {
                if condition() { return true }
                usleep(20_000)
            }
            return condition()
        }

        @Test func twoHundredExchangesLeaveNoDescriptorOrThreadBehind() throws {
            let log = EventLog()
            let origin = try OriginServer(world.origin, log: log)
            let proxy = try InterceptingProxy(attack: .forge(authority: world.attackerCA), routes: ["bank.test": origin.port], log: log, factory: world.factory)
            let client = try TLSClient(
                host: "bank.test", trustStore: DeviceTrustStore(system: [world.root.certificate, world.attackerCA.certificate]), verifyDate: NetworkWorld.clock)
            var completed = 0
            for _ in 0..<200 {
                let result = client.exchange(.direct(port: proxy.port), request: NetworkWorld.login, log: EventLog()) { _, _ in
                    TLSClient.Judgement(accept: true, verdict: true, summary: "accepted")
                }
                if result.response != nil { completed += 1 }
            }
            let running = Self.workerThreads()
            #expect(!running.isEmpty)
            // Ours, by inode: the two listeners and anything an exchange left open. Once freed, a port
            // number may serve another suite's connection; an inode stays ours while it is open.
            let ours = Self.openSockets(on: [origin.port, proxy.port])
            #expect(ours.count >= 2)
            proxy.stop()
            origin.stop()

            #expect(completed == 200)
            // Ours are joined by stop(); threads of suites running alongside end on their own.
            #expect(Self.eventually { running.isDisjoint(with: Self.workerThreads()) })
            #expect(Self.eventually { Self.socketInodes().isDisjoint(with: ours) }, "left open: \(Self.socketInodes().intersection(ours).sorted())")
        }

        @Test func aPeerThatVanishesMidHandshakeIsAnEventNotAHang() throws {
            let log = EventLog()
            let origin = try OriginServer(world.origin, log: log)
            let proxy = try InterceptingProxy(attack: .forge(authority: world.attackerCA), routes: ["bank.test": origin.port], log: log, factory: world.factory)
            for port in [origin.port, proxy.port] {
                let socket = try RawClient(port: port)
                try socket.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03])  // half a ClientHello
                socket.close()
            }
            let vanished = { log.events.filter { if case .peerVanished = $0.kind { true } else { false } }.map(\.actor).sorted() }
            #expect(Self.eventually { vanished() == [.proxy, .origin] }, "\(log.text)")
            proxy.stop()
            origin.stop()
        }

        @Test func theKeyLogLetsWiresharkDecryptEveryVersion() throws {
            let path = NSTemporaryDirectory() + "mitmsim-keylog-\(UUID().uuidString).txt"
            defer { try? FileManager.default.removeItem(atPath: path) }
            let keyLog = try KeyLog(path: path)
            for version in TLSVersion.allCases {
                let log = EventLog()
                var configuration = world.origin
                configuration.versions = version...version
                configuration.allowsWeakCryptography = version < .tls12
                let origin = try OriginServer(configuration, log: log, keyLog: keyLog)
                let client = try TLSClient(
                    host: "bank.test", trustStore: DeviceTrustStore(system: [world.root.certificate]), verifyDate: NetworkWorld.clock,
                    allowsWeakCryptography: version < .tls12)
                _ = client.exchange(.direct(port: origin.port), request: NetworkWorld.login, log: log) { _, _ in
                    .init(accept: true, verdict: true, summary: "ok")
                }
                origin.stop()
            }
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix("CLIENT_HANDSHAKE_TRAFFIC_SECRET ") })
            #expect(lines.contains { $0.hasPrefix("CLIENT_RANDOM ") })
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }

        @Test func theSameExchangeAlwaysReadsTheSame() throws {
            for attack in [Attack.forge(authority: world.attackerCA), .passthrough, .replayRealChain] {
                let first = try Exchange(attack: attack).log.text
                for _ in 0..<15 {
                    #expect(try Exchange(attack: attack).log.text == first)
                }
            }
        }
    }
}

/// A bare TCP client, for peers that misbehave.
struct RawClient {
    let descriptor: Int32

    init(port: UInt16) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: INADDR_LOOPBACK.bigEndian)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    func send(_ bytes: [UInt8]) throws {
        guard Glibc.send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { throw POSIXError(.EPIPE) }
    }

    func close() { Glibc.close(descriptor) }
}
