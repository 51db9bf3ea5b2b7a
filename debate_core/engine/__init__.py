"""The engine: runs the protocol spec it is given and writes what happens through an event sink.

`spec` (ProtocolSpec, StageSpec), `validation` (settings checked before anything is saved),
`runtime` (DebateRun: one step, concurrent stages, events), `run` (one debate, start to verdict),
`budget` (the token budget) and `convergence` (pure measures). It imports neither the protocol
registry nor the store: `jobs.debates` looks a protocol up by name and hands the spec over.
"""
