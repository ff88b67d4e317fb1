import Foundation
import Testing

/// Runs a test on a thread outside Swift Testing's pool, from start to end: `@Test(.awayFromThePool)`.
///
/// The pool has as many threads as cores (two on the machines that run the suite) and runs the synchronous tests
/// to their ends one after another. A test that mostly waits (for a lab in a child process, for its timeouts, for
/// crowds of clients) and awaits its waits one by one (`offThePool`) went back into the pool's queue after each:
/// behind every synchronous test still queued, so its waits started only once most of the suite had run, and
/// the whole suite ended with them. Here the test's every step, its expectations included, runs on a queue
/// of its own, still in the test's task: its waits overlap the rest of the suite.
public struct AwayFromThePool: TestTrait, TestScoping {
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(QueueExecutor()) { try await function() }
    }
}

extension Trait where Self == AwayFromThePool {
    /// The test runs on a thread outside Swift Testing's pool (`AwayFromThePool`).
    public static var awayFromThePool: Self { AwayFromThePool() }
}

/// Runs each job of a task on a serial queue of its own; dispatch gives the queue a thread outside the pool.
private final class QueueExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "mitmsim-tests.away-from-the-pool")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
