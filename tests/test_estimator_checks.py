"""scikit-learn API compliance of the linear perceptrons."""

import pytest
from conftest import SAMPLE_WEIGHT_IS_NOT_REPETITION
from sklearn.utils.estimator_checks import parametrize_with_checks

from rosenblatt import AveragedPerceptron, Perceptron, VotedPerceptron

# The two checks scikit-learn's own Perceptron is expected to fail: an integer
# sample weight is not the same as repeating the sample, because a repeated
# sample is presented (and can trigger an update) several times per epoch.


# check_class_weight_classifiers (class weights 1000 : 0.0001 on very noisy blobs, max_iter=1000,
# n_iter_no_change=20) wants 87 % of the test predictions in the heavy class. tol watches the
# weighted mistake fraction, so the Perceptron and the VotedPerceptron pass it; these two still
# stop by tol before the check is met, for reasons of their own (measured; tol=None passes):
SLOW_BATCH = {
    "check_class_weight_classifiers": (
        "one summed update per epoch: with 2 classes the weighted mistake fraction swings "
        "between 0.13 and 0.67 until epoch 88 and settles at 91, so 20 epochs without a "
        "better one stop it at 57 (50 % in the heavy class; 3 classes: 74 % at 28); its "
        "weights are exactly repetitions, so the plain rule on the repeated data stops there too"
    )
}
LAGGING_AVERAGE = {
    "check_class_weight_classifiers": (
        "with 2 classes the last weights settle at epoch 23 and tol stops 20 epochs later, "
        "but the average still holds the 22 epochs before: 80 % in the heavy class (87 % "
        "takes about 80 epochs); scikit-learn's own averaged perceptron, SGDClassifier("
        "loss='perceptron', average=True, learning_rate='constant', eta0=1, penalty=None), "
        "gets 78 %"
    )
}


def expected_failures(estimator):
    # batch mode sums the epoch's updates, so weight k is exactly k repetitions
    if getattr(estimator, "mode", "online") == "batch":
        return SLOW_BATCH
    if isinstance(estimator, AveragedPerceptron):
        return {**SAMPLE_WEIGHT_IS_NOT_REPETITION, **LAGGING_AVERAGE}
    return SAMPLE_WEIGHT_IS_NOT_REPETITION


@parametrize_with_checks(
    [
        Perceptron(),
        Perceptron(mode="batch"),
        Perceptron(multi_class="multinomial"),
        AveragedPerceptron(),
        VotedPerceptron(),
        VotedPerceptron(max_iter=50),
    ],
    expected_failed_checks=expected_failures,
)
# scikit-learn's checks fit on data that is not separable: the warning is the right answer
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_sklearn_compatible(estimator, check):
    check(estimator)
