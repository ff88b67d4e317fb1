import LoopbackTLS
import Policies

/// One worker's servers: an origin, a proxy per column, and a client per trust store, reused for every cell.
final class MatrixStage: Sendable {
    private let origin: OriginServer
    private let proxies: [Matrix.Column: InterceptingProxy]
    /// A client that trusts the device's store, and one whose user installed the attacker's CA.
    private let client: TLSClient, installedClient: TLSClient

    init(_ arena: MatrixArena, columns: [Matrix.Column]) throws {
        let staged = arena.staged
        let world = arena.world
        // A cell keeps its outcome, never the transcript: the logs keep no events, so no cell pays for wording them.
        let log = EventLog(keepsEvents: false)
        origin = try OriginServer(ScenarioRunner.originConfiguration(staged, world), log: log)
        var proxies: [Matrix.Column: InterceptingProxy] = [:]
        do {
            for column in columns {
                if let attack = try column.attack(in: staged).resolved(in: world, file: staged.file) {
                    proxies[column] = try InterceptingProxy(
                        attack: attack, routes: [staged.server.host: origin.port], log: log, factory: world.factory,
                        allowsWeakCryptography: staged.needsWeakCryptography)
                }
            }
            self.proxies = proxies
            func makeClient(_ world: World) throws -> TLSClient {
                try TLSClient(
                    host: staged.server.host, trustStore: world.deviceTrustStore, verifyDate: world.factory.now, platform: staged.client.platform,
                    identity: try ScenarioRunner.App(staged, world).identity, allowsWeakCryptography: staged.needsWeakCryptography)
            }
            client = try makeClient(world)
            installedClient = try makeClient(arena.installed)
        } catch {
            for proxy in proxies.values { proxy.stop() }
            origin.stop()
            throw error
        }
    }

    /// `scenario` (the staged one under `column`'s attack, see `Matrix.attacked`) with `app` deciding.
    func run(_ scenario: Scenario, _ column: Matrix.Column, app: ScenarioRunner.App) -> RunOutcome {
        let proxy = proxies[column]
        let flowsBefore = proxy?.flows.count ?? 0
        let requestsBefore = origin.requestsReceived.count
        let client = column.installsAttackerCA ? installedClient : client
        let exchanged = ScenarioRunner.exchange(scenario, app, client: client, port: proxy?.port ?? origin.port, log: EventLog(keepsEvents: false))
        let flows = proxy?.flows.dropFirst(flowsBefore) ?? []
        return RunOutcome(
            exchanged, attackerSawPlaintext: flows.contains(where: \.sawPlaintext), serverReceivedRequest: origin.requestsReceived.count > requestsBefore)
    }

    func stop() {
        for proxy in proxies.values { proxy.stop() }
        origin.stop()
    }
}
