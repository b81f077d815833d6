"""The text reader: tables as rows keyed by their header (aligned columns, ``|`` tables, psql),
``key: value`` blocks with the path of their indented headings, ``key=value`` and log lines
(time, level, pairs, message), and any other line as prose."""

from __future__ import annotations

import re
from typing import Final

from gsar_otel.core.text import split_sentences
from gsar_otel.judges.records.forms import NOTHING
from gsar_otel.judges.records.record import Record, epoch, nameable, timeish

_COLUMN_GAP: Final = re.compile(r"\s{2,}|\t|\s*\|\s*")
_HEADER_WORD: Final = re.compile(r"^[%#]?[A-Z][A-Z0-9_%()./:-]*(?:\([a-z]+\))?"
                                 r"(?: [A-Z%/][A-Z0-9_%()./:-]*)*$|"
                                 r"^[a-z_%][A-Za-z0-9_%/.-]*$|^[A-Z][a-z]+%?(?: [A-Za-z]+)*$")
_RULE: Final = re.compile(r"^[\s|+:=-]+$")
_TIMESTAMP: Final = re.compile(
    r"^\s*\[?(?:\d{4}[-/]\d{2}[-/]\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?"
    r"(?:Z|[+-]\d{2}:?\d{2}| UTC)?|[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}"
    r"|\d{2}:\d{2}:\d{2}(?:\.\d+)?)\]?")
_LEVEL_TOKEN: Final = re.compile(r"^\[?(ERROR|ERR|WARN|WARNING|INFO|DEBUG|FATAL|CRITICAL|CRIT|"
                                 r"TRACE|error|warn|warning|info|debug|fatal)\]?:?$")
PAIR: Final = re.compile(r'(?<![\w.])([A-Za-z_][\w.\-/]*)=("[^"]*"|\S+)')
_COLON_LINE: Final = re.compile(r"^(\s*)([A-Za-z][\w .()/'-]{0,60}?):(?:\s+(.*\S))?\s*$"
                                 r"|^(\s*)(?!(?i:error|warn|warning|info|debug|fatal|critical|trace)\b)"
                                 r"([A-Za-z_][\w.-]{0,60}):(?![/\\:\s])(\S.*?)\s*$")
"""A ``Key: value`` line, or an identifier and its value with no space (``used_memory:3.21G``,
as Redis ``INFO`` and ``/proc`` files write them)."""
_PAIRS_LINE: Final = re.compile(r"^\s*([A-Za-z_][\w.-]{0,60}):((?:[A-Za-z_][\w.-]*=[^,\s]+,)+"
                                r"[A-Za-z_][\w.-]*=[^,\s]+)\s*$")
"""A named line of comma-separated pairs (``db0:keys=812044,expires=12003``): a record of its
own, named by its key."""
_CELL_GAP: Final = re.compile(r"\t+|\s{2,}")
_KEY_CELL: Final = re.compile(r"^([A-Za-z][\w .()/-]{0,40}?):\s*(\S.*)$")


def _key_cells(line: str) -> list[tuple[str, str]] | None:
    """A line of ``Key: value`` cells apart by tabs or wide gaps (``Topic: orders<TAB>
    Partition: 0<TAB>Leader: 101``), or None."""
    cells = [c.strip() for c in _CELL_GAP.split(line.strip()) if c.strip()]
    if len(cells) < 2:
        return None
    pairs = [_KEY_CELL.match(cell) for cell in cells]
    if not all(pairs):
        return None
    return [(m.group(1), m.group(2)) for m in pairs if m is not None]
_ROWS_FOOTER: Final = re.compile(r"^\(\d+ rows?\)$")
_COLON_MEASURES: Final = re.compile(
    r"(?<![\w:/.-])([A-Za-z][\w-]*):(-?\d+(?:\.\d+)?(?:[kKMG]i?B|B)?)(?![\w:./])")
"""A message's ``key:number`` fields, a unit of size written on the number."""
_SENTENCE_MEASURES: Final = re.compile(
    r"(?:^|[.;,]\s+|\s)([A-Z][a-z]+(?: [a-z]+)?): (-?\d+(?:\.\d+)?)(?=[.;,]?(?:\s|$))")
"""A message's sentences each stating a number ("Free bytes: 48211204. Limit: 50000000")."""
_COMMA_FIELDS: Final = re.compile(r',\s+([a-z][\w-]{0,30}):\s+("[^"]*"|[^,\s][^,]*)')
"""A log message's trailing ``, key: value`` fields (nginx's error log)."""


BOX_LINES: Final = str.maketrans({**dict.fromkeys("─━═", " "),
                                  **dict.fromkeys("│┃║┌┐└┘├┤┬┴┼┏┓┗┛┣┫┳┻╋╔╗╚╝╠╣╦╩╬╭╮╰╯", "|")})
"""Box-drawing characters as the pipes and spaces of a table (ClickHouse's and DuckDB's
``Pretty`` formats: the header in the top border, ``│`` between cells)."""
_BOXED: Final = re.compile(r"[│┃║]")


def read_text(item: str, text: str, group: str | None = None) -> list[Record]:
    """Text as records: tables, ``key: value`` blocks, ``key=value`` and log lines, prose
    (``group`` names the records' groups when the text is a part of a larger item)."""
    prefix = group or item
    if _BOXED.search(text):  # a table drawn in box characters is a table of pipes
        text = text.translate(BOX_LINES)
    counted = _counted_lines(item, prefix, text)
    if counted is not None:
        return counted
    records: list[Record] = []
    lines = text.splitlines()
    position = 0
    block = 0
    heading = ""
    section: set[str] = set()
    while position < len(lines):
        line = lines[position]
        if not line.strip() or _RULE.match(line) or _ROWS_FOOTER.match(line.strip()):
            position += 1
            continue
        if _heading(lines, position):
            heading = line.strip().lower()
            position += 1
            continue
        table = _csv(lines, position) or _table(lines, position)
        if table is not None:
            rows, position = table
            table_group = f"{prefix}#t{block}"
            header, body = rows[0], rows[1:]
            for cells in body:
                row = Record(item, table_group)
                for name, cell in zip(header, cells, strict=False):
                    row.add(name, cell)
                if cells and nameable(cells[0].lower()):
                    row.names.add(cells[0].lower())
                records.append(row)
            block += 1
            continue
        colon = _colon_block(lines, position)
        if colon is not None:
            record, position = colon
            record.item, record.group = item, f"{prefix}#k{block}"
            block += 1
            records.append(record)
            continue
        in_cells = _key_cells(line) is not None  # lines of cells are rows of one table
        record = _line(item, f"{prefix}#c" if in_cells else f"{prefix}#l", line, heading)
        if not line[:1].isspace():
            section = record.names
        else:  # a line indented under a title is of what the title names ("frontend fe_https")
            record.names |= section
        records.append(record)
        position += 1
    return records


_HEADING: Final = re.compile(r"[A-Z][A-Za-z-]*(?: [A-Za-z][A-Za-z-]*){0,4}")
"""A section's title (``rabbitmqctl cluster_status``'s "Network Partitions")."""


def _heading(lines: list[str], at: int) -> bool:
    """True when the line at ``at`` titles a section: a few words alone between blank lines
    (or first), items following ("Network Partitions" over "(none)")."""
    return (bool(_HEADING.fullmatch(lines[at].strip()))
            and (at == 0 or not lines[at - 1].strip())
            and at + 2 < len(lines) and not lines[at + 1].strip()
            and bool(lines[at + 2].strip()))


_COUNTED: Final = re.compile(r"^\s*(\d+) (\S.*?)\s*$")
"""A line of ``uniq -c``: a count, then what was counted."""


def _counted_lines(item: str, prefix: str, text: str) -> list[Record] | None:
    """``uniq -c`` output (every line a count and what it counts, at least two): a row per
    line, named by what it counts (``18422 185.220.101.47``: the address made 18,422)."""
    lines = [line for line in text.splitlines() if line.strip()]
    found = [_COUNTED.match(line) for line in lines]
    if len(lines) < 2 or not all(found) or not all(line[:1].isspace() for line in lines):
        return None  # uniq -c right-aligns its counts
    records = []
    for match in found:
        assert match is not None
        row = Record(item, f"{prefix}#u")
        row.add("count", match.group(1))
        row.add("counted", match.group(2))
        if " " not in match.group(2):
            row.names.add(match.group(2).lower())
        records.append(row)
    return records


def _cells(line: str) -> list[str]:
    return [cell for cell in _COLUMN_GAP.split(line.strip().strip("|")) if cell != ""]


SYMBOL_STATES: Final = {"\u2713": "pass", "\u2714": "pass", "X": "fail", "\u2717": "fail",
                        "\u2718": "fail", "*": "pending", "-": "skipping"}
"""Status symbols a tool writes in a leading column its header leaves unnamed (``gh pr checks``:
``✓``, ``X``, ``*``, ``-``), read as the words they stand for."""


_NUMBER_CELL: Final = re.compile(r"-?[\d.,]+%?[A-Za-z]{0,3}")
"""A cell holding a number (right-aligned in a fixed-width column)."""

_CSV_NAME: Final = re.compile(r"[A-Za-z_%][\w%/.()-]*")


def _csv(lines: list[str], start: int) -> tuple[list[list[str]], int] | None:
    """Comma-separated values under a header of names (``# pxname,svname,scur,...`` of HAProxy's
    ``show stat``, any tool's ``--format csv``): the rows with as many fields as the header
    (at least three)."""
    header = [name.strip() for name in lines[start].strip().lstrip("#").split(",")]
    while header and not header[-1]:
        header.pop()  # a trailing comma
    if len(header) < 3 or not all(_CSV_NAME.fullmatch(name) for name in header):
        return None
    rows = [header]
    position = start + 1
    while position < len(lines):
        fields = lines[position].strip().split(",")
        if len(fields) not in (len(header), len(header) + 1) or not lines[position].strip():
            break
        rows.append([field.strip() for field in fields[:len(header)]])
        position += 1
    return (rows, position) if len(rows) > 1 else None


Span = tuple[int, int, int, int]
"""A fixed-width column: where it begins and ends, and which of how many words of it it is."""


def _fixed_width(lines: list[str], start: int) -> tuple[list[str], list[Span]] | None:
    """A fixed-width table's columns (``df``, ``ps``, ``free``, ``nodetool tpstats``): a position
    blank in the header and every row ends one; a column of as many words in every row as in its
    header is that many; an empty column's header words go to the next if it holds numbers ("All
    time blocked"), else the one before ("compaction type"); unnamed values: a label or None."""
    body = []
    for line in lines[start + 1:]:
        if not line.strip() or _RULE.match(line) or _ROWS_FOOTER.match(line.strip()):
            break
        body.append(line)
    if not body:
        return None
    header = lines[start]
    blank = [all(at >= len(line) or line[at] == " " for line in (header, *body))
             for at in range(max(map(len, (header, *body))))]
    spans: list[tuple[Span, str]] = []
    for found in re.finditer(r"F+", "".join(" " if b else "F" for b in blank)):
        begin, end = found.span()
        words = header[begin:end].split()
        if len(words) > 1 and all(len(line[begin:end].split()) == len(words) for line in body):
            spans += [((begin, end, part, len(words)), word) for part, word in enumerate(words)]
        else:
            spans.append(((begin, end, 0, 1), header[begin:end].strip()))
    names: list[str] = []
    kept: list[Span] = []
    waiting = ""
    for at, (span, head) in enumerate(spans):
        name = f"{waiting} {head}".strip()
        if not any(_cell(line, span) for line in body):
            following = spans[at + 1][0] if at + 1 < len(spans) else None
            if following and all(_NUMBER_CELL.fullmatch(_cell(line, following) or "0")
                                 for line in body):
                waiting = name  # a right-aligned number's header begins here
            elif names:
                names[-1] = f"{names[-1]} {name}".strip()  # a name's last words
            continue
        waiting = ""
        if not name and (at or not all(line[span[0]:span[1]].strip().endswith(":")
                                       for line in body)):
            return None
        names.append(name or "name")  # a label the header leaves unnamed: "Mem:", "Swap:"
        kept.append(span)
    return (names, kept) if len(names) >= 2 else None


def _cell(line: str, span: Span) -> str:
    begin, end, part, parts = span
    return line[begin:end].split()[part] if parts > 1 else line[begin:end].strip().rstrip(":")


def _table(lines: list[str], start: int) -> tuple[list[list[str]], int] | None:
    """A header line of column names and the rows under it (at least one). A header indented
    past a leading column of status symbols names that column ``status``."""
    header = _cells(lines[start])
    fixed = None
    units = start + 1 < len(lines) and bool(_UNITS_LINE.fullmatch(lines[start + 1]))
    first = start + 1 + units  # the first row, past a line of the columns' units
    if (first < len(lines) and "|" not in lines[start]
            and len(lines[first].split()) != len(header) > 1):  # cells of words, empty cells
        fixed = _fixed_width(lines, start)
        header = fixed[0] if fixed else header
    indent = len(lines[start]) - len(lines[start].lstrip())
    named = all(_HEADER_WORD.match(cell.strip()) for cell in header) or (
        fixed and all(_HEADER_WORD.match(part) for name in header for part in name.split()))
    if len(header) < 2 or not named:  # a fixed-width name may be of words ("compaction type")
        return None
    if "=" in lines[start] or (":" in lines[start] and "|" not in lines[start]
                               and lines[start].strip().endswith(":")):
        return None
    rows = [header]
    position = start + 1
    while position < len(lines):
        line = lines[position]
        if _RULE.match(line) and line.strip():
            position += 1
            continue
        if not line.strip() or _ROWS_FOOTER.match(line.strip()):
            break
        cells = _cells(line)
        if len(cells) < 2:
            break
        if fixed:
            rows.append([_cell(line, span) for span in fixed[1]])
            position += 1
            continue
        lead = line[:indent].strip() if indent else ""
        if lead in SYMBOL_STATES:
            placed = _by_position(lines[start], line, len(header))
            cells = [SYMBOL_STATES[lead], *(placed or cells[1:])]
            if rows[0] is header:
                rows[0] = ["status", *header]
        elif len(cells) != len(header):
            cells = _by_position(lines[start], line, len(header)) or cells
        rows.append(cells)
        position += 1
    if units and len(rows) > 2:  # "Read Latency" over "(micros)": the unit is the key's
        below = rows[1] if fixed else _under(lines[start], lines[start + 1], len(rows[0]))
        rows = [[f"{name} {unit}".strip() for name, unit in zip(rows[0], below, strict=False)],
                *rows[2:]]
    if len(rows) < 2:
        return None
    return rows, position


_UNITS_LINE: Final = re.compile(r"\s*(?:\([A-Za-z/%\u00b5]{1,12}\)\s*)+")
"""A line of units in parentheses under a header (``nodetool``'s histograms: "(micros)")."""


def _under(header_line: str, line: str, count: int) -> list[str]:
    """The words of ``line`` under each of a header's ``count`` columns (each word under the
    column it overlaps most)."""
    starts = [m.start() for m in _COLUMN_START.finditer(header_line)]
    spans = list(zip(starts, [*starts[1:], 10**6], strict=True))
    found = [""] * count
    for word in re.finditer(r"\S+", line):
        overlap = [min(end, word.end()) - max(begin, word.start()) for begin, end in spans]
        at = overlap.index(max(overlap))
        if at < count:
            found[at] = word.group(0)
    return found


_COLUMN_START: Final = re.compile(r"(?:(?<=\s\s)|(?<=\t)|^)\S")
"""Where a column of a header parted by two spaces or a tab begins."""


def _by_position(header_line: str, line: str, count: int) -> list[str] | None:
    starts = [m.start() for m in _COLUMN_START.finditer(header_line)]
    if len(starts) != count:
        return None
    cells = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], len(line)], strict=True)]
    return cells if all(cells[:1]) else None


def _colon_block(lines: list[str], start: int) -> tuple[Record, int] | None:
    """Consecutive ``Key: value`` lines (at least two), nested by indentation."""
    record = Record("", "")
    stack: list[tuple[int, str]] = []
    tops: set[str] = set()
    position = start
    pairs = 0
    while position < len(lines):
        line = lines[position]
        if not line.strip():
            if pairs and position + 1 < len(lines) and _COLON_LINE.match(lines[position + 1]):
                position += 1
                continue
            break
        match = _COLON_LINE.match(line)
        if (match is None or _TIMESTAMP.match(line) or _PAIRS_LINE.match(line)
                or _key_cells(line)):
            if pairs and line.startswith((" ", "\t")) and stack:
                record.add(stack[-1][1], line.strip())
                position += 1
                continue
            break
        indent, key, value = _colon_parts(match)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if not stack and key in tops:
            break  # a key again at the top: the next record ("host: a / ip: .. / host: b")
        if not stack:
            tops.add(key)
        path = ".".join([*(k for _, k in stack), key])
        if value:
            record.add(path, value)
            stamp = epoch(value) if timeish(path) and value.isdigit() else None
            if stamp is not None:  # rdb_last_save_time:1733529600 is a moment too
                record.add(path, stamp)
            for part, said in _value_parts(path, value):
                record.add(part, said)
            pairs += 1
        stack.append((indent, key))
        position += 1
    if pairs < 2:
        return None
    return record, position


VALUE_PARTS: Final = (
    # (key, pattern): the named groups of the value become keys of their own under the key
    ("active", re.compile(r"^(?P<state>[a-z-]+) \((?P<sub>[a-z-]+)\)")),  # systemctl status
)
"""Values that are several values written as one: systemd's ``Active: active (running) since
...`` is a state and a sub-state."""


def _value_parts(key: str, value: str) -> list[tuple[str, str]]:
    """The parts of a value :data:`VALUE_PARTS` reads, each under ``key.part``."""
    for name, pattern in VALUE_PARTS:
        if key.lower() == name and (found := pattern.match(value)) is not None:
            return [(f"{key}.{part}", said) for part, said in found.groupdict().items() if said]
    return []


def _colon_parts(match: re.Match[str]) -> tuple[int, str, str | None]:
    """The indent, key and value of a :data:`_COLON_LINE` match (either of its forms)."""
    if match.group(2) is not None:
        return len(match.group(1)), match.group(2).strip(), match.group(3)
    return len(match.group(4)), match.group(5), match.group(6)


LINE_FORMATS: Final = (
    # a line format a tool writes, its fields named by the groups of one pattern
    ("access log", re.compile(  # the common and combined log formats (nginx, Apache, Envoy)
        r'^(?P<remote_addr>\S+) (?P<ident>\S+) (?P<remote_user>\S+) \[(?P<time_local>[^\]]+)\] '
        r'"(?P<request>[^"]*)" (?P<status>\d{3}) (?P<body_bytes_sent>\d+|-)'
        r'(?: "(?P<http_referer>[^"]*)" "(?P<http_user_agent>[^"]*)")?(?P<rest>.*)$')),
    ("JVM heap option", re.compile(  # a Java service's heap (Cassandra, Elasticsearch, Kafka)
        r"^-Xm(?:s(?P<heap_initial>\d+[kKmMgGtT])|x(?P<heap_max>\d+[kKmMgGtT]))$")),
)
"""Line formats read field by field: (name, pattern); a field ``rest`` is read for
``key=value`` pairs."""


def _formatted(item: str, group: str, line: str) -> Record | None:
    """A line of one of :data:`LINE_FORMATS`, or None."""
    for _, pattern in LINE_FORMATS:
        found = pattern.match(line.strip())
        if found is None:
            continue
        record = Record(item, group)
        for key, value in found.groupdict().items():
            if key == "rest" or value in (None, "", "-"):
                continue
            record.add(key, value)
        for key, value in PAIR.findall(found.groupdict().get("rest") or ""):
            record.add(key, value.strip('"'))
        return record
    return None


def _line(item: str, group: str, line: str, heading: str = "") -> Record:
    """One line: a line of a known format, a named line of pairs, a log line (time, level,
    ``key=value`` pairs, message) or a line of prose (under the title of its section when it
    says the section is empty)."""
    formatted = _formatted(item, group, line)
    if formatted is not None:
        return formatted
    record = Record(item, group)
    cells = _key_cells(line)
    if cells is not None:
        for key, value in cells:
            record.add(key, value)
        return record
    pairs_line = _PAIRS_LINE.match(line)
    if pairs_line is not None:
        name = pairs_line.group(1)
        record.names.add(name.lower())
        for pair in pairs_line.group(2).split(","):
            key, _, value = pair.partition("=")
            record.add(key, value)
        return record
    rest = line.strip()
    stamp = _TIMESTAMP.match(rest)
    if stamp:
        record.add("time", stamp.group(0).strip("[] "))
        rest = rest[stamp.end():].strip()
    colon = None if stamp else _COLON_LINE.match(line)
    if colon is not None:
        _, key, said = _colon_parts(colon)
        if said and len(key.split()) <= 3:
            record.add(key, said)  # one "Key: value" line
            return record
    first = rest.split(" ", 1)
    if first and _LEVEL_TOKEN.match(first[0]):
        record.add("level", first[0].strip("[]:").lower())
        rest = first[1] if len(first) > 1 else ""
    fields = list(_COMMA_FIELDS.finditer(rest))
    if len(fields) >= 2:  # nginx's "..., client: 10.0.0.1, upstream: "http://..."" fields
        for field in fields:
            record.add(field.group(1), field.group(2).strip('"'))
        rest = rest[:fields[0].start()]
    pairs = PAIR.findall(rest)
    for key, value in pairs:
        record.add(key, value.strip('"'))
    measured = _COLON_MEASURES.findall(rest)
    if len(measured) >= 2:  # the kernel's "total-vm:1893220kB, anon-rss:1622104kB"
        for key, value in measured:
            record.add(key, value)
    stated = _SENTENCE_MEASURES.findall(rest)
    if len(stated) >= 2:  # RabbitMQ's "Free bytes: 48211204. Limit: 50000000"
        for key, value in stated:
            record.add(key, value)
    message = PAIR.sub("", rest).strip() if len(pairs) >= 2 else rest
    if message:
        for sentence in split_sentences(message) or [message]:
            # an empty section says its title holds nothing ("Network Partitions" / "(none)")
            record.add(heading if NOTHING.fullmatch(sentence) else "", sentence)
    return record
