#!/usr/bin/env python3
"""Reads a DBN file (.dbn or .dbn.zst) with Databento's own decoder (databento_dbn.DBNDecoder), loads its records
into pandas DataFrames, one per record type, and prints a JSON summary: the metadata, the record count per type,
and every record's fields as decoded, column by column (the DBN export test compares them to what it fed).

Run it with the venv of scripts/dbn/setup-venv.sh (make dbn-tools):
    ~/.cache/mdfanout/dbn-venv/bin/python scripts/dbn/read_dbn.py FILE [--summary-only]
"""
import json
import sys

import databento_dbn as dbn
import pandas as pd

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

# The fields of a book level of MBP records, level i of n: bid_px_00, ask_px_00, bid_sz_00, ...
def levels(n):
    return [f"{field}_{i:02d}" for i in range(n) for field in
            ("bid_px", "ask_px", "bid_sz", "ask_sz", "bid_ct", "ask_ct")]


# The fields TradeMsg, Mbp1Msg and Mbp10Msg share, before their levels
MBP = ["ts_recv", "ts_event", "rtype", "publisher_id", "instrument_id", "action", "side", "depth", "price", "size",
       "flags", "ts_in_delta", "sequence"]

# Fields taken from each record type, as databento_dbn names them
COLUMNS = {
    "TradeMsg": MBP,
    "MBP1Msg": MBP + levels(1),
    "MBP10Msg": MBP + levels(10),
    "OHLCVMsg": ["ts_event", "rtype", "publisher_id", "instrument_id", "open", "high", "low", "close", "volume"],
    "MBOMsg": ["ts_recv", "ts_event", "publisher_id", "instrument_id", "action", "side", "price", "size",
               "channel_id", "order_id", "flags", "ts_in_delta", "sequence"],
    "StatusMsg": ["ts_recv", "ts_event", "publisher_id", "instrument_id", "action", "reason", "trading_event",
                  "is_trading", "is_quoting", "is_short_sell_restricted"],
    "InstrumentDefMsg": ["ts_recv", "ts_event", "publisher_id", "instrument_id", "raw_symbol", "raw_instrument_id",
                         "instrument_class", "exchange", "currency", "min_lot_size_round_lot", "display_factor",
                         "min_price_increment", "security_update_action", "channel_id", "secsubtype"],
    "ImbalanceMsg": ["ts_recv", "ts_event", "publisher_id", "instrument_id", "ref_price", "cont_book_clr_price",
                     "auct_interest_clr_price", "paired_qty", "total_imbalance_qty", "side", "auction_type",
                     "significant_imbalance"],
}


def plain(value):
    """A JSON-friendly value: DBN enums and flag sets as their raw value, chars as one-letter strings."""
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    raw = getattr(value, "value", None)
    if raw is not None:
        return raw if not isinstance(raw, bytes) else raw.decode("ascii")
    try:
        return int(value)
    except (TypeError, ValueError):
        return str(value)


def decode(path):
    with open(path, "rb") as f:
        data = f.read()
    compression = dbn.Compression.ZSTD if data[:4] == ZSTD_MAGIC else dbn.Compression.NONE
    decoder = dbn.DBNDecoder(compression=compression)
    decoder.write(data)
    records = decoder.decode()
    if not records or not isinstance(records[0], dbn.Metadata):
        raise SystemExit(f"{path}: no DBN metadata")
    return compression, records[0], records[1:]


def frames(records):
    """One DataFrame per record type, built from the decoded records' fields."""
    rows = {}
    for record in records:
        name = type(record).__name__
        columns = COLUMNS.get(name)
        if columns is None:
            rows.setdefault(name, [])
            continue
        rows.setdefault(name, []).append([plain(getattr(record, c)) for c in columns])
    return {name: pd.DataFrame(r, columns=COLUMNS.get(name)) for name, r in rows.items()}


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    path = argv[1]
    summary_only = "--summary-only" in argv[2:]
    compression, metadata, records = decode(path)
    dfs = frames(records)
    summary = {
        "compression": "zstd" if compression == dbn.Compression.ZSTD else "none",
        "metadata": {
            "version": metadata.version,
            "dataset": metadata.dataset,
            "schema": plain(metadata.schema),
            "start": metadata.start,
            "end": metadata.end,
            "stype_in": plain(metadata.stype_in),
            "stype_out": plain(metadata.stype_out),
            "symbols": list(metadata.symbols),
            "mappings": {k: [[str(i["start_date"]), str(i["end_date"]), i["symbol"]] for i in v]
                         for k, v in metadata.mappings.items()},
        },
        "records": len(records),
        "counts": {name: len(df) for name, df in dfs.items()},
    }
    if not summary_only:
        summary["columns"] = {name: {c: df[c].tolist() for c in df.columns} for name, df in dfs.items()}
    json.dump(summary, sys.stdout, default=plain)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)
