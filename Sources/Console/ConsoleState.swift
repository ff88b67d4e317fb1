import Simulation

/// Everything the console shows, as a value: `update` changes it, `render` draws it, nothing else.
public struct ConsoleState: Sendable {
    public enum Screen: Sendable, Equatable { case picker, walkthrough, attacker, inspector, matrix, pins, lab, comparison }

    /// What the live lab shows: where it runs, the commands to paste, and each intercepted connection.
    public struct LabView: Sendable {
        public var title: String
        public var commands: [Lab.Command]
        /// Where devices check whether they trust the lab's CA, as a sentence; shown above the commands.
        public var trustCheck: String?
        /// The latest intercepted connections, as the lab keeps them.
        public var window = Lab.FlowWindow()
        /// Whether the commands to paste are shown instead of the connections (`c`).
        public var showsCommands = false
        /// The command shown first while they are (↑/↓ move it).
        public var commandCursor = 0

        public init(title: String, commands: [Lab.Command], trustCheck: String? = nil) {
            self.title = title
            self.commands = commands
            self.trustCheck = trustCheck
        }
    }

    /// The walkthrough's pane that ↑/↓/PgUp/PgDn move: the diagram's steps, the trace's steps, or the lesson's text.
    public enum Focus: Sendable, Equatable, CaseIterable { case diagram, trace, lesson }

    /// What Enter opened whole from the walkthrough: an event of the diagram or a step of the trace.
    public enum Opened: Sendable, Equatable {
        case event(Int)
        case traceStep(Int)
    }

    public var screen: Screen = .picker
    public var showHelp = false
    /// The help's first line shown.
    public var helpScroll = 0
    /// The terminal's size as last drawn: `update` bounds scrolling by what the screen shows.
    public var viewport = Size(columns: 80, rows: 24)
    public var lab: LabView?
    public let catalog: [Scenario]
    /// The picker's filter (typed after `/`) and the selected row among the filtered lessons.
    public var filter = ""
    public var filtering = false
    public var selection = 0
    /// The lesson being walked through, as edited (policy and attack changes apply to this copy).
    public var scenario: Scenario?
    /// The lesson as written, kept for `r` (reset) and to say what an edit changed from it.
    public var lesson: Scenario?
    public var report: RunReport?
    /// The event the walkthrough points at.
    public var step = 0
    public var focus = Focus.diagram
    /// The selected trace step; nil for the deciding step.
    public var traceCursor: Int?
    /// The lesson pane's first line shown.
    public var lessonScroll = 0
    /// The event or trace step shown whole over the walkthrough (its first line shown is `pageScroll`).
    public var opened: Opened?
    /// What the last edit changed and what the verdict became ("pinning mode none → certificate: …").
    public var change: String?
    /// What the last edit changed, without the verdict: all a class may see before it answers.
    public var changeBeforeVerdict: String?
    /// How the settings on screen differ from the lesson's, and what decides now; nil for the lesson as written.
    public var departure: LessonDeparture?
    /// A one-off remark on the last key (why it did nothing), cleared by the next key.
    public var note: String?
    /// Set by an edit until its re-run arrives.
    var pendingChange: String?
    public var matrix: Matrix?
    /// Why the last matrix could not be computed, shown instead of it.
    public var matrixFailure: String?
    public var matrixCursor = (row: 0, column: 0)
    /// Whether the matrix shows its legend (the short labels and symbols spelled out) under the rows.
    public var showsMatrixLegend = false
    /// Every client against the lesson's attack (as edited), for the comparison screen; nil until computed, and after an edit.
    public var comparison: Comparison?
    /// Why the last comparison could not be run, shown instead of it.
    public var comparisonFailure: String?
    /// The comparison's selected row, and whether its trace is open.
    public var comparisonCursor = 0
    public var showsComparisonTrace = false
    /// The first line shown of the page that scrolls: an opened event or trace step, what the attacker read,
    /// the certificate inspector or a client's trace. One at a time is on screen; opening one starts it at 0.
    public var pageScroll = 0
    public var pinCursor = 0
    /// Classroom mode: high contrast, double spacing, and predict-then-reveal.
    public let classroom: Bool
    public var awaitingPrediction = false
    public var score = (right: 0, asked: 0)
    /// The answer to the last prediction, shown with the verdict.
    public var predictionResult: String?

    public init(catalog: [Scenario], classroom: Bool = false) {
        self.catalog = catalog
        self.classroom = classroom
    }

    /// The picker's lessons after the filter (matched against what the list shows: id or, in classroom mode,
    /// number; title; group; and outside classroom mode, summary).
    public var filtered: [Scenario] {
        let needle = filter.lowercased()
        guard !needle.isEmpty else { return catalog }
        // In classroom mode ids and summaries are hidden (they state outcomes), so the filter must not match on them either.
        return catalog.filter { "\(name($0)) \($0.title) \($0.group) \(classroom ? "" : $0.summary)".lowercased().contains(needle) }
    }

    /// How the screen names a lesson: its id, or in classroom mode its number alone, since an id such as
    /// `38-afnetworking-2-5-1-accepts-self-signed` states the outcome the class is to predict. An id without
    /// a number gives the lesson's place in the catalog instead, so no two such lessons share a name.
    public func name(_ scenario: Scenario) -> String {
        guard classroom else { return scenario.id }
        let number = scenario.id.prefix { $0.isNumber }
        if !number.isEmpty { return "lesson \(number)" }
        return catalog.firstIndex { $0.id == scenario.id }.map { "lesson \($0 + 1)" } ?? scenario.title
    }

    /// Whether the lesson's answer may be on screen: always, except in classroom mode before the class answers.
    public var revealed: Bool { !awaitingPrediction }

    /// The part of the lesson's text to show now: the story before the class answers, the reveal after,
    /// and both outside classroom mode. After an edit, the story alone: the reveal explains the lesson's
    /// own settings and would contradict the run on screen.
    public var lessonText: String {
        guard let lesson = lesson ?? scenario else { return "" }
        if departure != nil { return lesson.lesson.story }
        if !classroom { return lesson.lessonText }
        return awaitingPrediction ? lesson.lesson.story : lesson.revealText
    }

    /// Index of the client's verdict in the event list: the step that decides.
    public var decidingStep: Int? {
        report?.events.firstIndex { if case .judged = $0.kind { true } else { false } }
    }

    /// Takes a finished run: the walkthrough starts over, an edit's change line gets its new verdict.
    public mutating func show(_ report: RunReport) {
        let previous = self.report?.verdict
        self.report = report
        scenario = report.scenario
        if lesson == nil { lesson = report.scenario }
        departure = lesson.flatMap { LessonDeparture(report, lesson: $0) }
        step = 0
        traceCursor = nil
        lessonScroll = 0
        opened = nil
        if let pendingChange {
            change = "\(pendingChange): \(report.verdict)" + (previous.map { $0 == report.verdict ? " (unchanged)" : " (was \($0))" } ?? "")
        } else {
            change = nil
        }
        changeBeforeVerdict = pendingChange
        pendingChange = nil
        predictionResult = nil
        awaitingPrediction = classroom && report.evaluation != nil
        if screen == .picker { screen = .walkthrough }
    }
}

/// What the app must do for `update`: work that takes time or leaves the pure state.
public enum Effect: Equatable, Sendable {
    /// Run `state.scenario` for real and hand the report to `state.show(_:)`.
    case run
    /// Compute the policy × attack matrix for `state.scenario`'s world into `state.matrix`.
    case computeMatrix
    /// Run `state.scenario`'s attack against every client of its comparison set into `state.comparison`.
    case computeComparison
    case quit
}
