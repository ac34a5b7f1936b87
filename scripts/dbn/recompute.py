#!/usr/bin/env python3
"""Recomputes the derived schemas (mbp-1, mbp-10, tbbo, trades, ohlcv-1s, ohlcv-1m) from an exported MBO file, on
its own, and compares them record by record with the files the export wrote in those schemas for the same session.

This is a second, independent implementation of the rules of docs/WIRE.md "Derived streams" as docs/EXPORT.md
("Derived schemas") maps them to DBN, written from those documents and from the MBO file alone (Databento's decoder,
databento-dbn, reads every file): its own order book (order id -> instrument, side, price, open size; levels
aggregated per price), its own print rule and its own bars. None of the project's Java is involved.

The rules, as this script applies them:
  * Books. MBO A adds an order; C takes its size from the order and its level (the order leaves when none is left,
    the level when no order is left); F (a fill) and T (a trade) change nothing; R clears the instrument's book.
    An event is the run of records ending with one flagged F_LAST (one exchange message).
  * Prints. Every F record is a print (the export writes no F for a non-printable execution) at the F's price, its
    aggressor the side opposite the resting order's; every T record with a size is one (a non-cross trade or a
    cross with shares), without an aggressor. A print comes before the book change of its event.
  * MBP-N (N = 1, 10). Each print is a record of action T: the print's price, size and aggressor side, depth the
    number of levels better than its price on the resting side, the first N levels of each side as the book is
    before the change. At the end of each event that changed the book, when its first N levels differ from those
    last sent for the instrument (or none were), a record of the event's last MBO record's action, side, price and
    size, depth the number of levels better than that price on that side, and the levels after the event. The last
    record of an event has F_LAST; ts_event, ts_recv and sequence are the event's.
  * tbbo. The T records of MBP-1, each the last of its event (F_LAST). trades: the same without levels.
  * OHLCV (1 s, 1 min). The prints of an instrument whose ts_event falls in [t, t + interval), t a whole interval:
    open, high, low, close, the sum of sizes as volume; ts_event t. No prints, no bar.

Usage (with the venv of scripts/dbn/setup-venv.sh), each exported file named by its schema:
    ~/.cache/mdfanout/dbn-venv/bin/python scripts/dbn/recompute.py MBO_FILE mbp-10=FILE ohlcv-1m=FILE [...]

Prints the first differences, then one line per schema and a summary line:
    recompute: mbo=... events=... prints=... unknown-orders=0 ... differences=0
Exit 0 when every record matches and each schema compared records, 1 on any difference, 2 when there was nothing
to compare.
"""
import sys
from collections import defaultdict

import databento_dbn as dbn

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
F_LAST = 128
F_SNAPSHOT = 32
F_MAYBE_BAD_BOOK = 4
UNDEF_PRICE = (1 << 63) - 1
MAX_SHOWN = 12
EMPTY_LEVEL = (UNDEF_PRICE, 0, 0)

# Per schema: the record type its file must hold, the levels of its records, or the interval of its bars (ns)
SCHEMAS = {
    "mbp-1": (dbn.MBP1Msg, 1, None),
    "mbp-10": (dbn.MBP10Msg, 10, None),
    "tbbo": (dbn.MBP1Msg, 1, None),
    "trades": (dbn.TradeMsg, 0, None),
    "ohlcv-1s": (dbn.OHLCVMsg, None, 1_000_000_000),
    "ohlcv-1m": (dbn.OHLCVMsg, None, 60_000_000_000),
}

BASE = ["ts_event", "ts_recv", "sequence", "instrument_id", "action", "side", "price", "size", "flags", "depth"]
FLAGS = BASE.index("flags")
ACTION = BASE.index("action")


def fields(levels):
    return BASE + [f"{f}_{i:02d}" for i in range(levels)
                   for f in ("bid_px", "ask_px", "bid_sz", "ask_sz", "bid_ct", "ask_ct")]


def char(value):
    """A DBN char field (an enum or a str) as a one-letter string."""
    raw = getattr(value, "value", value)
    if isinstance(raw, bytes):
        raw = raw.decode("ascii")
    if isinstance(raw, int):
        raw = chr(raw)
    return str(raw)


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    decoder = dbn.DBNDecoder(compression=dbn.Compression.ZSTD if data[:4] == ZSTD_MAGIC else dbn.Compression.NONE)
    decoder.write(data)
    records = decoder.decode()
    if not records or not isinstance(records[0], dbn.Metadata):
        raise SystemExit(f"recompute: {path}: no DBN metadata")
    return records[0], records[1:]


def schema_name(metadata):
    schema = metadata.schema
    return None if schema is None else str(getattr(schema, "value", schema))


class Book:
    """One instrument's levels: price -> [size, orders], per side."""

    def __init__(self):
        self.sides = {"B": {}, "A": {}}

    def top(self, side, n=10):
        """The first n levels of a side, best first, as (price, size, orders)."""
        levels = self.sides[side]
        prices = sorted(levels, reverse=(side == "B"))[:n]
        return tuple((p, levels[p][0], levels[p][1]) for p in prices)

    def better(self, side, price):
        """How many levels of the side are better than the price (0 without a side)."""
        if side == "B":
            return sum(1 for p in self.sides["B"] if p > price)
        if side == "A":
            return sum(1 for p in self.sides["A"] if p < price)
        return 0


def with_levels(base, bids, asks, n):
    row = list(base)
    for i in range(n):
        bid = bids[i] if i < len(bids) else EMPTY_LEVEL
        ask = asks[i] if i < len(asks) else EMPTY_LEVEL
        row += [bid[0], ask[0], bid[1], ask[1], bid[2], ask[2]]
    return row


class Recomputed:
    """Everything the rules make of the MBO records, per schema."""

    def __init__(self):
        self.rows = {"mbp-1": [], "mbp-10": [], "tbbo": [], "trades": []}
        self.bars = {"ohlcv-1s": {}, "ohlcv-1m": {}}
        self.counts = defaultdict(int)


def recompute(mbo_records):
    out = Recomputed()
    counts = out.counts
    orders = {}
    books = defaultdict(Book)
    last_sent = {1: {}, 10: {}}
    event = {1: [], 10: []}
    changed = False
    for r in mbo_records:
        counts["mbo"] += 1
        instrument = r.instrument_id
        action = char(r.action)
        side = char(r.side)
        flags = int(r.flags)
        book = books[instrument]
        counts["maybe-bad-book"] += 1 if flags & F_MAYBE_BAD_BOOK else 0
        counts["snapshot"] += 1 if flags & F_SNAPSHOT else 0
        if action in ("A", "C", "R"):
            changed = True
        if action == "A":
            orders[r.order_id] = [instrument, side, r.price, r.size]
            level = book.sides[side].setdefault(r.price, [0, 0])
            level[0] += r.size
            level[1] += 1
        elif action == "C":
            order = orders.get(r.order_id)
            if order is None:
                counts["unknown-orders"] += 1
            else:
                level = book.sides[order[1]][order[2]]
                level[0] -= r.size
                order[3] -= r.size
                if order[3] <= 0:
                    del orders[r.order_id]
                    level[1] -= 1
                    if level[1] == 0:
                        del book.sides[order[1]][order[2]]
        elif action == "R":
            for order_id in [o for o, order in orders.items() if order[0] == instrument]:
                del orders[order_id]
            books[instrument] = book = Book()
        if (action == "F" and side in ("B", "A")) or (action == "T" and r.size > 0):
            counts["prints"] += 1
            aggressor = {"B": "A", "A": "B"}.get(side, "N") if action == "F" else "N"
            resting = side if action == "F" else "N"
            base = [r.ts_event, r.ts_recv, r.sequence, instrument, "T", aggressor, r.price, r.size, 0,
                    book.better(resting, r.price)]
            bids, asks = book.top("B"), book.top("A")
            for n in (1, 10):
                event[n].append(with_levels(base, bids, asks, n))
            tbbo = with_levels(base, bids, asks, 1)
            tbbo[FLAGS] = F_LAST
            out.rows["tbbo"].append(tbbo)
            trade = list(base)
            trade[FLAGS] = F_LAST
            out.rows["trades"].append(trade)
            for schema, bars in out.bars.items():
                interval = SCHEMAS[schema][2]
                key = (instrument, r.ts_event - r.ts_event % interval)
                bar = bars.get(key)
                if bar is None:
                    bars[key] = [r.price, r.price, r.price, r.price, r.size]
                else:
                    bar[1] = max(bar[1], r.price)
                    bar[2] = min(bar[2], r.price)
                    bar[3] = r.price
                    bar[4] += r.size
        if flags & F_LAST:
            counts["events"] += 1
            for n, schema in ((1, "mbp-1"), (10, "mbp-10")):
                levels = (book.top("B", n), book.top("A", n))
                if changed and last_sent[n].get(instrument) != levels:
                    last_sent[n][instrument] = levels
                    base = [r.ts_event, r.ts_recv, r.sequence, instrument, action, side, r.price, r.size, 0,
                            book.better(side, r.price)]
                    event[n].append(with_levels(base, levels[0], levels[1], n))
                if event[n]:
                    event[n][-1][FLAGS] = F_LAST
                    out.rows[schema].extend(event[n])
                    event[n] = []
            changed = False
    return out


def exported_rows(records, levels):
    rows = []
    for r in records:
        row = [r.ts_event, r.ts_recv, r.sequence, r.instrument_id, char(r.action), char(r.side), r.price, r.size,
               int(r.flags), r.depth]
        for level in (r.levels if levels else []):
            row += [level.bid_px, level.ask_px, level.bid_sz, level.ask_sz, level.bid_ct, level.ask_ct]
        rows.append(row)
    return rows


def by_instrument(rows):
    """Rows grouped per instrument, in file order: partitions interleave differently from one export to the next."""
    grouped = defaultdict(list)
    for row in rows:
        grouped[row[3]].append(row)
    return grouped


def compare_rows(schema, names, mine, theirs, shown):
    differences = 0
    compared = 0
    mine_by, theirs_by = by_instrument(mine), by_instrument(theirs)
    for instrument in sorted(set(mine_by) | set(theirs_by)):
        a, b = mine_by.get(instrument, []), theirs_by.get(instrument, [])
        if len(a) != len(b):
            differences += 1
            shown.append(f"{schema} instrument {instrument}: {len(a)} records recomputed, {len(b)} exported")
        for i, (x, y) in enumerate(zip(a, b)):
            compared += 1
            if x != y:
                differences += 1
                if len(shown) < MAX_SHOWN:
                    diff = [f"{names[k]} recomputed {x[k]} exported {y[k]}" for k in range(len(names)) if x[k] != y[k]]
                    shown.append(f"{schema} instrument {instrument} record {i} (sequence {x[2]}, action "
                                 f"{x[ACTION]}): " + "; ".join(diff))
    return compared, differences


def compare_bars(schema, bars, records, shown):
    theirs = {}
    differences = 0
    for r in records:
        key = (r.instrument_id, r.ts_event)
        if key in theirs:
            differences += 1
            shown.append(f"{schema}: two bars of instrument {key[0]} at {key[1]}")
        theirs[key] = [r.open, r.high, r.low, r.close, r.volume]
    compared = 0
    for key in sorted(set(bars) | set(theirs)):
        compared += 1
        if bars.get(key) != theirs.get(key):
            differences += 1
            if len(shown) < MAX_SHOWN:
                shown.append(f"{schema} instrument {key[0]} bar {key[1]}: recomputed (open, high, low, close, volume) "
                             f"{bars.get(key)}, exported {theirs.get(key)}")
    return compared, differences


def main(argv):
    if len(argv) < 3 or any("=" not in a or a.split("=", 1)[0] not in SCHEMAS for a in argv[2:]):
        raise SystemExit(__doc__)
    _, mbo_all = read(argv[1])
    recomputed = recompute([r for r in mbo_all if isinstance(r, dbn.MBOMsg)])
    counts = recomputed.counts
    shown = []
    differences = 0
    lines = []
    nothing = counts["mbo"] == 0
    for arg in argv[2:]:
        schema, path = arg.split("=", 1)
        kind, levels, interval = SCHEMAS[schema]
        metadata, records = read(path)
        if schema_name(metadata) != schema:
            differences += 1
            shown.append(f"{path}: metadata schema {schema_name(metadata)}, not {schema}")
        others = sum(1 for r in records if not isinstance(r, kind))
        if others:
            differences += 1
            shown.append(f"{path}: {others} records that are no {kind.__name__}")
        if interval is None:
            mine = recomputed.rows[schema]
            compared, d = compare_rows(schema, fields(levels), mine,
                                       exported_rows([r for r in records if isinstance(r, kind)], levels), shown)
        else:
            mine = recomputed.bars[schema]
            compared, d = compare_bars(schema, mine, [r for r in records if isinstance(r, kind)], shown)
        differences += d
        nothing = nothing or compared == 0
        lines.append(f"recompute: {schema} recomputed={len(mine)} exported={len(records)} compared={compared} "
                     f"differences={d}")
    for line in shown[:MAX_SHOWN]:
        print("recompute: DIFFERENCE " + line)
    for line in lines:
        print(line)
    print(f"recompute: mbo={counts['mbo']} events={counts['events']} prints={counts['prints']} "
          f"unknown-orders={counts['unknown-orders']} maybe-bad-book={counts['maybe-bad-book']} "
          f"snapshot={counts['snapshot']} differences={differences}")
    if differences:
        return 1
    if nothing:
        print("recompute: nothing to compare")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
