import LoopbackTLS

extension Lab {
    /// The most connections one client address may hold open at once, at the bank and at the attacker each: a
    /// browser opens about six to a server, a phone fewer, so a class never comes near it, and one device cannot
    /// take the threads the others need.
    public static let connectionsPerAddress = 64
    /// The most connections the bank and the attacker each hold open at once, from all addresses together: each
    /// holds a thread and descriptors.
    public static let connectionsInAll = 512

    /// The caps for one of the lab's servers. The bank does not cap `address`, the lab's own: every connection
    /// the attacker makes to it comes from there.
    static func limits(exempting address: ListenAddress?) -> ConnectionLimits {
        ConnectionLimits(perAddress: connectionsPerAddress, total: connectionsInAll, exempt: address)
    }

    /// The caps, in one line for the top of the log.
    public static var limitsSummary: String {
        "The bank, the attacker and the trust check each take at most \(connectionsPerAddress) connections at once from one address "
            + "(the bank not counting the lab's own, where the attacker connects from) and "
            + "\(connectionsInAll) in all; they close any more at once, and this log says so."
    }

    /// One line of the lab's log about `notice`, which `server` ("the bank", "the attacker") met.
    static func noticeText(_ notice: ListenerNotice, server: String) -> String {
        switch notice {
        case .acceptFailing(let reason, let retry):
            "\(server) cannot accept connections (\(reason)): new ones wait while it retries every \(retry) ms, "
                + "and are served once other connections end"
        case .acceptRecovered(let failures):
            "\(server) accepts connections again, after \(failures) failed \(failures == 1 ? "try" : "tries")"
        case .refusing(let peer, let limit):
            "\(server) refuses connections from \(peer): it holds \(limit) from there, the most one address may; further refusals are counted"
        case .refused(let peer, let count):
            "\(server) refused \(count) \(count == 1 ? "connection" : "connections") from \(peer), which is under its cap again"
        case .refusingOverTotal(let limit):
            "\(server) refuses new connections: it holds \(limit), the most it takes at once; further refusals are counted"
        case .refusedOverTotal(let count):
            "\(server) refused \(count) \(count == 1 ? "connection" : "connections") while it was full, and takes new ones again"
        }
    }
}
