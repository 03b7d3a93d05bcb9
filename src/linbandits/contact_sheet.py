"""Every figure of a run on one page, to look at them side by side as a reviewer would:
`python -m linbandits.contact_sheet figures` writes figures/contact_sheet.pdf and .png from the
figure PNGs under figures/ (study by study, each labelled with its file name); --grey draws the
page in greyscale, as a black-and-white print shows it."""
from __future__ import annotations

import argparse
import math
from pathlib import Path

from linbandits.errors import UserError

SHEET_NAME = "contact_sheet"
COLUMNS = 4
CELL_WIDTH = 3.0      # inches per figure on the sheet


def figure_pngs(root: Path) -> list[Path]:
    """The figure PNGs under root, by study then name (an earlier sheet is not a figure)."""
    return sorted(p for p in root.rglob("*.png") if not p.stem.startswith(SHEET_NAME))


def write_contact_sheet(pngs: list[Path], stem: Path, grey: bool = False, columns: int = COLUMNS) -> None:
    import matplotlib.image as mpimg
    import numpy as np
    from matplotlib.figure import Figure

    from linbandits.atomic import atomic_output
    from linbandits.plotting import house_style

    if not pngs:
        raise UserError(f"no figure PNGs to put on a contact sheet under {stem.parent}; make the figures first")
    rows = math.ceil(len(pngs) / columns)
    with house_style():
        fig = Figure(figsize=(columns * CELL_WIDTH, rows * CELL_WIDTH * 0.85), layout="constrained")
        for k, png in enumerate(pngs):
            ax = fig.add_subplot(rows, columns, k + 1)
            image = mpimg.imread(png)
            if grey:        # the luminance a greyscale print renders (ITU-R 601, as PIL's 'L')
                image = np.dot(image[..., :3], [0.299, 0.587, 0.114])
            ax.imshow(image, cmap="gray" if grey else None, vmin=0, vmax=1, interpolation="antialiased")
            ax.set_axis_off()
            ax.set_title(f"{png.parent.name}/{png.stem}", fontsize=7)
        stem.parent.mkdir(parents=True, exist_ok=True)
        # saved as it is (plotting.save_figure would letter and typeset the file names)
        for kind in ("pdf", "png"):
            with atomic_output(f"{stem}.{kind}") as tmp:
                fig.savefig(tmp, format=kind, dpi=200, metadata={"CreationDate": None} if kind == "pdf" else None)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m linbandits.contact_sheet", description=__doc__.split("\n")[0])
    parser.add_argument("figures", nargs="?", default="figures", help="the run's figures directory")
    parser.add_argument("-o", "--output", help="output stem (default: FIGURES/contact_sheet)")
    parser.add_argument("--grey", action="store_true", help="draw the sheet in greyscale")
    args = parser.parse_args(argv)
    root = Path(args.figures)
    stem = Path(args.output) if args.output else root / (SHEET_NAME + ("_grey" if args.grey else ""))
    write_contact_sheet(figure_pngs(root), stem, args.grey)
    print(f"{stem}.pdf, {stem}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
