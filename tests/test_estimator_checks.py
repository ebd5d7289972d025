"""scikit-learn API compliance of the linear perceptrons."""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from rosenblatt import AveragedPerceptron, Perceptron, VotedPerceptron

# The two checks scikit-learn's own Perceptron is expected to fail: an integer
# sample weight is not the same as repeating the sample, because a repeated
# sample is presented (and can trigger an update) several times per epoch.
_NOT_REPETITION = "an online update with weight k differs from k presentations of the sample"
SAMPLE_WEIGHT_IS_NOT_REPETITION = {
    "check_sample_weight_equivalence_on_dense_data": _NOT_REPETITION,
    "check_sample_weight_equivalence_on_sparse_data": _NOT_REPETITION,
}


def expected_failures(estimator):
    # batch mode sums the epoch's updates, so weight k is exactly k repetitions
    if getattr(estimator, "mode", "online") == "batch":
        return {}
    return SAMPLE_WEIGHT_IS_NOT_REPETITION


@parametrize_with_checks(
    [
        Perceptron(),
        Perceptron(mode="batch"),
        Perceptron(multi_class="multinomial"),
        AveragedPerceptron(),
        VotedPerceptron(max_iter=50),
    ],
    expected_failed_checks=expected_failures,
)
# scikit-learn's checks fit on data that is not separable: the warning is the right answer
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_sklearn_compatible(estimator, check):
    check(estimator)
