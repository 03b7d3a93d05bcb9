"""The paper's instances against the published protocol (spec section C) and the registry's errors."""
import numpy as np
import pytest

from linbandits.errors import UserError
from linbandits.catalogue import build_instance, describe_instances, studies
from linbandits.problems import load_instance_file

FAMILIES = studies()["p1rage"].families

PUBLISHED_THETA_STAR = np.array([0, -0.01, -0.07, 0, 0.03, 0.025, 0, 0.06, -0.09, 0.01, 0.03])


# --- Multivariate -------------------------------------------------------------

def test_multivariate_theta_star_is_the_published_draw():
    inst = build_instance("multi_sto", {})
    np.testing.assert_array_equal(inst.meta["theta_star"], PUBLISHED_THETA_STAR)
    assert (inst.K, inst.d, inst.T, inst.noise_sd) == (16, 11, 10000, 0.3)
    assert inst.stationary
    assert inst.best_arm == 11
    assert inst.min_gap == pytest.approx(0.03, abs=1e-9)


def test_multivariate_arms_are_layout_features():
    X = build_instance("multi_sto", {"T": 5}).X
    assert np.linalg.matrix_rank(X) == 11
    np.testing.assert_array_equal(X[0], [1, -1, -1, -1, -1, 1, 1, 1, 1, 1, 1])
    # layout 11 = (1, -1, 1, 1): pairs (1,2),(1,3),(1,4),(2,3),(2,4),(3,4)
    np.testing.assert_array_equal(X[11], [1, 1, -1, 1, 1, -1, 1, 1, -1, -1, 1])


def test_multi_osci_scale_series_at_zero_scale_keeps_the_stationary_gap():
    inst = build_instance("multi_osci", {"series": "scale", "s": 0, "L": 900})
    assert inst.best_arm == 11
    assert inst.min_gap == pytest.approx(0.03, abs=1e-9)
    np.testing.assert_allclose(inst.thetas, np.tile(PUBLISHED_THETA_STAR, (10000, 1)))


def test_multi_osci_period_series_self_check_at_1800():
    inst = build_instance("multi_osci", {"series": "period", "L": 1800})
    assert inst.best_arm == 11
    assert inst.min_gap == pytest.approx(0.00144, rel=0.02)
    assert inst.name == "multi_osci[series=period,s=2,L=1800]"
    assert inst.meta["series"] == "period" and inst.meta["L"] == 1800


def test_multi_osci_is_reproducible_and_settings_differ():
    a = build_instance("multi_osci", {"s": 3})
    b = build_instance("multi_osci", {"s": "3"})
    c = build_instance("multi_osci", {"s": 4})
    np.testing.assert_array_equal(a.thetas, b.thetas)
    assert not np.array_equal(a.thetas, c.thetas)
    assert a.best_arm == c.best_arm == 11


def test_bernoulli_indicator_differs_from_published():
    published = build_instance("multi_osci", {"s": 3})
    bernoulli = build_instance("multi_osci", {"s": 3, "indicator": "bernoulli"})
    assert not np.array_equal(published.thetas, bernoulli.thetas)
    # coordinates whose drawn indicator is 0 stay at theta*
    still = np.array(bernoulli.meta["indicators"]) == 0
    np.testing.assert_allclose(bernoulli.thetas[:, still],
                               np.tile(PUBLISHED_THETA_STAR[still], (bernoulli.T, 1)))
    assert bernoulli.best_arm == 11


def test_uniform_theta_draw_differs_from_published():
    inst = build_instance("multi_sto", {"theta_draw": "uniform"})
    theta = np.array(inst.meta["theta_star"])
    assert not np.allclose(theta, PUBLISHED_THETA_STAR)
    assert np.all(np.abs(theta[:5]) <= 0.1)
    assert np.all(np.abs(theta[5:]) <= 0.05)       # 0.5 on every pairwise weight
    assert "theta_draw=uniform" in inst.name
    osci = build_instance("multi_osci", {"theta_draw": "uniform"})
    np.testing.assert_array_equal(osci.meta["theta_star"], theta)


# --- Soare and malicious ---------------------------------------------------------

def test_soare_stationary():
    inst = build_instance("soare_sto", {})
    assert (inst.K, inst.d, inst.T) == (11, 10, 1010)
    assert inst.best_arm == 0
    np.testing.assert_allclose(inst.X[-1], [np.cos(0.1), np.sin(0.1)] + [0] * 8)
    assert inst.min_gap == pytest.approx(2 - 2 * np.cos(0.1))


def test_soare_oscillating():
    inst = build_instance("soare_osci", {})
    assert (inst.K, inst.d, inst.T) == (11, 10, 10000)
    assert inst.best_arm == 9
    np.testing.assert_allclose(inst.X[-1, :2], [np.cos(0.5), np.sin(0.5)])
    t = 450                                           # a quarter period: sin = 1
    np.testing.assert_allclose(inst.thetas[t], [0.3] + [0] * 8 + [0.5 - 2.5])


@pytest.mark.parametrize("zero_round", [True, False])
def test_malicious_switch(zero_round):
    inst = build_instance("malicious", {"T": 300, "zero_round": str(zero_round).lower()})
    switch = 100
    assert inst.best_arm == 0 and (inst.K, inst.d) == (11, 10)
    np.testing.assert_array_equal(inst.thetas[switch - 1], [0] + [1] * 9)
    np.testing.assert_array_equal(inst.thetas[switch + 1], [2] + [0] * 9)
    zero = not inst.thetas[switch].any()
    assert zero == zero_round
    assert inst.meta["switch_round"] == switch


def test_malicious_default_is_published():
    inst = build_instance("malicious", {})
    assert inst.T == 10000 and inst.best_arm == 0
    assert not inst.thetas[3333].any()


# --- Registry errors ------------------------------------------------------------

def test_every_family_builds_with_defaults_and_is_described():
    text = describe_instances()
    for name in FAMILIES:
        assert name in text
        assert build_instance(name, {"T": 50} if name != "multi_osci" else {}).T > 0
    assert "zero_round=True" in text and "theta_draw=published" in text


def test_unknown_family():
    with pytest.raises(UserError, match="soare_nope") as err:
        build_instance("soare_nope", {})
    assert "soare_sto" in str(err.value) and "multi_osci" in str(err.value)


def test_unknown_setting_names_the_valid_keys():
    with pytest.raises(UserError, match="period") as err:
        build_instance("soare_osci", {"period": 200})
    for key in ("s", "L", "T", "omega", "noise_sd", "noise"):
        assert key in str(err.value)


@pytest.mark.parametrize("family, key, value, kind", [
    ("soare_sto", "T", "ten", "int"),
    ("soare_sto", "T", "10.5", "int"),
    ("soare_osci", "s", "big", "float"),
    ("malicious", "zero_round", "maybe", "bool"),
    ("multi_osci", "series", 3, "str"),
])
def test_bad_type_names_key_value_and_type(family, key, value, kind):
    with pytest.raises(UserError) as err:
        build_instance(family, {key: value})
    message = str(err.value)
    assert key in message and repr(value) in message and kind in message


def test_string_settings_are_coerced():
    inst = build_instance("soare_osci", {"s": "2.5", "L": "1800", "T": "100"})
    assert inst.meta["s"] == 2.5 and inst.meta["L"] == 1800 and inst.T == 100


@pytest.mark.parametrize("settings, allowed", [
    ({"series": "scale", "s": 2.5}, "900"),
    ({"series": "period", "s": 3}, "3000"),
    ({"series": "period", "L": 1000}, "1800"),
])
def test_setting_outside_the_published_series(settings, allowed):
    with pytest.raises(UserError, match="not a setting of the published") as err:
        build_instance("multi_osci", settings)
    assert allowed in str(err.value)


def test_bad_choice_and_bad_period():
    with pytest.raises(UserError, match="indicator"):
        build_instance("multi_osci", {"indicator": "half"})
    with pytest.raises(UserError, match="bounded"):
        build_instance("soare_sto", {"noise": "laplace"})
    with pytest.raises(UserError, match="L=0"):
        build_instance("soare_osci", {"L": 0})
    with pytest.raises(UserError, match="T must be at least 1"):
        build_instance("soare_sto", {"T": 0})


# --- User instance files ---------------------------------------------------------

def write(tmp_path, **arrays):
    path = tmp_path / "inst.npz"
    np.savez(path, **arrays)
    return path


def good_arrays():
    return {"X": np.eye(3), "thetas": np.tile([1.0, 0.5, 0.0], (20, 1)), "noise_sd": np.float64(0.5)}


def test_load_instance_file_accepts_a_good_file(tmp_path):
    inst = load_instance_file(write(tmp_path, **good_arrays()))
    assert (inst.kind, inst.K, inst.d, inst.T, inst.best_arm) == ("linear", 3, 3, 20, 0)


@pytest.mark.parametrize("change, words", [
    ({"X": np.ones(3)}, "K x d"),
    ({"thetas": np.ones((20, 2))}, "thetas must be T x d"),
    ({"thetas": np.full((20, 3), np.nan)}, "NaN"),
    ({"X": np.array([[1.0, 0, 0], [0, 1, 0], [1, 1, 0]])}, "rank"),
    ({"noise_sd": np.float64(-1.0)}, "noise_sd"),
])
def test_load_instance_file_rejects_bad_arrays(tmp_path, change, words):
    with pytest.raises(UserError, match=words):
        load_instance_file(write(tmp_path, **{**good_arrays(), **change}))


def test_load_instance_file_rejects_missing_arrays(tmp_path):
    arrays = good_arrays()
    del arrays["noise_sd"]
    with pytest.raises(UserError, match="lacks noise_sd"):
        load_instance_file(write(tmp_path, **arrays))
    with pytest.raises(UserError, match="does not exist"):
        load_instance_file(tmp_path / "absent.npz")


def test_yahoo_pca_signs_default_to_numpys_svd_and_fixed_is_the_same_axes():
    from linbandits.studies.p1rage import yahoo

    rng = np.random.default_rng(3)
    z = rng.normal(size=(400, 36)) * np.linspace(3.0, 0.1, 36)
    V, explained = yahoo.svd_basis(z)
    _, _, vt = np.linalg.svd(z - z.mean(axis=0), full_matrices=False)
    np.testing.assert_array_equal(V, vt[:24])   # the published signs, exactly
    fixed, explained_fixed = yahoo.pca_basis(yahoo.day_stats(z, np.zeros(len(z))))
    np.testing.assert_allclose(np.abs(np.sum(V * fixed, axis=1)), 1.0, atol=1e-8)   # same axes up to sign
    assert explained == pytest.approx(explained_fixed)
    assert set(yahoo.PCA_SIGNS) == {"numpy", "fixed"}
