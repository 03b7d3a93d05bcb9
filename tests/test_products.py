"""linbandits.products, how a study declares its products (no product is made here: each study's tests and the
pipeline's make them): one figure product per `figures:` entry, reading the runs of every experiment it draws
(its panels' and the study's panel lists'), built by the target that builds what it must draw; one caption
rule; a study's list refused whole for a name given twice or an unknown kind; a product's maker imported only
when the product is made. Planted bugs: every figure in the default target, the study's panel lists ignored,
the figures' shared inputs dropped, a product's kind caption before its own, a list's checks left out, a maker
imported when declared."""
import dataclasses
import functools
import sys

import pytest
from plain_source import plain

from linbandits import catalogue, products
from linbandits.errors import UserError
from linbandits.products import Context, Product


def test_a_figure_is_built_by_the_target_that_builds_what_it_must_draw(config, monkeypatch):
    """With robustness: false (every switch run in the robustness target), a figure whose `series` names a
    switch run waits for it whole; one that draws a switch run beside what it must draw leaves it out."""
    config["robustness"] = False
    figures = {(s, p.name): p for s in ("oam", "opkb", "lingape") for p in products.study_products(config, s)
               if p.kind == "figure"}
    assert figures[("oam", "fig_switch_long")].target == "robustness"       # its series are switch runs
    assert figures[("opkb", "opkb_fig1")].target == "robustness"            # the text's window 3000 is one
    assert figures[("oam", "fig1_fixed_action_set")].target == ""
    fig1 = figures[("lingape", "fig1_soare")]
    assert fig1.target == "" and not any("__" in f for f in fig1.inputs)  # LinGapE's switch entries left out
    monkeypatch.setattr(Context, "figure_target", lambda self, spec: "")
    assert {p.name: p.target for p in products.study_products(config, "oam")}["fig_switch_long"] == ""   # planted
    monkeypatch.undo()
    config["robustness"] = True
    assert all(not p.target for s in ("oam", "opkb", "lingape") for p in products.study_products(config, s)
               if p.kind == "figure")


def switch_figure(config):
    """OAM's figure of its epsilon switch runs (drawn as overlays, one of its panel lists), with a table every
    figure reads."""
    ctx = Context(config, "oam")
    return {p.name: p for p in ctx.figure_products("nowhere:draw", inputs=["t.csv"])}["fig_switch_epsilon"]


def test_a_figure_reads_the_runs_of_every_experiment_it_draws(config, monkeypatch):
    runs = [f"results/oam/runs/{e}{x}.{ext}" for e in ("oam_circle100", "oam_random_theta")
            for x in ("", "__eps001", "__loglog") for ext in ("npz", "json")]
    ctx = Context(config, "oam")
    assert [p.name for p in ctx.figure_products("nowhere:draw")] == list(ctx.section["figures"])
    figure = switch_figure(config)
    assert figure.outputs == ["figures/oam/fig_switch_epsilon.pdf", "figures/oam/fig_switch_epsilon.png"]
    assert figure.inputs == runs + ["t.csv"] and figure.caption == "switches" and figure.target == ""
    monkeypatch.setattr(Context, "panel_experiments", plain(
        Context.panel_experiments, "for key in catalogue.studies()[self.study].panel_lists", "for key in ()"))
    assert "results/oam/runs/oam_circle100__eps001.npz" not in switch_figure(config).inputs
    monkeypatch.setattr(Context, "figure_products", plain(Context.figure_products, "files + list(inputs)", "files"))
    assert "t.csv" not in switch_figure(config).inputs


def test_a_products_caption_is_the_one_it_names_then_its_own_then_its_kinds(config, tmp_path, monkeypatch):
    """report/<caption>.rst (which must exist), else report/<name>.rst, else report/<kind>.rst, else the
    package's caption of the kind."""
    (tmp_path / "report").mkdir()
    for name in ("fig9", "figure", "tuning"):
        (tmp_path / "report" / f"{name}.rst").write_text("A caption.\n")
    monkeypatch.setattr(Context, "folder", property(lambda self: tmp_path))
    ctx = Context(config, "oam")
    cases = [("figure", "fig9", ""), ("figure", "fig8", ""), ("table", "t", ""), ("figure", "fig9", "tuning")]

    def captions(caption_file):
        return [caption_file(ctx, Product(kind, name, [], [], None, caption=caption)) for kind, name, caption in cases]

    assert captions(Context.caption_file) == [str(tmp_path / "report" / f) for f in ("fig9.rst", "figure.rst")] + [
        str(products.SHARED_CAPTIONS / "table.rst"), str(tmp_path / "report" / "tuning.rst")]
    with pytest.raises(UserError, match=r"study oam, product fig9: its caption 'fig1' has no file .*fig1.rst; add it"):
        ctx.caption_file(Product("figure", "fig9", [], [], None, caption="fig1"))
    kind_first = plain(Context.caption_file, 'own / f"{product.name}.rst", own / f"{product.kind}.rst"',
                       'own / f"{product.kind}.rst", own / f"{product.name}.rst"')
    assert captions(kind_first)[0] == str(tmp_path / "report" / "figure.rst")


def declared_twice(ctx):
    return [Product("table", "errors", ["a.csv"], [], None), Product("figure", "errors", ["b.pdf"], [], None)]


def declared_of_no_kind(ctx):
    return [Product("plot", "errors", ["a.pdf"], [], None)]


@pytest.mark.parametrize("declared, words, check", [
    (declared_twice, "study oam lists the product name(s) errors twice", "if twice:"),
    (declared_of_no_kind, "study oam, product errors: kind 'plot' is not one of table, figure, claims",
     "if p.kind not in KINDS:"),
])
def test_a_studys_list_with_a_name_twice_or_an_unknown_kind_is_refused(config, monkeypatch, declared, words, check):
    real = catalogue.studies()
    monkeypatch.setattr(catalogue, "studies", lambda: {
        **real, "oam": dataclasses.replace(real["oam"], products=f"{__name__}:{declared.__name__}")})
    with pytest.raises(UserError) as refused:
        products.study_products(config, "oam")
    assert str(refused.value) == words
    unchecked = plain(products.study_products, check, "if False:")
    assert [p.name for p in unchecked(config, "oam")] == [p.name for p in declared(None)]


def test_a_maker_imports_its_function_only_when_the_product_is_made(tmp_path, monkeypatch):
    (tmp_path / "late_maker.py").write_text("def make(ctx, size):\n    return ctx, size\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        make = products.maker("late_maker:make", size=3)
        assert "late_maker" not in sys.modules
        assert make("ctx") == ("ctx", 3) and "late_maker" in sys.modules
        del sys.modules["late_maker"]
        eager = lambda target, **kwargs: functools.partial(catalogue.resolve(target), **kwargs)   # noqa: E731
        eager("late_maker:make", size=3)                                                          # planted
        assert "late_maker" in sys.modules
    finally:
        sys.modules.pop("late_maker", None)
