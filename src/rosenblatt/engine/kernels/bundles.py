"""The typed bundles the compiled loops take, and the layouts of the primal loop.

Plain namedtuples, defined without numba so that the engine can build them (and
a program can import the estimators) before numba is loaded; the loops in
:mod:`.primal` and :mod:`.dual` document every field.
"""

from collections import namedtuple

# the primal loop (rosenblatt.engine.kernels.primal)
Rows = namedtuple("Rows", "X csr")
Targets = namedtuple("Targets", "target positive sample_weight")
Schedule = namedtuple("Schedule", "order stream lookahead")
Weights = namedtuple("Weights", "W w0 U U0 counts")
Record = namedtuple("Record", "n_rec sample coef time true pred activation")
Scratch = namedtuple("Scratch", "delta delta0 scores wrong_row step")
Rule = namedtuple("Rule", "eta bias_input batch average step C")
Tally = namedtuple("Tally", "mistakes mistake_weight presented_weight overflow")

# the epochs of a run in one call (rosenblatt.engine.kernels.primal.primal_epochs): where the
# orders come from, where the run stands, and what the stop rule (.stop_rule) watches
Draws = namedtuple("Draws", "order stream lookahead next_uint32 state")
Progress = namedtuple("Progress", "active trained best stale")
Limits = namedtuple("Limits", "tol patience unit_stops watch")

# The layouts, each of its own numba type, so that the compiler picks a layout's
# code by type (an int flag needed numba's literal dispatch, and that loop ran
# about 3x slower). The multinomial layout is None: numba drops the code of an
# `if layout is None` branch that cannot run before typing it, and typing both
# rules in every loop made each first compile about a second longer; a missing
# record (`record=None`) drops the recording code the same way.
Single = namedtuple("Single", "")
OneVsRest = namedtuple("OneVsRest", "")
SINGLE, ONE_VS_REST, MULTINOMIAL = Single(), OneVsRest(), None

# The step of the primal rule, by the code the loop knows it by: Rosenblatt's (a mistake,
# y a <= 0, moves the weights by eta), or the passive-aggressive family's (Crammer et al.
# 2006: a margin error, y a < 1, moves them just enough for the hinge loss, within C)
PERCEPTRON, PA, PA1, PA2 = 0, 1, 2, 3
STEPS = {"perceptron": PERCEPTRON, "pa": PA, "pa1": PA1, "pa2": PA2}

# the kernel functions of rosenblatt.engine.kernels.gram, by the code the loops know them by
LINEAR, POLY, RBF, SIGMOID = 0, 1, 2, 3
KINDS = {"linear": LINEAR, "poly": POLY, "rbf": RBF, "sigmoid": SIGMOID}

# the dual loop (rosenblatt.engine.kernels.dual)
Table = namedtuple("Table", "values slot_of row_of until")
Problems = namedtuple("Problems", "Y sample_weight")
Coefficients = namedtuple("Coefficients", "coef coef_acc sv n_sv n_seen")
Updates = namedtuple(
    "Updates",
    "mistakes mistake_weight presented_weight sample delta time n_upd activation history overflow",
)
DualRule = namedtuple("DualRule", "eta s2")
# how a dual problem keeps its support set within a budget (rosenblatt.engine.dual.Budget)
Budget = namedtuple("Budget", "policy size draws kinv proj forget_q errors threshold plus")
