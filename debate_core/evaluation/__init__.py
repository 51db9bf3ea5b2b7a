"""The evaluation: run protocols, presets and baselines on labelled cases (`harness`), score each
verdict against the case's expected answer (`scoring`) and write the report files (`report`)."""
