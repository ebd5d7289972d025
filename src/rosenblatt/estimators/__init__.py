"""The classifiers and transformers: the perceptrons (primal and kernel), the baselines,
calibration and text features; thin over the engine."""
