#!/usr/bin/env python3
"""The mdfanout feed's top of book for some symbols, live, from Python: the Python SDK's ``Subscriber``.

A media driver runs on this host (``mdfanout media-driver --aeron-dir DIR``, or any Aeron driver); this joins the
fanout's channel through it, keeps the books, learns each symbol's instrument id from the feed's instrument directory,
and prints each symbol's best bid and offer once a second: ``AAPL 1514 @ 2010100 / 4200 @ 2010300`` (shares @ price,
prices x 10^-4; ``-`` for a side without orders). Exit 0 once ``--messages`` messages arrived and every symbol has a live book; 1 when ``--timeout-s``
passes first (0: run until interrupted).
"""

import argparse
import sys
import time

import mdfanout


def best(levels):
    """A side's best level as ``shares @ price``, or ``-`` when the side has no order."""
    return f"{levels[0][1]} @ {levels[0][0]}" if levels else "-"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--channel", default="aeron:udp?endpoint=224.0.1.1:40456|interface=127.0.0.1|mtu=8192",
                        help="the fanout's channel (default: make demo's)")
    parser.add_argument("--stream-id-base", type=int, default=1000, help="the fanout's --stream-id-base")
    parser.add_argument("--partitions", type=int, default=4, help="the feed's partition count")
    parser.add_argument("--aeron-dir", help="the media driver's directory (default: Aeron's)")
    parser.add_argument("--symbol", action="append", help="a symbol to show (repeat; default AAPL)")
    parser.add_argument("--messages", type=int, default=0, help="exit 0 after this many messages with live books")
    parser.add_argument("--timeout-s", type=float, default=0, help="exit 1 after this long (0: never)")
    args = parser.parse_args(argv)
    if args.partitions < 1:
        parser.error("--partitions must be at least 1")
    symbols = args.symbol or ["AAPL"]

    try:
        subscriber = mdfanout.Subscriber(args.channel, list(range(args.partitions)),
                                         stream_id_base=args.stream_id_base, aeron_dir=args.aeron_dir)
    except ConnectionError as e:
        print(f"top_of_book: {e} (start one: mdfanout media-driver --aeron-dir DIR)", file=sys.stderr)
        return 2
    instruments = {}  # symbol -> instrument id, from the feed's InstrumentDirectory
    messages = 0
    started = time.monotonic()
    next_print = started + 1
    while True:
        for event in subscriber.poll(timeout_s=0.05):
            if "xs" in event:
                messages += 1
            if event["type"] == "InstrumentDirectory":
                instruments[event["symbol"].rstrip()] = event["inst"]
            elif event["type"] == "STALE":
                print(f"partition {event['p']} stale: {event['reason']}")
            elif event["type"] == "RECOVERED":
                print(f"partition {event['p']} recovered")
        now = time.monotonic()
        if now >= next_print:
            next_print = now + 1
            books = subscriber.books()
            live = 0
            for symbol in symbols:
                book = books.get(instruments.get(symbol, -1))
                if book:  # books() holds instruments with a resting order only
                    live += 1
                    print(f"{symbol} {best(book.bids)} / {best(book.asks)}")
                else:
                    print(f"{symbol} (no order yet)")
            print(f"top-of-book: {messages} messages, a live book of {live} of {len(symbols)} symbols", flush=True)
            if args.messages and messages >= args.messages and live == len(symbols):
                return 0
        if args.timeout_s and now - started >= args.timeout_s:
            print(f"top-of-book: timed out after {args.timeout_s:g} s", file=sys.stderr)
            return 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
