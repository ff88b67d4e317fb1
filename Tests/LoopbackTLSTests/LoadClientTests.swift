import Foundation
import Testing

@testable import LoopbackTLS

extension NetworkTests {
    /// The benchmark's external client: real connections, counted, and its one-line report read back.
    @Suite struct LoadClientTests {
        let world = NetworkWorld.shared

        @Test func itMakesExactlyTheConnectionsAskedForAndTheOriginAnswersEach() throws {
            let log = EventLog()
            let origin = try OriginServer(world.origin, log: log)
            defer { origin.stop() }

            let tally = try LoadClient.run(port: origin.port, host: "bank.test", connections: 12, seconds: 60, concurrency: 3)
            #expect(tally.connections == 12)
            #expect(tally.failures == 0)
            #expect(tally.medianMilliseconds > 0)
            #expect(tally.cpuSeconds > 0, "twelve client handshakes cost this process something")
            #expect(origin.requestsReceived == Array(repeating: "GET /", count: 12))
        }

        @Test func aConnectionWithoutAnAnswerIsAFailureNotAConnection() throws {
            let listener = try Listener(port: 0) { socket, _ in socket.finish() }  // accepts, then hangs up without TLS
            defer { listener.stop() }

            let tally = try LoadClient.run(port: listener.port, host: "bank.test", connections: 3, seconds: 0.3)
            #expect(tally.connections == 0)
            #expect(tally.failures > 0)
        }

        @Test func itsReportLineReadsBackAsTheSameTally() {
            let tally = LoadClient.Tally(connections: 1500, failures: 2, seconds: 5.25, medianMilliseconds: 2.5, cpuSeconds: 1.75)
            #expect(LoadClient.Tally(line: tally.line) == tally)
            #expect(LoadClient.Tally(line: "1500 2 5.25 2.5") == nil)
        }
    }
}
