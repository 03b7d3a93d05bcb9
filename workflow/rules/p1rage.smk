# Study: Xiong et al. (P1-RAGE). Its experiments and figures are the
# `studies: p1rage:` section of the config; this file draws the figures.
# A new study is a file like this one plus its config section.

STUDY = "p1rage"


def panel_subtitle(exp_name):
    if EXPERIMENTS[exp_name].instance == "yahoo" and config["yahoo"]["source"] == "synthetic":
        return "synthetic stand-in for R6A"
    return None


for _fig, _spec in pipeline.figures(config).items():
    if _spec["study"] != STUDY:
        continue

    rule:
        name:
            f"figure_{_fig}"
        input:
            tables=[f"results/tables/{p['experiment']}.csv" for p in _spec["panels"]],
        output:
            pdf=f"figures/{_fig}.pdf",
            png=report(
                f"figures/{_fig}.png",
                caption=f"../report/{_spec.get('caption', 'figure.rst')}",
                category="Figures",
                labels={"figure": _fig},
            ),
        params:
            kind=_spec["kind"],
            titles=[p.get("title", EXPERIMENTS[p["experiment"]].title) for p in _spec["panels"]],
            xlabels=[p.get("xlabel", "") for p in _spec["panels"]],
            subtitles=[panel_subtitle(p["experiment"]) for p in _spec["panels"]],
            logx=any(p.get("logx", False) for p in _spec["panels"]),
            stem=f"figures/{_fig}",
        log:
            f"logs/figures/{_fig}.log",
        resources:
            mem_mb=1000,
            runtime=5,
        run:
            from linbandits.plotting import write_figure
            from linbandits.tables import read_table

            write_figure(params.kind, [read_table(t) for t in input.tables], params.titles,
                         params.stem, params.xlabels, params.subtitles, params.logx)
