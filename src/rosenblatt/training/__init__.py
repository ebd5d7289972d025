"""Training workflows: training that runs over time and outlives a process.

The layer between the model files (:mod:`rosenblatt.persistence`) and distributed
training (:mod:`rosenblatt.distributed`): it may use every layer below it, and only the
layers above use it.

- :mod:`.stream`: :func:`~rosenblatt.training.stream.fit_stream`, training an online
  estimator on a file chunk by chunk (a copy of it: the caller's estimator never changes);
- :mod:`.checkpoint`: its checkpoints, model files that also say where the run stood,
  and the :class:`~rosenblatt.training.checkpoint.CheckpointPlan` of one fit.

The public path of :func:`~rosenblatt.training.stream.fit_stream` is
``rosenblatt.fit_stream`` (and ``rosenblatt.streaming.fit_stream``).
"""
