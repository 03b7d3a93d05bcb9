"""Known values for the study's error intervals and test."""
import math

import numpy as np
import pytest
from scipy.stats import chi2_contingency, norm

from linbandits.errors import UserError
from linbandits.studies.p1rage.stats import normal_ci, two_proportion_test, wilson_ci


# ------------------------------------------------------------------ normal_ci

def test_normal_ci_hand_value():
    # p = 0.1, n = 100: half width 1.96 * sqrt(0.09 / 100) = 1.96 * 0.03.
    low, high = normal_ci(10, 100)
    assert low == pytest.approx(0.1 - 0.0588)
    assert high == pytest.approx(0.1 + 0.0588)


def test_normal_ci_is_the_papers_population_std_formula():
    correct = np.array([1] * 37 + [0] * 13)  # 13 errors in 50 trials
    half = 1.96 * np.std(correct) / math.sqrt(correct.size)  # np.std: population std
    p = 1 - correct.mean()
    assert normal_ci(13, 50) == pytest.approx((p - half, p + half))


def test_normal_ci_clipped_and_degenerate_at_zero():
    assert normal_ci(0, 1000) == (0.0, 0.0)
    assert normal_ci(1000, 1000) == (1.0, 1.0)
    low, _ = normal_ci(1, 10)  # 0.1 - 1.96 * 0.0949 < 0
    assert low == 0.0


@pytest.mark.parametrize("errors,n", [(-1, 10), (11, 10), (0, 0), (1.5, 10)])
def test_bad_counts_are_rejected(errors, n):
    with pytest.raises(UserError):
        normal_ci(errors, n)


# ------------------------------------------------------------------ wilson_ci

def wilson_by_quadratic(k, n, z):
    """Wilson bounds as the roots of (k/n - p)^2 = z^2 p (1 - p) / n, solved by numpy."""
    p_hat, c = k / n, z * z / n
    roots = np.roots([1 + c, -(2 * p_hat + c), p_hat * p_hat])
    return tuple(sorted(float(np.real(r)) for r in roots))


@pytest.mark.parametrize("k,n", [(3, 10), (1, 20), (7, 7), (25, 1000), (500, 1000)])
def test_wilson_matches_quadratic_roots(k, n):
    assert wilson_ci(k, n) == pytest.approx(wilson_by_quadratic(k, n, 1.959964), abs=1e-12)


def test_wilson_zero_errors_textbook_value():
    # 0 of 10 with z = 1.96: upper bound z^2 / (n + z^2) = 3.8416 / 13.8416.
    low, high = wilson_ci(0, 10, z=1.96)
    assert low == pytest.approx(0.0, abs=1e-15)
    assert high == pytest.approx(3.8416 / 13.8416)
    assert high == pytest.approx(0.2775, abs=1e-4)


def test_wilson_contains_estimate_and_stays_in_unit_interval():
    for k in range(0, 21):
        low, high = wilson_ci(k, 20)
        assert 0.0 <= low <= k / 20 <= high <= 1.0


# ---------------------------------------------------------- two_proportion_test

def test_two_proportion_hand_value():
    # pooled 0.25, se = sqrt(0.25 * 0.75 * (1/100 + 1/100)) = sqrt(0.00375)
    z, p = two_proportion_test(30, 100, 20, 100)
    assert z == pytest.approx(0.1 / math.sqrt(0.00375))
    assert z == pytest.approx(1.632993, abs=1e-6)
    assert p == pytest.approx(2 * norm.sf(1.632993), abs=1e-6)


@pytest.mark.parametrize("e1,n1,e2,n2", [(30, 100, 20, 100), (5, 1000, 17, 1200), (0, 50, 4, 80)])
def test_two_sided_equals_uncorrected_chi_square(e1, n1, e2, n2):
    # The squared pooled z statistic is Pearson's chi-square on the 2 x 2 table.
    chi2, p_chi2, _, _ = chi2_contingency([[e1, n1 - e1], [e2, n2 - e2]], correction=False)
    z, p = two_proportion_test(e1, n1, e2, n2)
    assert z * z == pytest.approx(chi2)
    assert p == pytest.approx(p_chi2)


def test_one_sided_alternatives():
    z, p_greater = two_proportion_test(30, 100, 20, 100, "greater")
    _, p_less = two_proportion_test(30, 100, 20, 100, "less")
    _, p_two = two_proportion_test(30, 100, 20, 100)
    assert p_greater == pytest.approx(norm.sf(z))
    assert p_greater + p_less == pytest.approx(1.0)
    assert p_two == pytest.approx(2 * p_greater)


def test_no_information_when_both_all_zero_or_all_one():
    assert two_proportion_test(0, 1000, 0, 500) == (0.0, 1.0)
    assert two_proportion_test(10, 10, 20, 20, "greater") == (0.0, 1.0)


def test_unknown_alternative_rejected():
    with pytest.raises(UserError):
        two_proportion_test(1, 10, 2, 10, "bigger")
