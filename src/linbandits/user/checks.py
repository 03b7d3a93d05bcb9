"""A user's algorithm checked against its study before any job runs (linbandits.user.algorithms; the
workflow's config validation calls `check_config`): one UserError naming the algorithm and the fix."""
from __future__ import annotations

import inspect

from linbandits import catalogue
from linbandits.user import algorithms as user_algorithms
from linbandits.errors import UserError
from linbandits.options import parse_options
from linbandits.study import Algorithm


def check_config(config, experiments: dict) -> None:
    """Every declared user algorithm against its study: one UserError naming the algorithm and the fix."""
    studies = catalogue.studies()
    paper = {a: s.name for s in studies.values() for a in s.algorithms}
    sections = config.get("studies") or {}
    for d in user_algorithms.declared(config).values():
        who = f"{d.source}"
        if d.study not in studies:
            raise UserError(f"{who}: {d.study!r} is not a study; the studies are: {', '.join(studies)}")
        if d.study not in sections:
            raise UserError(f"{who}: the config has no section studies: {d.study}; add the algorithm under a study "
                            f"the config runs ({', '.join(sections)})")
        if not user_algorithms.NAME_PATTERN.match(d.name):
            raise UserError(f"{who}: the name {d.name!r} is not usable in file paths; use letters, digits, "
                            f"'-', '_', '.' (e.g. My-Alg)")
        if d.name in paper:
            raise UserError(f"{who}: the name {d.name} is the paper's algorithm of study {paper[d.name]}; "
                            f"give yours another name (e.g. {d.name}-mine)")
        own = {n: e for n, e in experiments.items() if e.study == d.study}
        for e in d.experiments or ():
            if e not in own:
                raise UserError(f"{who}/experiments: {e!r} is not an experiment of {d.study}; its experiments are: "
                                f"{', '.join(own)}")
        cls = user_algorithms.algorithm_class(d.name)
        if not (inspect.isclass(cls) and issubclass(cls, Algorithm)):
            raise UserError(f"{who}: {d.target} is not a subclass of linbandits.study.Algorithm; write "
                            f"`class {getattr(cls, '__name__', 'MyAlg')}(linbandits.study.Algorithm)`")
        check_interface(d.name, cls, who)
        for exp in own.values():
            if d.name not in exp.algorithms:
                continue
            paper_algos = [a for a in exp.algorithms if a in paper]
            kinds = set.intersection(*[set(catalogue.algorithm_class(a).kinds) for a in paper_algos]) \
                if paper_algos else set()
            if kinds and not kinds & set(cls.kinds or ()):
                raise UserError(f"{who}: kinds = {tuple(cls.kinds)!r}, but experiment {exp.name} runs on "
                                f"{' or '.join(sorted(kinds))} instances; set kinds = {tuple(sorted(kinds))!r} "
                                f"in {d.target}")
        try:
            parse_options(cls, {k: str(v) for k, v in d.options.items()})
        except UserError as exc:
            raise UserError(f"{who}/options: {exc}") from None


def check_interface(name: str, cls, who: str) -> None:
    """run(seed, trial) or run_many(seed, trials, progress) overridden, with those parameters."""
    own_run = cls.run is not Algorithm.run
    own_many = cls.run_many is not Algorithm.run_many
    if not (own_run or own_many):
        raise UserError(f"{who}: {name} implements neither run(self, seed, trial) nor "
                        f"run_many(self, seed, trials, progress); implement one of them")
    method, args = ("run_many", (0, [0], None)) if own_many else ("run", (0, 0))
    try:
        inspect.signature(getattr(cls, method)).bind(None, *args)
    except TypeError:
        wanted = "run_many(self, seed, trials, progress=None)" if own_many else "run(self, seed, trial)"
        raise UserError(f"{who}: {name}.{method} has the signature {method}{inspect.signature(getattr(cls, method))}; "
                        f"write {wanted}") from None
