"""linbandits.plotting, the house style's helpers, where no figure test reaches them one by one."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from linbandits import plotting  # noqa: E402


def labels_in_view(ax) -> list[str]:
    ax.figure.canvas.draw()
    low, high = ax.get_ylim()
    return [t.get_text() for t, v in zip(ax.get_yticklabels(), ax.get_yticks()) if low <= v <= high]


def narrow_panel(use_log_y):
    fig, ax = plt.subplots(figsize=(3.5, 1.2))
    ax.plot([0, 1], [0.034, 0.065])       # P1-RAGE's min-gap panel under Fig. 3b on .test
    use_log_y(ax, subs=(1.0, 2.0, 5.0))
    return ax


def test_a_narrow_log_panel_has_a_few_round_ticks():
    """Under a factor of 2.5 a 1-2-5 log locator has at most one tick in view, and matplotlib's fallback
    then labels every step (seven labels on a panel an inch high). Planted: the locator without that case."""
    shown = labels_in_view(narrow_panel(plotting.use_log_y))
    assert 2 <= len(shown) <= 3, shown

    def planted(ax, subs=(1.0,)):
        ax.set_yscale("log")
        plotting._log_axis(ax.yaxis, subs)

    assert len(labels_in_view(narrow_panel(planted))) > 3


def test_a_wide_log_panel_keeps_its_decades():
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0.001, 0.9])
    plotting.use_log_y(ax)
    assert labels_in_view(ax) == ["0.001", "0.01", "0.1", "1"]
