"""The evaluation: run protocols, presets and baselines on labelled cases (`harness`), score each
verdict against the case's expected answer (`scoring`), compute the figures per method (`summary`)
and write the report files (`report`)."""
