import Foundation

/// A joinable OS thread. Every thread a run starts is joined before the run returns, so a test can
/// count threads and descriptors before and after.
final class WorkerThread: Sendable {
    private let thread: pthread_t
    private let joined = Locked(false)

    init(_ body: @escaping @Sendable () -> Void) throws {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { raw in
                // Glibc's pthread_setname_np is not imported; a thread may rename itself through procfs.
                if let comm = fopen("/proc/thread-self/comm", "w") {
                    fputs(WorkerThread.name, comm)
                    fclose(comm)
                }
                // `raw` is the box passed to pthread_create just above, never nil.
                guard let raw else { return nil }
                Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
                return nil
            }, box)
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw NetworkError.socket(operation: "pthread_create", reason: String(cString: strerror(status)))
        }
        self.thread = thread
    }

    /// What `/proc/self/task/*/comm` shows for these threads, so a test can count them.
    static let name = "mitmsim-worker"

    /// Waits for the thread to finish; later calls return at once.
    func join() {
        let first = joined.withLock { done in
            defer { done = true }
            return !done
        }
        if first { pthread_join(thread, nil) }
    }

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}

/// A counting semaphore (POSIX), for a thread that waits to be handed work.
final class Semaphore: @unchecked Sendable {
    // @unchecked: sem_t is made for sharing between threads; the pointer itself never changes.
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init() { sem_init(semaphore, 0, 0) }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    func signal() { sem_post(semaphore) }

    /// False when `timeout` passed first.
    func wait(timeout: TimeInterval) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + Int((timeout - timeout.rounded(.down)) * 1e9)
        deadline.tv_sec += Int(timeout) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        while sem_timedwait(semaphore, &deadline) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }
}
