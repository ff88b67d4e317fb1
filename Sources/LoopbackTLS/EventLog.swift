import PKI

/// What travels one way on one TCP connection, counted in one unit.
///
/// Both ends of a connection name it the same way (by its connector and acceptor ports), so a send
/// counted by one party and a receive counted by the other meet in the same `Channel`.
struct Channel: Hashable, Sendable {
    enum Unit: Hashable, Sendable { case records, bytes, end }

    let connection: Int
    let fromConnector: Bool
    let unit: Unit
}

/// Collects the events of one run from every thread and merges them into one deterministic order.
///
/// Each thread records into its own `EventStream`. A recorded event remembers how much its thread had
/// received on every channel by then; the merge emits an event only once the sends it depends on are
/// out, and among the events that could go next it prefers the client, then the proxy, then the origin.
/// The result respects cause and effect and does not depend on how the threads were scheduled.
///
/// A log that keeps no events (a lab that runs all day shows its flows, never its events) holds only the
/// labels that name certificates: nothing per connection, so it does not grow with the connections.
public final class EventLog: Sendable {
    struct Entry {
        var event: NetworkEvent
        let requires: [Channel: Int]
        let sent: (channel: Channel, amount: Int)?
        /// A summary of a whole connection: emitted after everything else.
        var isFinal = false
    }

    private struct State {
        var streams: [(actor: NetworkEvent.Actor, entries: [Entry])] = []
        var connections: [Pair: Int] = [:]
        var receivers: [Channel: NetworkEvent.Actor] = [:]
        /// Who a send was meant for, where the sender knows (the proxy does): used when nobody read it.
        var intended: [Channel: NetworkEvent.Actor] = [:]
    }

    private struct Pair: Hashable { let connector: UInt16, acceptor: UInt16 }

    /// Nil when the log keeps no events.
    private let state: Locked<State>?
    private let labels = Locked<[[UInt8]: String]>([:])

    /// - Parameter keepsEvents: false for a log nobody reads the events of (see the type's documentation):
    ///   `events` is then always empty.
    public init(keepsEvents: Bool = true) {
        state = keepsEvents ? Locked(State()) : nil
    }

    /// False for a log that keeps no events: what would describe them is never computed (see `EventStream.record`).
    var keepsEvents: Bool { state != nil }

    /// Names certificates by the labels lessons use when they show up on the wire.
    public func register(_ certificates: [Certificate]) {
        labels.withLock { labels in
            for certificate in certificates where labels[certificate.der] == nil { labels[certificate.der] = certificate.label }
        }
    }

    /// The registered label for a DER certificate, else its common name.
    func label(for der: [UInt8]) -> String {
        if let label = labels.withLock({ $0[der] }) { return label }
        return (try? Certificate.parseAll(der, source: "wire").first?.label) ?? "unparseable certificate"
    }

    /// Our `Certificate` for an X509 OpenSSL handed over, under its registered label when there is one.
    func certificate(retaining x509: OpaquePointer) throws -> Certificate {
        let certificate = try Certificate(retaining: x509)
        return labels.withLock({ $0[certificate.der] }).map(certificate.relabeled) ?? certificate
    }

    func makeStream(_ actor: NetworkEvent.Actor) -> EventStream {
        let index =
            state?.withLock { state in
                state.streams.append((actor, []))
                return state.streams.count - 1
            } ?? 0
        return EventStream(actor: actor, index: index, log: self)
    }

    /// The id both ends use for the TCP connection between these ports (0 in a log that keeps no events).
    func connection(connector: UInt16, acceptor: UInt16) -> Int {
        state?.withLock { state in
            let pair = Pair(connector: connector, acceptor: acceptor)
            if let id = state.connections[pair] { return id }
            let id = state.connections.count + 1
            state.connections[pair] = id
            return id
        } ?? 0
    }

    /// The id of the TCP connection `socket` is one end of: the connector's end when `isConnector`.
    func connection(of socket: Socket, isConnector: Bool) -> Int {
        // A log that keeps no events names no connection: spare the two system calls that read the ports.
        guard keepsEvents else { return 0 }
        return isConnector
            ? connection(connector: socket.localPort, acceptor: socket.remotePort) : connection(connector: socket.remotePort, acceptor: socket.localPort)
    }

    /// Makes a relayed connection count as the one it relays (passthrough: the TLS peers are the ends).
    func alias(connector: UInt16, acceptor: UInt16, as id: Int) {
        state?.withLock { $0.connections[Pair(connector: connector, acceptor: acceptor)] = id }
    }

    func append(_ entry: Entry, to stream: Int) {
        state?.withLock { $0.streams[stream].entries.append(entry) }
    }

    func noteIntendedReceiver(_ actor: NetworkEvent.Actor, of channel: Channel) {
        state?.withLock { $0.intended[channel] = actor }
    }

    func noteReceiver(_ actor: NetworkEvent.Actor, of channel: Channel) {
        state?.withLock { state in
            if state.receivers[channel] == nil { state.receivers[channel] = actor }
        }
    }

    /// Every event so far, merged (see the type's documentation).
    public var events: [NetworkEvent] {
        guard let state else { return [] }
        let (streams, receivers, intended) = state.withLock { ($0.streams, $0.receivers, $0.intended) }
        let order = streams.indices.sorted { (streams[$0].actor, $0) < (streams[$1].actor, $1) }
        let channelsWithSenders = Set(streams.flatMap { $0.entries.compactMap { $0.sent?.channel } })
        var heads = [Int](repeating: 0, count: streams.count)
        var emitted: [Channel: Int] = [:]
        var merged: [NetworkEvent] = []

        func emit(_ stream: Int) {
            let entry = streams[stream].entries[heads[stream]]
            heads[stream] += 1
            if let sent = entry.sent { emitted[sent.channel, default: 0] += sent.amount }
            let peer = entry.sent.flatMap { receivers[$0.channel] ?? intended[$0.channel] }
            merged.append(NetworkEvent(entry.event.actor, entry.event.kind, to: peer))
        }

        // After an event, its own stream goes on while it can: a TLS flight stays together.
        var last: Int? = nil
        var progressed = true
        while progressed {
            progressed = false
            for stream in (last.map { [$0] } ?? []) + order where heads[stream] < streams[stream].entries.count {
                let entry = streams[stream].entries[heads[stream]]
                let ready =
                    !entry.isFinal
                    && entry.requires.allSatisfy { channel, amount in
                        !channelsWithSenders.contains(channel) || emitted[channel, default: 0] >= amount
                    }
                if ready {
                    emit(stream)
                    last = stream
                    progressed = true
                    break
                }
            }
        }
        // Left: summaries, and events waiting on a send nobody recorded (a real client such as curl).
        for stream in order { while heads[stream] < streams[stream].entries.count { emit(stream) } }
        return merged
    }

    /// The merged events, one per line.
    public var text: String { events.map(\.description).joined(separator: "\n") }
}

/// The events of one thread, with what that thread has received so far.
final class EventStream {
    let actor: NetworkEvent.Actor
    private let index: Int
    private let log: EventLog
    private var received: [Channel: Int] = [:]
    /// Constraints added by hand, for observations the stream cannot count itself (a relayed ClientHello).
    private var extra: [Channel: Int] = [:]

    init(actor: NetworkEvent.Actor, index: Int, log: EventLog) {
        self.actor = actor
        self.index = index
        self.log = log
    }

    var eventLog: EventLog { log }

    /// `kind` is worked out only when the log keeps events: a lab's log never pays for parsing what nobody reads.
    func record(_ kind: @autoclosure () -> NetworkEvent.Kind, sent: (channel: Channel, amount: Int)? = nil) {
        guard log.keepsEvents else { return }
        let requires = received.merging(extra) { max($0, $1) }
        log.append(EventLog.Entry(event: NetworkEvent(actor, kind()), requires: requires, sent: sent), to: index)
    }

    func noteReceived(_ channel: Channel, _ amount: Int) {
        guard log.keepsEvents else { return }
        if received.updateValue((received[channel] ?? 0) + amount, forKey: channel) == nil { log.noteReceiver(actor, of: channel) }
    }

    /// Records a summary that belongs after every other event of the run (a passthrough tally).
    func recordFinal(_ kind: NetworkEvent.Kind) {
        var entry = EventLog.Entry(event: NetworkEvent(actor, kind), requires: [:], sent: nil)
        entry.isFinal = true
        log.append(entry, to: index)
    }

    /// Makes later events wait until `amount` has been sent on `channel`.
    func require(_ channel: Channel, _ amount: Int) {
        extra[channel] = max(extra[channel] ?? 0, amount)
    }
}
