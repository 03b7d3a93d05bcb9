"""Every figure of a run on one page, to look at them side by side as a reviewer would:
`python -m linbandits.contact_sheet figures` writes figures/contact_sheet.pdf and .png from the
figure PNGs under figures/ (study by study, each labelled with its file name); --grey draws the
page in greyscale, as a black-and-white print shows it; --both writes both pages from one reading of
the figures (what the default target's rule runs).

The page is a raster at DPI, made with PIL alone: each figure shrunk to its cell (Lanczos) and pasted,
its file name written above it; the PDF holds that raster. Drawing the page through matplotlib (an
axes and an image resampled per figure, a layout engine) cost 17 CPU-s for .test's 18 figures under
load; this costs a few (docs/benchmarks.md)."""
from __future__ import annotations

import argparse
import math
from pathlib import Path

from linbandits.errors import UserError

SHEET_NAME = "contact_sheet"
COLUMNS = 4
CELL_WIDTH = 3.0      # inches per figure on the sheet
CELL_HEIGHT = 2.55    # inches per row: the figure and its file name above it
LABEL = 0.2           # inches of a cell kept for the file name
LABEL_PT = 7
DPI = 200


def figure_pngs(root: Path) -> list[Path]:
    """The figure PNGs under root, by study then name (an earlier sheet is not a figure)."""
    return sorted(p for p in root.rglob("*.png") if not p.stem.startswith(SHEET_NAME))


def page(pngs: list[Path], columns: int = COLUMNS):
    """The sheet as an RGB image (PIL): every figure shrunk into its cell under its file name."""
    import matplotlib
    from PIL import Image, ImageDraw, ImageFont

    if not pngs:
        raise UserError("no figure PNGs to put on a contact sheet; make the figures first")
    rows = math.ceil(len(pngs) / columns)
    cell_w, cell_h, label = round(CELL_WIDTH * DPI), round(CELL_HEIGHT * DPI), round(LABEL * DPI)
    sheet = Image.new("RGB", (columns * cell_w, rows * cell_h), "white")
    draw = ImageDraw.Draw(sheet)
    font = ImageFont.truetype(str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"),
                              round(LABEL_PT / 72 * DPI))
    margin = round(0.05 * DPI)
    for k, png in enumerate(pngs):
        row, column = divmod(k, columns)
        x, y = column * cell_w, row * cell_h
        with Image.open(png) as image:
            image = image.convert("RGB")
            image.thumbnail((cell_w - 2 * margin, cell_h - label - 2 * margin), Image.LANCZOS)
            sheet.paste(image, (x + (cell_w - image.width) // 2, y + label + margin))
        draw.text((x + cell_w // 2, y + margin), f"{png.parent.name}/{png.stem}", fill="black", font=font, anchor="mt")
    return sheet


def write_page(sheet, stem: Path, grey: bool = False) -> None:
    """stem.png and stem.pdf of a page (in greyscale as a print renders it with `grey`: luminance,
    ITU-R 601, PIL's 'L'), each written to a temporary name and renamed. The PDF holds the page as one
    image (JPEG at quality 95; no fonts) and a fixed date and title, so the same figures give the same
    bytes."""
    import time

    from linbandits.atomic import atomic_output

    image = sheet.convert("L") if grey else sheet
    stem.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(f"{stem}.png") as tmp:
        image.save(tmp, format="PNG", dpi=(DPI, DPI))
    with atomic_output(f"{stem}.pdf") as tmp:
        image.save(tmp, format="PDF", resolution=DPI, quality=95, title=stem.name, creationDate=time.gmtime(0),
                   modDate=time.gmtime(0))


def write_contact_sheet(pngs: list[Path], stem: Path, grey: bool = False, columns: int = COLUMNS) -> None:
    write_page(page(pngs, columns), stem, grey)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m linbandits.contact_sheet", description=__doc__.split("\n")[0])
    parser.add_argument("figures", nargs="?", default="figures", help="the run's figures directory")
    parser.add_argument("-o", "--output", help="output stem (default: FIGURES/contact_sheet)")
    shade = parser.add_mutually_exclusive_group()
    shade.add_argument("--grey", action="store_true", help="draw the sheet in greyscale")
    shade.add_argument("--both", action="store_true", help="both sheets: FIGURES/contact_sheet and ..._grey")
    args = parser.parse_args(argv)
    root = Path(args.figures)
    pngs = figure_pngs(root)
    if not pngs:
        raise UserError(f"no figure PNGs to put on a contact sheet under {root}; make the figures first")
    sheet = page(pngs)
    stem = Path(args.output) if args.output else root / SHEET_NAME
    for grey in ((False, True) if args.both else (args.grey,)):
        out = stem.with_name(stem.name + "_grey") if grey and (args.both or not args.output) else stem
        write_page(sheet, out, grey)
        print(f"{out}.pdf, {out}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
