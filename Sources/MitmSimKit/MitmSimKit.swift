// MitmSimKit is the library product for other packages' tests: a course's or an app team's suite loads a
// lesson (`ScenarioCatalog.builtIn.load("03-installed-attacker-ca")`, or a file path), runs it for real
// with `ScenarioRunner.run`, and checks the `RunReport`. It re-exports the engine rather than wrapping it,
// so the API here is exactly the one mitmsim itself uses.
@_exported import Simulation
