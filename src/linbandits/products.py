"""Every study's tables, figures and claims through one command and one kind of rule.

A study supplies a function (its `Study.products`) that lists its products for a config: each
`Product` names its kind, its outputs, its inputs (the runs files of linbandits.runs, instance
summaries, other products) and the function that makes it. The Snakemake rules
(workflow/rules/products.smk) are written from these lists, and every rule runs

    linbandits products --study S --kind table|figure|claims [--only NAME] --config C

where C is the study's config as the run saw it (results/<study>/config.yaml, written by the
workflow): the command finds the same products from the same config, so a rule and the command
can never disagree about a path.
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
from pathlib import Path
from typing import Callable

from linbandits import catalogue, experiments, paths, study_config
from linbandits.errors import UserError

# The generic caption of each kind (captions/<kind>.rst in the package), for a product without its own file.
SHARED_CAPTIONS = Path(__file__).resolve().parent / "captions"
KINDS = ("table", "figure", "claims")   # in the order a study's products are made: figures may read tables
TABLE_EXTS = ("csv", "md", "tex")
FIGURE_EXTS = ("pdf", "png")


@dataclasses.dataclass
class Product:
    kind: str                      # table | figure | claims
    name: str                      # unique within the study; the rule is <study>_<name>
    outputs: list                  # paths, the report's file first
    inputs: list
    make: Callable                 # make(ctx) writes every output
    caption: str = ""              # studies/<study>/report/<caption>.rst (default: Context.caption_file)
    target: str = ""               # an opt-in target that builds it ("" = the default target)
    caption_file: str = ""         # the report's caption file, set by study_products (Context.caption_file)


class Context:
    """One study's view of a config: its experiments, where their files are, its claims' evidence."""

    def __init__(self, config: dict, study: str):
        self.config, self.study = config, study
        self.prefix = paths.prefix(config)
        sections = experiments.study_sections(config)
        if study not in sections:
            raise UserError(f"the config has no section studies: {study}")
        self.section = sections[study]
        self.experiments = experiments.study_experiments(config, study)
        self.level = float((config.get("claims") or {}).get("level", 0.95))
        self.robustness = bool(config.get("robustness", True))
        self.preview = bool(config.get("preview"))
        self._runs: dict = {}

    # ---------------------------------------------------------------- paths
    @property
    def folder(self) -> Path:
        """The study's folder, src/linbandits/studies/<study>/."""
        return Path(catalogue.resolve(f"linbandits.studies.{self.study}").__file__).parent

    def caption_file(self, product: Product) -> str:
        """The report caption of a product, the one rule for every kind: the study's report/<caption>.rst
        (a caption it names must exist), else its report/<product name>.rst, else its report/<kind>.rst
        (the study's caption of every figure, table or claims without their own), else the generic
        caption of the kind."""
        own = self.folder / "report"
        if product.caption:
            path = own / f"{product.caption}.rst"
            if not path.exists():
                raise UserError(f"study {self.study}, product {product.name}: its caption {product.caption!r} has no "
                                f"file {path}; add it or name an existing one")
            return str(path)
        found = [path for path in (own / f"{product.name}.rst", own / f"{product.kind}.rst") if path.exists()]
        return str(found[0] if found else SHARED_CAPTIONS / f"{product.kind}.rst")

    def results(self, *parts) -> str:
        return "/".join([f"{self.prefix}results/{self.study}", *parts])

    def runs_stem(self, experiment: str) -> str:
        return paths.runs_stem(self.config, self.experiments[experiment])

    def runs(self, experiment: str):
        """The runs of an experiment (linbandits.runs.RunSet), read once however many products ask."""
        from linbandits.runs import RunSet

        if experiment not in self._runs:
            self._runs[experiment] = RunSet(self.runs_stem(experiment))
        return self._runs[experiment]

    def runs_files(self, experiment: str) -> list[str]:
        stem = self.runs_stem(experiment)
        return [f"{stem}.npz", f"{stem}.json"]

    def summary_path(self, experiment: str, setting: str) -> str:
        """The JSON summary of a setting's instance (results/<study>/instances/<experiment>/<setting>.json)."""
        return paths.instance_path(self.config, self.experiments[experiment], setting, "json")

    def instance_path(self, experiment: str, setting: str) -> str:
        """The instance file of a setting (.npz, beside its summary)."""
        return paths.instance_path(self.config, self.experiments[experiment], setting, "npz")

    def summaries(self, experiment: str) -> list[str]:
        return [self.summary_path(experiment, s) for s in self.experiments[experiment].setting_ids()]

    def table_paths(self, name: str) -> list[str]:
        return [self.results("tables", f"{name}.{ext}") for ext in TABLE_EXTS]

    def figure_stem(self, name: str) -> str:
        """figures/<study>/<name>: a figure's files without their extension (what the drawing writes)."""
        return f"{self.prefix}figures/{self.study}/{name}"

    def figure_paths(self, name: str) -> list[str]:
        return [f"{self.figure_stem(name)}.{ext}" for ext in FIGURE_EXTS]

    def claims_paths(self, name: str = "claims") -> list[str]:
        return [self.results(f"{name}.md"), self.results(f"{name}.json")]

    # ---------------------------------------------------------------- experiments
    def built(self) -> dict:
        """The experiments the default target builds (none of an opt-in target's), in config order:
        the published ones and the switch runs."""
        return {n: e for n, e in self.experiments.items() if not experiments.on_request(e)}

    def published(self) -> dict:
        """The experiments of the published protocol (experiments.published)."""
        return experiments.published(self.experiments)

    def switch_runs(self, opt_in: bool = False) -> dict:
        """The switch runs the default target builds, with `opt_in` every one (experiments.switch_runs)."""
        return experiments.switch_runs(self.experiments, opt_in)

    def evidence(self, names=None, extras=None):
        from linbandits.claims.evidence import Evidence

        names = list(self.experiments) if names is None else names
        exps = {n: self.experiments[n] for n in names if n in self.experiments}
        return Evidence(exps, self.runs_stem, self.summary_path, extras)

    def switches(self, opt_in: bool = False) -> list[dict]:
        """Every switch run as the claims engine reads it: (choice, value, base, switch, merge)."""
        out = []
        for name, exp in self.switch_runs(opt_in).items():
            base = self.experiments.get(exp.switch_of)
            if base is None:
                continue
            same_instance = base.instance == exp.instance and base.settings == exp.settings
            out.append({"choice": exp.choice, "value": exp.switch, "base": exp.switch_of, "switch": name,
                        "merge": same_instance})
        return out

    def choice_defaults(self) -> dict:
        return {name: str(c.get("default", "default")) for name, c in (self.section.get("choices") or {}).items()}

    # ---------------------------------------------------------------- figures
    def figure_target(self, spec: dict) -> str:
        """The target that builds a figure (a `figures:` entry): the one that builds what the figure must
        draw, its `series` (else its panels' own experiments): the default target (""), or the opt-in target
        of one of them (with `robustness: false`, a switch run's), which then builds the figure whole."""
        must = list(spec.get("series") or {}) or [p["experiment"] for p in spec["panels"]]
        return next((self.experiments[n].opt_in for n in must if n in self.experiments and self.experiments[n].opt_in), "")

    def panel_experiments(self, spec: dict, panel: dict) -> list[str]:
        """The experiments a panel of a figure draws: its `experiment`, then those its study's panel keys
        name (Study.panel_lists), each where the figure's target builds it (a switch run the default target
        leaves to `robustness` is left out of a figure of the default target, e.g. a LinGapE entry)."""
        target = self.figure_target(spec)
        listed = [panel["experiment"]] + [n for key in catalogue.studies()[self.study].panel_lists
                                          for n in panel.get(key, [])]
        return [n for n in dict.fromkeys(listed) if (self.experiments[n].opt_in or "") in ("", target)]

    def figure_experiments(self, spec: dict) -> list[str]:
        """Every experiment a figure draws, once each, in panel order."""
        return list(dict.fromkeys(n for p in spec["panels"] for n in self.panel_experiments(spec, p)))

    def required_series(self, spec: dict) -> list[str]:
        """'<experiment>/<algorithm>' of every series the figure's `series` declares (those the paper's
        figure or its text names; a switch figure's switch runs) that this run has: of an experiment the
        figure's target builds, an algorithm it runs (validation: a panel names the experiment)."""
        target = self.figure_target(spec)
        return [f"{e}/{a}" for e, algorithms in (spec.get("series") or {}).items()
                if e in self.experiments and (self.experiments[e].opt_in or "") in ("", target)
                for a in algorithms if a in self.experiments[e].algorithms]

    def figure_products(self, make: str, inputs=(), summaries: bool = False) -> list[Product]:
        """One figure product per entry of the study's `figures:` config, the one way every study lists
        them: figures/<study>/<name>.{pdf,png}, drawn by make(ctx, name, spec) ("module:function", the
        study's figures.make_figure, imported only when a figure is made), which returns the Figure.
        Its inputs are the runs files of the experiments it draws (figure_experiments), their instance
        summaries with `summaries`, and `inputs` (files every figure reads, e.g. a table); its caption is
        the entry's `caption` (Context.caption_file); its target is figure_target's. A figure that does
        not draw every series of its `series` fails, its files removed."""
        out = []
        for name, spec in (self.section.get("figures") or {}).items():
            drawn = self.figure_experiments(spec)
            files = [f for n in drawn for f in self.runs_files(n) + (self.summaries(n) if summaries else [])]
            out.append(Product("figure", name, self.figure_paths(name), files + list(inputs),
                               functools.partial(_make_checked_figure, make=make, name=name, spec=spec),
                               caption=spec.get("caption", ""), target=self.figure_target(spec)))
        return out

    def banner(self, *more) -> str:
        """What a product says above its content: the preview banner (a preview's runs are not the
        published protocol's) and whatever else it must say (a figure's subtitle, the claims report's head)."""
        notes = ["PREVIEW: reduced runs and settings, not the published protocol"] if self.preview else []
        return "; ".join(notes + [m for m in more if m])


def maker(target: str, **kwargs) -> Callable:
    """A product's make(ctx) from "module:function" and its keyword arguments, imported when the product
    is made: the module that lists a study's products (at every Snakemake start) imports none of what
    makes them."""
    return functools.partial(_call, target, kwargs)


def _call(target: str, kwargs: dict, ctx: Context):
    return catalogue.resolve(target)(ctx, **kwargs)


def _make_checked_figure(ctx: Context, make: str, name: str, spec: dict) -> None:
    from linbandits.figure_checks import series_problems

    problems = series_problems(catalogue.resolve(make)(ctx, name=name, spec=spec), ctx.required_series(spec))
    if problems:
        for path in ctx.figure_paths(name):
            Path(path).unlink(missing_ok=True)
        raise UserError(f"study {ctx.study}, figure {name}: {'; '.join(problems)}; draw it (a panel's experiment "
                        "or panel list) or correct the figure's series")


def study_products(config: dict, study: str) -> list[Product]:
    s = catalogue.studies()[study]
    if not s.products:
        return []
    ctx = Context(config, study)
    # claims_product returns a list: a study may append it whole rather than extend by it.
    products = catalogue.resolve(s.products)(ctx)
    names = [p.name for p in products]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UserError(f"study {study} lists the product name(s) {', '.join(twice)} twice")
    for p in products:
        if p.kind not in KINDS:
            raise UserError(f"study {study}, product {p.name}: kind {p.kind!r} is not one of {', '.join(KINDS)}")
        p.caption_file = ctx.caption_file(p)
    return products


def load_config(path, study: str | None = None) -> dict:
    """A config file (a run's snapshot results/<study>/config.yaml, or a user's config), its sections
    merged over their studies' defaults; `study` is added with its defaults if the file does not name it."""
    return study_config.read_config(path, add=[study] if study else [])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="linbandits products",
                                description="Make a study's tables, figures or claims from its runs.")
    p.add_argument("--study", required=True)
    p.add_argument("--kind", required=True, choices=(*KINDS, "all"),
                   help="which products; `all`: every product of the default target (a preview's one job)")
    p.add_argument("--only", action="append", metavar="NAME",
                   help="only this product (repeatable); without it, the default target's products")
    p.add_argument("--config", required=True, help="the config (results/<study>/config.yaml of the run)")
    args = p.parse_args(argv)
    from linbandits import catalogue

    if args.study not in catalogue.studies():
        raise UserError(f"unknown study {args.study!r}; the studies are: {', '.join(catalogue.studies())}")
    config = load_config(args.config, args.study)
    products = [x for x in study_products(config, args.study) if args.kind in ("all", x.kind)]
    products.sort(key=lambda x: KINDS.index(x.kind))
    if args.only:
        unknown = sorted(set(args.only) - {x.name for x in products})
        if unknown:
            raise UserError(f"study {args.study} has no {args.kind} named {', '.join(unknown)}; its {args.kind}s are: "
                            f"{', '.join(x.name for x in products) or 'none'}")
        products = [x for x in products if x.name in args.only]
    else:   # an opt-in target's products (Product.target) only by name: their runs may not exist
        products = [x for x in products if not x.target]
    ctx = Context(config, args.study)
    for product in products:
        product.make(ctx)
    return 0


# ------------------------------------------------------------------ the claims product every study shares

def claims_table_path(study: str) -> str:
    module = catalogue.resolve(f"linbandits.studies.{study}")
    return str(Path(module.__file__).with_name("claims.yaml"))


def claims_product(ctx: Context, title: str, quantities: dict | None = None, extra_inputs=(), extras=None,
                   intro=(), sections=None, caption: str = "", name: str = "claims", target: str = "",
                   opt_in=(), witness=None) -> list[Product]:
    """results/<study>/claims.{md,json}: every claim of the study's claims.yaml judged by the engine on
    the runs of the experiments it reads, and again under every switch run of the choices it names that
    the default target builds. Where some switch runs are opt-in (costly ones, or all of them with
    `robustness: false`), results/<study>/robustness.{md,json} judges the claims under every switch run:
    the `robustness` target builds it.

    A second claims product of the same table (e.g. one that also reads an opt-in target's runs) takes
    its own `name` (results/<study>/<name>.{md,json}; no robustness product beside it), the opt-in
    `target` that builds it, and the opt-in targets whose experiments it reads (`opt_in`). Other opt-in
    experiments that are not switch runs (e.g. opkb's neural runs) are "not run" in every product.
    `witness(evidence)`: the paper's own published data as evidence, where the study has them; every
    claim is judged on them too (a second witness beside the reproduction)."""
    from linbandits.claims.engine import experiments_of
    from linbandits.claims.findings import attach_products, load_findings
    from linbandits.claims.judge import judge_claims
    from linbandits.claims.load import load_claims
    from linbandits.claims.quantities import QUANTITIES
    from linbandits.claims.render import write_claims
    from linbandits.user import comparison
    from linbandits.user import report as user_report

    path = claims_table_path(ctx.study)
    claims = load_claims(path, list((ctx.section.get("choices") or {})))
    # what the paper got wrong (results/findings.md), checked against the claims before any job
    findings_path = Path(path).with_name("findings.yaml")
    findings = load_findings(findings_path, claims) if findings_path.exists() else []
    read = {e for c in claims for e in experiments_of(c)}
    everything = {**QUANTITIES, **(quantities or {})}

    targets = tuple(opt_in)
    # the claims' caption: the one named, else the study's report/claims.rst (for the robustness product
    # too), else the generic claims caption (Context.caption_file)
    caption = caption or ("claims" if (ctx.folder / "report" / "claims.rst").exists() else "")

    def product(name: str, robust: bool) -> Product:
        switches = [sw for sw in ctx.switches(robust) if sw["base"] in read]
        names = [n for n in ctx.experiments if n in read or n in {sw["switch"] for sw in switches}]
        names = [n for n in names if not ctx.experiments[n].opt_in or ctx.experiments[n].opt_in in targets
                 or (robust and ctx.experiments[n].switch_of)]
        inputs = [path, *([str(findings_path)] if findings else []),
                  *[f for n in names for f in ctx.runs_files(n)],
                  *[f for n in names for f in ctx.summaries(n)], *extra_inputs]
        # [user algorithms, issue 37] the section "X against the paper's algorithms" reads every
        # experiment the user's algorithms are compared in (the switch runs their entries list too)
        users = comparison.user_algorithms_in(ctx.experiments)
        if users and name == "claims" and not robust:
            inputs += [f for n, e in comparison.compared_experiments(ctx.experiments).items()
                       if set(users) & set(e.algorithms)
                       for f in [*ctx.runs_files(n), *ctx.summaries(n)] if f not in inputs]

        # the switch runs this product leaves to the `robustness` target (named in its robustness text)
        later = [] if robust else [sw for sw in ctx.switches(True) if sw["base"] in read and sw not in switches]

        def make(c: Context):
            evidence = c.evidence(names, extras(c) if extras else None)
            results = judge_claims(claims, evidence, everything, switches, c.level, c.choice_defaults(),
                                   opt_in=later, witness=witness(evidence) if witness else None)
            more = sections(c, results) if sections else ()
            if users and name == "claims" and not robust:   # [user algorithms, issue 37]
                more = [*more, *user_report.sections(c, users)]
            head = list(intro) + ([f"**{c.banner()}**", ""] if c.preview else [])
            made = {p.name: p.outputs for p in study_products(c.config, c.study)}
            write_claims(results, *c.claims_paths(name), study=c.study, title=title, intro=head,
                         sections=more, level=c.level, choices=c.section.get("choices") or {},
                         findings=attach_products(findings, made, str(findings_path)))

        outputs = ctx.claims_paths(name) + ([ctx.results("comparison.json")] if users and name == "claims"
                                            and not robust else [])
        return Product("claims", name, outputs, inputs, make,
                       caption=caption, target="robustness" if robust else target)

    out = [product(name, False)]
    if name == "claims" and any(e.opt_in for e in ctx.switch_runs(opt_in=True).values()):
        out.append(product("robustness", True))
    return out
