"""The playground: a page where students watch the real library learn.

``rosenblatt playground`` serves it (:mod:`.server`); ``--export DIR`` writes a
static copy of a preset's runs (:mod:`.export`). Every number the page shows is
computed by the package (:mod:`.runs`): steps from :func:`rosenblatt.theory.trace.trace`
and :class:`rosenblatt.estimators.kernel.KernelPerceptron`, separability, margins and the
mistake bound from :mod:`rosenblatt.theory`. The page only moves a cursor
through the steps and draws them.
"""
