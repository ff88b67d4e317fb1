import LoopbackTLS
import PKI
import Policies

// The engine's own values that front ends lay out, named here so a front end needs only `Simulation`:
// it colours these by their cases and prints their texts, and never words anything itself.

/// A network happening of a run: who sent what to whom, with its sentence.
public typealias NetworkEvent = LoopbackTLS.NetworkEvent
/// One branch AFSecurityPolicy took, with its sentence.
public typealias TraceStep = Policies.TraceStep
/// AFNetworking's pinning modes, by their names.
public typealias SSLPinningMode = Policies.SSLPinningMode
/// How text from outside (files, certificates, network clients) is shown on a terminal, escaped one way everywhere.
public typealias TerminalText = PKI.TerminalText
