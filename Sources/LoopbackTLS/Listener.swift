import Foundation

/// Accepts connections (on 127.0.0.1 unless told otherwise) and hands each at once to a thread of its own:
/// a worker that finished an earlier connection and waits for the next, else a new one.
///
/// Reusing threads spares each connection a thread's creation and, above all, a fresh allocator cache:
/// OpenSSL's certificate parsing allocates heavily, and a new thread pays for every first allocation.
/// At most `maximumIdle` workers wait, each for a while (`idleTimeout`), so a quiet listener keeps none.
///
/// With `ConnectionLimits`, a connection past a cap is closed as soon as it is accepted, so no client (and no
/// crowd of clients) can hold more than the caps' worth of threads. When the system runs out of descriptors or
/// memory, the listener waits `acceptBackoff` and tries again (connections wait in the kernel's queue
/// meanwhile), so it serves again as soon as something is freed; only `stop()` ends it. Both are reported to
/// `onNotice`, in episodes (see `ListenerNotice`).
///
/// `stop()` wakes every blocked thread (by shutting its socket down, or waking a waiting worker) and
/// joins them all, so when it returns no thread of this listener runs and no descriptor of it is open.
final class Listener: Sendable {
    /// An accepted connection and its number.
    private struct Job: Sendable {
        let socket: Socket
        let number: Int
    }

    /// One worker thread's identity and the semaphore it waits on between connections.
    private final class Worker: Sendable {
        let wake = Semaphore()
        var id: ObjectIdentifier { ObjectIdentifier(self) }
    }

    private struct State {
        /// Connections being handled, so `stop()` can wake their threads.
        var open: [Int32: Socket] = [:]
        /// Every worker thread not joined yet.
        var threads: [ObjectIdentifier: WorkerThread] = [:]
        /// Workers waiting for a connection.
        var idle: [Worker] = []
        /// A connection handed to a waiting worker, until it takes it.
        var jobs: [ObjectIdentifier: Job] = [:]
        /// Workers that will take no more connections: their threads return without taking the lock again.
        var exited: [ObjectIdentifier] = []
        /// What `limits` count; unused without them.
        var tally = ConnectionLimits.Tally()
        var stopping = false
    }

    static let maximumIdle = 8
    /// How long the accept loop waits after the system refused it a resource, before it tries again.
    static let acceptBackoff: TimeInterval = 0.1

    private let socket: Socket
    private let acceptThread: WorkerThread
    private let state = Locked(State())
    /// Signalled by `stop()`, to cut short the accept loop's wait after a failure.
    private let wake = Semaphore()

    var port: UInt16 { socket.localPort }

    /// - Parameter idleTimeout: how long a worker waits for another connection before its thread ends.
    /// - Parameter limits: caps on the connections handled at once (nil: none).
    /// - Parameter onNotice: told about refused connections and failing accepts, on the accepting thread or on
    ///   the thread of a connection that ends; must not block.
    /// - Parameter handler: gets each connection with its number: 1, 2, … in the order they were accepted.
    init(
        address: ListenAddress = .loopback, port: UInt16, idleTimeout: TimeInterval = 10, limits: ConnectionLimits? = nil,
        onNotice: (@Sendable (ListenerNotice) -> Void)? = nil, handler: @escaping @Sendable (Socket, Int) -> Void
    ) throws {
        let socket = try Socket.listen(address: address, port: port)
        self.socket = socket
        acceptThread = try WorkerThread { [state, wake] in
            var accepted = 0
            var failures = 0
            while let connection = Self.accept(socket, failures: &failures, wake: wake, state: state, onNotice: onNotice) {
                let admission = limits.map { limits in state.withLock { $0.tally.admit(connection.peer, under: limits) } }
                if let notice = admission?.notice { onNotice?(notice) }
                guard admission?.admitted ?? true else {
                    connection.close()
                    continue
                }
                accepted += 1
                let job = Job(socket: connection, number: accepted)
                let (waiting, finished) = state.withLock { state in
                    state.open[connection.descriptor] = connection
                    let waiting = state.idle.popLast()
                    if let waiting { state.jobs[waiting.id] = job }
                    return (waiting, Self.takeExited(&state))
                }
                // Joined outside the lock; each of these threads has returned or is returning without it.
                for thread in finished { thread.join() }
                if let waiting {
                    waiting.wake.signal()
                    continue
                }
                let worker = Worker()
                do {
                    let thread = try WorkerThread {
                        Self.work(worker, first: job, state: state, idleTimeout: idleTimeout, limits: limits, onNotice: onNotice, handler: handler)
                    }
                    state.withLock { $0.threads[worker.id] = thread }
                } catch {
                    let notices = Self.forget(connection, state: state, limits: limits)
                    connection.close()
                    for notice in notices { onNotice?(notice) }
                }
            }
        }
    }

    /// The next connection, or nil once the listener stops. While the system refuses a resource it waits
    /// `acceptBackoff` and tries again, counting the failures in `failures`, whose first and end it reports.
    private static func accept(
        _ socket: Socket, failures: inout Int, wake: Semaphore, state: Locked<State>, onNotice: (@Sendable (ListenerNotice) -> Void)?
    ) -> Socket? {
        while true {
            // Checked on every turn: out of descriptors, accept() fails even on a socket that was shut down.
            guard !state.withLock({ $0.stopping }) else { return nil }
            do {
                guard let connection = try socket.accept() else { return nil }
                if failures > 0 { onNotice?(.acceptRecovered(failures: failures)) }
                failures = 0
                return connection
            } catch {
                failures += 1
                if failures == 1 { onNotice?(.acceptFailing(reason: "\(error)", retryMilliseconds: Int(acceptBackoff * 1000))) }
                _ = wake.wait(timeout: acceptBackoff)
            }
        }
    }

    /// Removes a connection that ends from the state; returns the notices its end brings (a refusal episode over).
    private static func forget(_ connection: Socket, state: Locked<State>, limits: ConnectionLimits?) -> [ListenerNotice] {
        state.withLock { state in
            // Forget it before closing: the descriptor number may be reused at once.
            _ = state.open.removeValue(forKey: connection.descriptor)
            return limits.map { state.tally.release(connection.peer, under: $0) } ?? []
        }
    }

    /// The threads of exited workers, removed from the state; an exited worker whose thread is not
    /// registered yet (it exited before `WorkerThread.init` returned) stays for the next call.
    private static func takeExited(_ state: inout State) -> [WorkerThread] {
        var finished: [WorkerThread] = []
        state.exited.removeAll { id in
            guard let thread = state.threads.removeValue(forKey: id) else { return false }
            finished.append(thread)
            return true
        }
        return finished
    }

    /// A worker's life: its first connection, then each one it is handed while it waits, until it is not.
    private static func work(
        _ worker: Worker, first: Job, state: Locked<State>, idleTimeout: TimeInterval, limits: ConnectionLimits?,
        onNotice: (@Sendable (ListenerNotice) -> Void)?, handler: @Sendable (Socket, Int) -> Void
    ) {
        var job: Job? = first
        while let current = job {
            handler(current.socket, current.number)
            let notices = forget(current.socket, state: state, limits: limits)
            current.socket.close()
            for notice in notices { onNotice?(notice) }
            job = nextJob(for: worker, state: state, idleTimeout: idleTimeout)
        }
    }

    /// Waits (at most `idleTimeout`) for the next connection; nil when this worker should exit instead:
    /// enough workers wait already, the listener stops, or nobody came.
    private static func nextJob(for worker: Worker, state: Locked<State>, idleTimeout: TimeInterval) -> Job? {
        let waits = state.withLock { state in
            guard !state.stopping, state.idle.count < maximumIdle else {
                state.exited.append(worker.id)
                return false
            }
            state.idle.append(worker)
            return true
        }
        guard waits else { return nil }
        while true {
            let woken = worker.wake.wait(timeout: idleTimeout)
            // Decided under the lock, so a connection handed over just as the wait timed out is still taken.
            let next: Job?? = state.withLock { state in
                if let job = state.jobs.removeValue(forKey: worker.id) { return .some(job) }
                // Woken without a job: a wake-up left over from a hand-over that raced a timeout.
                if woken, !state.stopping { return nil }
                state.idle.removeAll { $0 === worker }
                state.exited.append(worker.id)
                return .some(nil)
            }
            if let next { return next }
        }
    }

    func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
        socket.shutdown()
        acceptThread.join()
        let (idle, threads) = state.withLock { state in
            for socket in state.open.values { socket.shutdown() }
            return (state.idle, Array(state.threads.values))
        }
        for worker in idle { worker.wake.signal() }
        for thread in threads { thread.join() }
        socket.close()
    }

    deinit { stop() }
}
