// This directory is the lesson catalog and also the `ScenarioFiles` target, so that SwiftPM watches it:
// adding, removing or editing a lesson rebuilds mitmsim with it. The EmbedScenarios plugin
// (Plugins/EmbedScenarios) compiles every *.yaml here into `embeddedScenarioFiles`; this file holds no
// code because a target needs at least one Swift source.
