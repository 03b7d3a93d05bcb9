"""Yahoo! R6A click logs: find and validate the day files, parse one day as a stream.

Line format (spec section E):

    <timestamp> <displayed id> <click> |user 2:v 3:v 4:v 5:v 6:v 1:1.000000 |<id> 2:v ... 1:v |<id> ...

Each line is read as the published scripts read it (spec E, amended): the user
vector u from at most the 6 tokens after the `|user` marker, the displayed
article's vector a from at most the 6 tokens after the first `|<displayed id>`
marker; a token `k:v` puts v in slot k-1, a token with index 7 stops the
reading, slots no token filled stay 0, and tokens after the six are not read
(so a 7th feature, or a malformed block of an article that was not displayed,
changes nothing). z = outer(u, a); the only filter is z[0] = u_1 a_1 > 0.

A line the published reader cannot parse at all is skipped and counted under
the first reason met in reading order: blank; truncated (no block marker at all);
the header (bad_header, non_numeric); the `|user` marker (missing_user_block);
u's tokens; the displayed marker (displayed_not_in_candidates); a's tokens;
then z[0] > 0 (no_constant_feature). Within a vector's tokens the first bad
token decides: not_key_value, index_out_of_range (above 7 or below 1),
non_numeric (a value float() refuses, or nan/inf); a bad token that is the
line's last token, or a line that ends before six tokens were read without an
index-7 stop, is truncated.
"""
from __future__ import annotations

import dataclasses
import gzip
import json
import math
import operator
import zipfile
import zlib
from pathlib import Path

import numpy as np

from linbandits.atomic import atomic_output, write_text_atomic
from linbandits.errors import UserError

PUBLISHED_DAYS = tuple(f"200905{d:02d}" for d in range(1, 8))
ALL_DAYS = tuple(f"200905{d:02d}" for d in range(1, 11))
SYNTHETIC_MARKER = "SYNTHETIC.json"
SYNTHETIC_SOURCE = "synthetic stand-in for R6A"
REAL_SOURCE = "Yahoo! Webscope R6A (ydata-fp-td-clicks-v1_0)"
# The synthetic generator also stamps this into each file's gzip header, so a
# synthetic file copied away from its marker is still recognised.
SYNTHETIC_GZIP_NAME_PREFIX = b"SYNTHETIC-R6A-STANDIN"
READING = "published (spec E amended: at most 6 tokens per vector, stop at index 7, missing slots 0)"

# Skip reasons (the QC keys), in reading order.
REASONS = (
    "blank",                        # empty or whitespace-only line
    "truncated",                    # no block marker at all, or the line ends inside a vector's tokens
    "bad_header",                   # not exactly 'timestamp id click' before the first block, or click not 0/1
    "non_numeric",                  # a header number or a value that does not parse or is not finite
    "missing_user_block",           # no '|user' marker
    "not_key_value",                # within a vector's 6 tokens, one that is not 'k:v' (e.g. the next marker)
    "index_out_of_range",           # within a vector's 6 tokens, an index above 7 (or below 1)
    "displayed_not_in_candidates",  # no '|<displayed id>' marker
    "no_constant_feature",          # z[0] = u_1 * a_1 is not > 0 (also when slot 1 stayed 0)
)
VECTOR_TOKENS = 6
STOP_INDEX = 7
# Order of the six values inside a parsed block: the order the files use, so the
# common case needs no reordering; CANON_TO_INDEX_ORDER restores 1..6 at the end.
CANON_INDICES = (2, 3, 4, 5, 6, 1)
CANON_TOKENS = [str(i).encode() for i in CANON_INDICES]
SLOT_OF_INDEX = {idx: slot for slot, idx in enumerate(CANON_INDICES)}
CANON_TO_INDEX_ORDER = [SLOT_OF_INDEX[i] for i in range(1, 7)]
FEATURE_PREFIXES = [t + b":" for t in CANON_TOKENS]
_first_two = operator.itemgetter(slice(None, 2))
_after_two = operator.itemgetter(slice(2, None))
CHUNK_LINES = 1 << 16
# The cache only saves work; this bound keeps ever-new texts from growing memory.
MAX_CACHED_SECTIONS = 20_000
READ_BYTES = 1 << 22


def day_file_name(day: str) -> str:
    return f"ydata-fp-td-clicks-v1_0.{day}.gz"


def check_day(day: str) -> str:
    day = str(day)
    if day not in ALL_DAYS:
        raise UserError(f"day {day!r} is not an R6A day; use YYYYMMDD from 20090501 to 20090510 "
                        f"(the published instance uses {PUBLISHED_DAYS[0]}..{PUBLISHED_DAYS[-1]})")
    return day


# --- one line ---------------------------------------------------------------

def read_vector(tokens, start: int):
    """The published reading of the tokens after a marker at tokens[start - 1].

    Returns (values in index order 1..6, unfilled) or (None, reason); unfilled
    says some slot was given by no token (an index-7 stop or a repeated index).
    """
    window = tokens[start:start + VECTOR_TOKENS]
    last = len(tokens) - 1
    slots = [0.0] * 6
    filled = [False] * 6
    for pos, tok in enumerate(window, start):
        key, sep, val = tok.partition(b":")
        reason = None
        try:
            idx = int(key) if sep else None
        except ValueError:
            idx = None
        if idx is None:
            reason = "not_key_value"
        elif idx == STOP_INDEX:
            return tuple(slots), not all(filled)
        elif not 1 <= idx < STOP_INDEX:
            reason = "index_out_of_range"
        else:
            try:
                x = float(val)
            except ValueError:
                x = math.nan
            if not math.isfinite(x):   # float() takes 'nan' and 'inf'
                reason = "non_numeric"
            else:
                slots[idx - 1] = x
                filled[idx - 1] = True
        if reason:
            # A bad last token of the line is one cut by a truncation.
            return None, "truncated" if pos == last else reason
    if len(window) < VECTOR_TOKENS:
        return None, "truncated"
    return tuple(slots), not all(filled)


def to_canon(values) -> tuple:
    """Index order 1..6 -> CANON_INDICES order (the order the fast path collects)."""
    return tuple(values[i - 1] for i in CANON_INDICES)


def classify_line(line: bytes):
    """The reference reading of one line (the fast loop in DayParser agrees with it).

    Returns (reason, None) for a skipped line, or (None, (timestamp, click, u, a,
    unfilled)) with u and a in index order 1..6 and unfilled true when a slot of
    u or a was given by no token.
    """
    tokens = line.split()
    if not tokens:
        return "blank", None
    first_block = next((i for i, t in enumerate(tokens) if t.startswith(b"|")), None)
    if first_block is None:
        return "truncated", None
    if first_block != 3:
        return "bad_header", None
    ts, art, click = tokens[:3]
    try:
        ts_value = int(ts)
        int(art)
        click_value = int(click)
    except ValueError:
        return "non_numeric", None
    if click not in (b"0", b"1"):
        return "bad_header", None
    try:
        user_at = tokens.index(b"|user", 3)
    except ValueError:
        return "missing_user_block", None
    u, u_unfilled = read_vector(tokens, user_at + 1)
    if u is None:
        return u_unfilled, None
    try:
        shown_at = tokens.index(b"|" + art, 3)
    except ValueError:
        return "displayed_not_in_candidates", None
    a, a_unfilled = read_vector(tokens, shown_at + 1)
    if a is None:
        return a_unfilled, None
    if not u[0] * a[0] > 0:
        return "no_constant_feature", None
    return None, (ts_value, click_value, u, a, u_unfilled or a_unfilled)


def section_readings(section: bytes) -> dict:
    """{article id: (values in CANON order, unfilled)} for the first block of each id in a
    candidate section (the text of a line from its first candidate marker on), for the
    ids whose reading succeeds; the windows are those of the whole line, as the section
    is the line's tail."""
    tokens = section.split()
    shown = {}
    for i, tok in enumerate(tokens):
        if tok.startswith(b"|") and tok[1:] not in shown:
            values, unfilled = read_vector(tokens, i + 1)
            shown[tok[1:]] = None if values is None else (to_canon(values), unfilled)
    return {k: v for k, v in shown.items() if v is not None}


# --- one day ----------------------------------------------------------------

@dataclasses.dataclass
class ParsedDay:
    z: np.ndarray          # n x 36 float32, outer(u, a) user-major, indices 1..6
    clicks: np.ndarray     # n uint8
    qc: dict


class DayParser:
    """Feed raw lines (bytes, without '\\n'); finish() returns the day's arrays and counts.

    The loop body is a fast path for the common line (its candidate section
    already read in an earlier line, user features in the usual order and
    complete); every other line goes to classify_line, and the fast path only
    accepts lines that classify_line would keep with the same values.
    """

    def __init__(self):
        self.counts = dict.fromkeys(REASONS, 0)
        self.lines_read = 0
        self.sections: dict[bytes, dict] = {}    # candidate section text -> section_readings
        self.z_chunks: list[np.ndarray] = []
        self.click_chunks: list[np.ndarray] = []
        self.kept_unfilled = 0
        self.ts_min = self.ts_max = None

    def feed(self, lines) -> None:
        sections = self.sections
        users, arts, clicks, stamps, unfilled = [], [], [], [], []
        n_read = 0
        for line in lines:
            n_read += 1
            # Fast path: the candidate section (everything after the user block) was read
            # before, and the user block is the six usual tokens.
            k = line.find(b" |user ")
            j = line.find(b" |", k + 7) if k > 0 else -1
            try:
                shown = sections.get(line[j:]) if j > 0 else None
                if shown is not None:
                    head = line[:k].split(b" ")
                    if len(head) == 3 and (head[2] == b"0" or head[2] == b"1"):
                        entry = shown.get(head[1])
                        ut = line[k + 7:j].split(b" ")
                        if entry is not None and list(map(_first_two, ut)) == FEATURE_PREFIXES:
                            u = tuple(map(float, map(_after_two, ut)))
                            ts = int(head[0])
                            int(head[1])
                            stamps.append(ts)
                            users.append(u)
                            arts.append(entry[0])
                            unfilled.append(entry[1])
                            clicks.append(head[2] == b"1")
                            continue
            except ValueError:
                pass
            self._slow_line(line, k, j, users, arts, clicks, stamps, unfilled)
        self.lines_read += n_read
        self._add_chunk(users, arts, clicks, stamps, unfilled)

    def _slow_line(self, line, k, j, users, arts, clicks, stamps, unfilled) -> None:
        reason, rec = classify_line(line)
        if reason:
            self.counts[reason] += 1
            return
        ts, click, u, a, gap = rec
        if k > 0 and j > 0:
            self._remember_section(line[j:])
        users.append(to_canon(u))
        arts.append(to_canon(a))
        unfilled.append(gap)
        clicks.append(bool(click))
        stamps.append(ts)

    def _remember_section(self, section: bytes) -> None:
        if len(self.sections) > MAX_CACHED_SECTIONS:
            self.sections.clear()
        if section not in self.sections:
            self.sections[section] = section_readings(section)

    def _add_chunk(self, users, arts, clicks, stamps, unfilled) -> None:
        if not users:
            return
        U = np.array(users, dtype=np.float64)[:, CANON_TO_INDEX_ORDER]
        A = np.array(arts, dtype=np.float64)[:, CANON_TO_INDEX_ORDER]
        # The fast path reads user values with float() only; inf/nan are caught here.
        finite = np.isfinite(U).all(axis=1)
        self.counts["non_numeric"] += int((~finite).sum())
        has_constant = finite & (U[:, 0] * A[:, 0] > 0)
        self.counts["no_constant_feature"] += int((finite & ~has_constant).sum())
        self.kept_unfilled += int(np.array(unfilled, dtype=bool)[has_constant].sum())
        U, A = U[has_constant], A[has_constant]
        z = (U[:, :, None] * A[:, None, :]).reshape(len(U), 36).astype(np.float32)
        self.z_chunks.append(z)
        self.click_chunks.append(np.array(clicks, dtype=np.uint8)[has_constant])
        ts = np.array(stamps, dtype=np.int64)[has_constant]
        if ts.size:
            lo, hi = int(ts.min()), int(ts.max())
            self.ts_min = lo if self.ts_min is None else min(self.ts_min, lo)
            self.ts_max = hi if self.ts_max is None else max(self.ts_max, hi)

    def qc(self) -> dict:
        kept = sum(len(c) for c in self.click_chunks)
        clicks = int(sum(int(c.sum()) for c in self.click_chunks))
        assert kept + sum(self.counts.values()) == self.lines_read
        return {
            "reading": READING,
            "lines_read": self.lines_read,
            "lines_kept": kept,
            "lines_skipped": sum(self.counts.values()),
            "skipped_by_reason": dict(self.counts),
            "kept_with_unfilled_slot": self.kept_unfilled,
            "clicks": clicks,
            "click_rate": clicks / kept if kept else None,
            "timestamp_min": self.ts_min,
            "timestamp_max": self.ts_max,
        }

    def finish(self) -> ParsedDay:
        """All chunks joined (small inputs; whole days go through write_day_npz instead)."""
        z = np.concatenate(self.z_chunks) if self.z_chunks else np.zeros((0, 36), np.float32)
        clicks = np.concatenate(self.click_chunks) if self.click_chunks else np.zeros(0, np.uint8)
        return ParsedDay(z=z, clicks=clicks, qc=self.qc())


def split_lines(blocks):
    """Bytes blocks -> chunks (lists) of lines, '\\n' removed; a last line without '\\n' counts."""
    rest = b""
    pending: list[bytes] = []
    for block in blocks:
        lines = (rest + block).split(b"\n")
        rest = lines.pop()
        pending.extend(lines)
        while len(pending) >= CHUNK_LINES:
            yield pending[:CHUNK_LINES]
            del pending[:CHUNK_LINES]
    if rest:
        pending.append(rest)
    if pending:
        yield pending


def parse_lines(lines) -> ParsedDay:
    """Parse an in-memory iterable of lines (bytes or str, with or without line endings)."""
    raw = [(ln.encode() if isinstance(ln, str) else ln).rstrip(b"\n") for ln in lines]
    parser = DayParser()
    for start in range(0, len(raw), CHUNK_LINES):
        parser.feed(raw[start:start + CHUNK_LINES])
    return parser.finish()


def read_gzip_blocks(path: Path):
    """Decompressed blocks of a gzip file; a damaged file becomes one UserError naming it."""
    try:
        with gzip.open(path, "rb") as fh:
            while block := fh.read(READ_BYTES):
                yield block
    except EOFError:
        raise UserError(f"{path}: the gzip data ends early (truncated file, e.g. an interrupted copy); "
                        "copy the file again from the original R6A archive") from None
    except (gzip.BadGzipFile, zlib.error) as exc:
        raise UserError(f"{path}: the gzip data is corrupt ({exc}); copy the file again") from None
    except OSError as exc:
        raise UserError(f"{path} cannot be read ({exc.strerror or exc})") from None


def parse_day_file(path: Path) -> DayParser:
    parser = DayParser()
    for chunk in split_lines(read_gzip_blocks(path)):
        parser.feed(chunk)
    return parser


# --- the directory ----------------------------------------------------------

def gzip_header_name(path: Path) -> bytes | None:
    """The FNAME field of a gzip header (None if absent, unreadable or not gzip)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return None
    if len(head) < 10 or head[:2] != b"\x1f\x8b" or not head[3] & 0x08:
        return None
    pos = 10
    if head[3] & 0x04:   # FEXTRA comes first
        pos += 2 + int.from_bytes(head[10:12], "little")
    end = head.find(b"\x00", pos)
    return head[pos:end] if end >= 0 else None


def corpus_is_synthetic(r6a_dir: Path, paths=()) -> bool:
    if (Path(r6a_dir) / SYNTHETIC_MARKER).exists():
        return True
    return any((gzip_header_name(p) or b"").startswith(SYNTHETIC_GZIP_NAME_PREFIX)
               for p in paths if Path(p).is_file())


def describe_non_gzip(head: bytes) -> str:
    text = head.lstrip().lower()
    if text.startswith((b"<!doctype html", b"<html", b"<?xml", b"<head", b"<body")) or b"<html" in text[:512]:
        return "an HTML page saved under the data file's name (for example a login or download page), not gzip data"
    if head.startswith(b"PK\x03\x04"):
        return "a zip archive, not a gzip file"
    if head.startswith(b"BZh"):
        return "a bzip2 file, not a gzip file"
    if head[:1].isdigit():
        return "uncompressed text, not gzip data (compress it with gzip, keeping the .gz name)"
    return f"not gzip data (it starts with {head[:16]!r})"


def check_day_file(path: Path, sample_lines: int = 200, full: bool = True) -> dict:
    """Check one day file: present, gzip, R6A lines; full=True also reads it to the end
    (the only way to notice a truncated gzip). Every problem is a UserError naming the file."""
    if not path.exists():
        raise UserError(f"{path} is missing")
    if not path.is_file():
        raise UserError(f"{path} is not a regular file")
    size = path.stat().st_size
    if size == 0:
        raise UserError(f"{path} is empty (0 bytes), not an R6A day file")
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError as exc:
        raise UserError(f"{path} cannot be read ({exc.strerror or exc})") from None
    if head[:2] != b"\x1f\x8b":
        raise UserError(f"{path} is {describe_non_gzip(head)}")
    start, newlines, last = b"", 0, b""
    for block in read_gzip_blocks(path):
        if len(start) < (1 << 20):
            start += block[:1 << 20]
        elif not full:
            break
        newlines += block.count(b"\n")
        last = block[-1:]
    lines = newlines + (last not in (b"", b"\n"))
    if lines == 0:
        raise UserError(f"{path} is a valid gzip file but holds no data (0 lines)")
    check_sample(path, start.split(b"\n")[:sample_lines])
    return {"file": path.name, "bytes": size, "lines": lines if full else None}


def check_sample(path: Path, sample: list[bytes]) -> None:
    """Most of the first lines must be valid R6A lines (a few malformed ones are normal)."""
    nonblank = [ln for ln in sample if ln.strip()]
    if not nonblank:
        raise UserError(f"{path} holds only blank lines at its start, not R6A click-log lines")
    kept = sum(classify_line(ln)[0] is None for ln in nonblank)
    if kept * 2 < len(nonblank):
        first = nonblank[0][:80].decode("utf-8", "replace")
        what = "an HTML page" if b"<html" in b"\n".join(nonblank[:50]).lower() else "text"
        raise UserError(f"{path} decompresses to {what} that is not in the R6A line format "
                        f"({kept} of the first {len(nonblank)} lines are R6A lines; the first starts "
                        f"{first!r}; an R6A line looks like "
                        "'1241160900 109513 0 |user 2:0.000012 ... 1:1.000000 |109498 2:0.306008 ...')")


def how_to_get_r6a(r6a_dir, days=PUBLISHED_DAYS) -> str:
    return ("R6A is licensed and cannot be downloaded automatically: request the dataset R6A "
            "'Yahoo! Front Page Today Module User Click Log' from Yahoo! Webscope "
            "(https://webscope.sandbox.yahoo.com/), then put the day files "
            f"{day_file_name(days[0])} .. {day_file_name(days[-1])} in {r6a_dir} (or pass --r6a-dir "
            "another directory). Without the licensed data, 'linbandits yahoo-synthetic --out-dir DIR' "
            "writes a synthetic stand-in corpus in the same format.")


def day_paths(r6a_dir, days=PUBLISHED_DAYS) -> list[Path]:
    """The day files of a directory; a missing directory or file is one UserError."""
    r6a_dir = Path(r6a_dir)
    if not r6a_dir.exists():
        raise UserError(f"R6A directory {r6a_dir} does not exist. {how_to_get_r6a(r6a_dir, days)}")
    if not r6a_dir.is_dir():
        raise UserError(f"R6A directory {r6a_dir} is not a directory. {how_to_get_r6a(r6a_dir, days)}")
    paths = [r6a_dir / day_file_name(d) for d in days]
    missing = [p.name for p in paths if not p.exists()]
    if missing:
        raise UserError(f"R6A directory {r6a_dir} lacks {len(missing)} of the {len(days)} day files: "
                        f"{', '.join(missing)}. {how_to_get_r6a(r6a_dir, days)}")
    return paths


def check_r6a_dir(r6a_dir, days=PUBLISHED_DAYS, full: bool = True) -> dict:
    """Validate the day files of a directory; returns a report or raises one UserError."""
    r6a_dir = Path(r6a_dir)
    paths = day_paths(r6a_dir, days)
    files = []
    for path in paths:
        try:
            files.append(check_day_file(path, full=full))
        except UserError as exc:
            raise UserError(f"{exc}. {how_to_get_r6a(r6a_dir, days)}") from None
    synthetic = corpus_is_synthetic(r6a_dir, paths)
    return {"r6a_dir": str(r6a_dir), "synthetic": synthetic,
            "source": SYNTHETIC_SOURCE if synthetic else REAL_SOURCE,
            "full_read": full, "files": files}


# --- writing ----------------------------------------------------------------

def atomic_write_json(path, obj) -> None:
    write_text_atomic(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")


def write_day_npz(path, parser: DayParser, meta: dict) -> None:
    """Write z, clicks and meta as an .npz, streaming the chunks (no n x 36 copy in memory)."""
    with atomic_output(path) as tmp:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
            write_npy_member(zf, "z", parser.z_chunks, (36,), np.float32)
            write_npy_member(zf, "clicks", parser.click_chunks, (), np.uint8)
            write_npy_member(zf, "meta", [np.array(json.dumps(meta))], None, None)


def write_npy_member(zf, name, chunks, row_shape, dtype) -> None:
    if dtype is None:   # a single small array, written whole
        arr = chunks[0]
        shape, dtype = arr.shape, arr.dtype
    else:
        shape = (sum(len(c) for c in chunks),) + tuple(row_shape)
    header = {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)), "fortran_order": False, "shape": shape}
    # A fixed member date keeps the file byte-for-byte reproducible.
    info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
    with zf.open(info, "w", force_zip64=True) as fh:
        np.lib.format.write_array_header_1_0(fh, header)
        for c in chunks:
            fh.write(np.ascontiguousarray(c, dtype=dtype).tobytes())


def load_day_npz(path, meta_only: bool = False):
    """(z, clicks, meta) of a yahoo-parse output, or just meta; problems become one UserError."""
    path = Path(path)
    if not path.exists():
        raise UserError(f"day file {path} does not exist; write it with 'linbandits yahoo-parse'")
    try:
        with np.load(path, allow_pickle=False) as data:   # members are read only when asked for
            meta = json.loads(str(data["meta"]))
            if meta_only:
                return meta
            z, clicks = data["z"], data["clicks"]
    except (KeyError, ValueError, OSError, zipfile.BadZipFile) as exc:
        raise UserError(f"day file {path} is not a yahoo-parse output (.npz with z, clicks, meta): {exc}") from None
    if z.ndim != 2 or z.shape[1] != 36 or clicks.shape != (z.shape[0],):
        raise UserError(f"day file {path}: z must be n x 36 and clicks n long, got {z.shape} and {clicks.shape}")
    return z, clicks, meta
