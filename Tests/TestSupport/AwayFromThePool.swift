import Foundation
import Testing

/// Runs a suite's tests on a thread outside Swift Testing's pool, from the start of the run to their ends:
/// `@Suite(.awayFromThePool)`.
///
/// The pool has as many threads as cores (two on the machines that run the suite) and takes the tests up roughly module
/// by module, running each synchronous one to its end: the tests of `mitmsimTests` started after 80% of the run. A test
/// that mostly waits (for a lab in a child process, its timeouts, crowds of clients) then started only once most of the
/// others had run, and went back into the pool's queue after each wait it awaited; the whole run ended with its waits.
/// Here the suite's tests are started on a queue of their own as soon as the run reaches the suite, which is before
/// any test runs, and every step of theirs, expectations included, runs there, still in the test's task: their waits
/// overlap the rest of the run.
public struct AwayFromThePool: SuiteTrait, TestScoping {
    /// The suite's tests are child tasks made in this scope: they inherit the preference for the queue.
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(QueueExecutor()) { try await function() }
    }
}

extension Trait where Self == AwayFromThePool {
    /// The suite's tests run on a thread outside Swift Testing's pool (`AwayFromThePool`).
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
