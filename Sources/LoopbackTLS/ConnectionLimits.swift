/// Caps on the connections a server handles at once, for one that anyone on a network can reach: past a cap,
/// a new connection is closed as soon as it is accepted, and the server's `ListenerNotice`s say so.
public struct ConnectionLimits: Sendable, Equatable {
    /// The most one client address may hold open.
    public var perAddress: Int
    /// The most all clients together may hold open: each open connection holds a thread.
    public var total: Int
    /// An address whose connections count toward `total` only: the server's own, which a proxy in the same
    /// process connects from.
    public var exempt: ListenAddress?

    public init(perAddress: Int, total: Int, exempt: ListenAddress? = nil) {
        self.perAddress = perAddress
        self.total = total
        self.exempt = exempt
    }

    /// The connections open under these limits, and the refusals not reported yet.
    ///
    /// The address `peer` is counted under: none when it is unknown or exempt.
    func capped(_ peer: ListenAddress?) -> ListenAddress? { peer == exempt ? nil : peer }

    /// Refusals are reported in episodes, so a flood cannot flood the log: the first refusal of an address
    /// (or of anyone, over the total) at once, then how many there were once that address (or the server)
    /// is back under its cap. An address has an episode only while it holds `perAddress` connections, so
    /// at most `total / perAddress` addresses are remembered.
    struct Tally {
        private var open: [ListenAddress: Int] = [:]
        private var total = 0
        /// Refusals in the current episode, by address; nil stands for "over the total".
        private var refusals: [ListenAddress?: Int] = [:]

        /// Counts a connection from `peer` in, or refuses it; a refusal that starts an episode comes with its notice.
        mutating func admit(_ peer: ListenAddress?, under limits: ConnectionLimits) -> (admitted: Bool, notice: ListenerNotice?) {
            let capped = limits.capped(peer)
            let refusedAs: ListenAddress?? =
                total >= limits.total ? .some(nil) : capped.flatMap { open[$0, default: 0] >= limits.perAddress ? .some($0) : nil }
            guard let refusedAs else {
                total += 1
                if let capped { open[capped, default: 0] += 1 }
                return (true, nil)
            }
            refusals[refusedAs, default: 0] += 1
            guard refusals[refusedAs] == 1 else { return (false, nil) }
            return (false, refusedAs.map { .refusing(peer: $0, limit: limits.perAddress) } ?? .refusingOverTotal(limit: limits.total))
        }

        /// Counts a connection from `peer` out; ends the episodes it brings back under a cap, with their notices.
        mutating func release(_ peer: ListenAddress?, under limits: ConnectionLimits) -> [ListenerNotice] {
            var notices: [ListenerNotice] = []
            total -= 1
            if total < limits.total, let count = refusals.removeValue(forKey: nil) { notices.append(.refusedOverTotal(count: count)) }
            if let capped = limits.capped(peer) {
                let left = open[capped, default: 1] - 1
                open[capped] = left == 0 ? nil : left
                if left < limits.perAddress, let count = refusals.removeValue(forKey: capped) { notices.append(.refused(peer: capped, count: count)) }
            }
            return notices
        }
    }
}
