"""linbandits.contact_sheet: every figure PNG under figures/ on one page, study by study (an earlier sheet is
not a figure), in rows of COLUMNS cells; --grey and --both draw the greyscale page (luminance of the colour
one); the same figures give the same bytes whenever they are written. Planted bugs (the module's functions
with one snippet changed, or monkeypatched): a sheet taken for a figure, rows rounded down, --grey ignored,
the PDF stamped with the time it was written."""
import time

import pytest
from PIL import Image
from plain_source import plain

from linbandits import contact_sheet
from linbandits.errors import UserError

FIGURES = [("oam", "fig1"), ("oam", "fig2"), ("swucb", "fig1")]


def figures(root, names=FIGURES):
    """Small PNGs in distinct colours, one per (study, name)."""
    for k, (study, name) in enumerate(names):
        (root / study).mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (300, 200), (40 * k, 200 - 30 * k, 90)).save(root / study / f"{name}.png")
    return root


def listed(figure_pngs, root):
    return [p.relative_to(root).as_posix() for p in figure_pngs(root)]


def test_contact_sheet_puts_every_figure_on_one_page(tmp_path):
    figures(tmp_path)
    assert listed(contact_sheet.figure_pngs, tmp_path) == ["oam/fig1.png", "oam/fig2.png", "swucb/fig1.png"]
    assert contact_sheet.main([str(tmp_path), "--grey"]) == 0
    with Image.open(tmp_path / "contact_sheet_grey.png") as sheet:
        assert sheet.width > 1000 and (tmp_path / "contact_sheet_grey.pdf").stat().st_size > 1000
    assert listed(contact_sheet.figure_pngs, tmp_path) == ["oam/fig1.png", "oam/fig2.png", "swucb/fig1.png"]
    planted = plain(contact_sheet.figure_pngs, " if not p.stem.startswith(SHEET_NAME)", "")
    assert "contact_sheet_grey.png" in listed(planted, tmp_path)      # a sheet is not a figure
    with pytest.raises(UserError, match="make the figures first"):
        contact_sheet.main([str(tmp_path / "oam" / "none")])


def test_the_page_has_a_row_for_every_columns_figures(tmp_path):
    pngs = contact_sheet.figure_pngs(figures(tmp_path, [("oam", f"fig{k}") for k in range(5)]))
    size = (contact_sheet.COLUMNS * round(contact_sheet.CELL_WIDTH * contact_sheet.DPI),
            2 * round(contact_sheet.CELL_HEIGHT * contact_sheet.DPI))        # 5 figures in rows of 4
    assert contact_sheet.page(pngs).size == size
    assert plain(contact_sheet.page, "math.ceil(", "math.floor(")(pngs).size != size


def both_pages(root):
    assert contact_sheet.main([str(root), "--both"]) == 0
    with Image.open(root / "contact_sheet.png") as colour, Image.open(root / "contact_sheet_grey.png") as grey:
        return colour.convert("RGB"), grey.copy()


def test_both_pages_from_one_reading_the_grey_one_the_colour_ones_luminance(tmp_path, monkeypatch):
    colour, grey = both_pages(figures(tmp_path))
    assert colour.mode == "RGB" and grey.mode == "L" and grey.tobytes() == colour.convert("L").tobytes()
    real = contact_sheet.write_page
    monkeypatch.setattr(contact_sheet, "write_page", lambda sheet, stem, grey=False: real(sheet, stem))
    assert both_pages(tmp_path)[1].mode != "L"


def test_the_same_figures_are_the_same_bytes_at_any_time(tmp_path, monkeypatch):
    """Written again a day later: the same PNG and PDF. Planted: the PDF without its fixed dates."""
    pngs = contact_sheet.figure_pngs(figures(tmp_path / "figures"))
    sheet = contact_sheet.page(pngs)
    real_gmtime, days = time.gmtime, iter(range(0, 10 * 86400, 86400))

    def clock(*seconds):    # gmtime() moves a day each call; gmtime(s) is the real one
        return real_gmtime(*seconds) if seconds else real_gmtime(1.7e9 + next(days))

    monkeypatch.setattr(time, "gmtime", clock)

    def written_twice(write_page):
        files = []
        for _ in range(2):
            write_page(sheet, tmp_path / "sheet")
            files.append([(tmp_path / f"sheet.{ext}").read_bytes() for ext in ("png", "pdf")])
        return [first == second for first, second in zip(*files)]

    assert written_twice(contact_sheet.write_page) == [True, True]
    undated = plain(contact_sheet.write_page, ", creationDate=time.gmtime(0),\n                   modDate=time.gmtime(0)", "")
    assert written_twice(undated) == [True, False]
