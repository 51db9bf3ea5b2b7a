"""One module per protocol, `ui/protocols/<name>.py`, registering how its steps and its own view are
drawn (`ui.stages.step_renderer`, `ui.stages.protocol_view`). `ui.stages` imports a protocol's
module by name the first time it is asked for one of its renderers, so nothing is listed here."""
