import Foundation

/// Accepts connections (on 127.0.0.1 unless told otherwise) and hands each at once to a thread of its own:
/// a worker that finished an earlier connection and waits for the next, else a new one.
///
/// Reusing threads spares each connection a thread's creation and, above all, a fresh allocator cache:
/// OpenSSL's certificate parsing allocates heavily, and a new thread pays for every first allocation.
/// At most `maximumIdle` workers wait, each for a while (`idleTimeout`), so a quiet listener keeps none.
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
        var stopping = false
    }

    static let maximumIdle = 8

    private let socket: Socket
    private let acceptThread: WorkerThread
    private let state = Locked(State())

    var port: UInt16 { socket.localPort }

    /// - Parameter idleTimeout: how long a worker waits for another connection before its thread ends.
    /// - Parameter handler: gets each connection with its number: 1, 2, … in the order they were accepted.
    init(address: ListenAddress = .loopback, port: UInt16, idleTimeout: TimeInterval = 10, handler: @escaping @Sendable (Socket, Int) -> Void) throws {
        let socket = try Socket.listen(address: address, port: port)
        self.socket = socket
        acceptThread = try WorkerThread { [state] in
            var accepted = 0
            while let connection = socket.accept() {
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
                    let thread = try WorkerThread { Self.work(worker, first: job, state: state, idleTimeout: idleTimeout, handler: handler) }
                    state.withLock { $0.threads[worker.id] = thread }
                } catch {
                    state.withLock { _ = $0.open.removeValue(forKey: connection.descriptor) }
                    connection.close()
                }
            }
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
    private static func work(_ worker: Worker, first: Job, state: Locked<State>, idleTimeout: TimeInterval, handler: @Sendable (Socket, Int) -> Void) {
        var job: Job? = first
        while let current = job {
            handler(current.socket, current.number)
            // Forget it before closing: the descriptor number may be reused at once.
            state.withLock { _ = $0.open.removeValue(forKey: current.socket.descriptor) }
            current.socket.close()
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
        socket.shutdown()
        acceptThread.join()
        let (idle, threads) = state.withLock { state in
            state.stopping = true
            for socket in state.open.values { socket.shutdown() }
            return (state.idle, Array(state.threads.values))
        }
        for worker in idle { worker.wake.signal() }
        for thread in threads { thread.join() }
        socket.close()
    }

    deinit { stop() }
}
