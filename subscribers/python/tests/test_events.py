"""The Python reading of the canonical text: every event line and every books dump of the conformance suite's expected
outputs reads into dictionaries and price levels that render back to the same text."""

import pathlib
import unittest

import mdfanout

CONFORMANCE = pathlib.Path(__file__).resolve().parents[3] / "conformance"


def render(event):
    """The canonical line of a parsed event (conformance/README.md)."""
    parts = [event["type"]]
    for name, value in event.items():
        if name == "type":
            continue
        if isinstance(value, int):
            parts.append(f"{name}={value}")
        elif name == "reason" and event["type"] == "STALE":
            parts.append(f"{name}={value}")
        else:
            quoted = "".join(c if 0x20 <= ord(c) <= 0x7E and c not in '"\\' else f"\\x{ord(c):02x}" for c in value)
            parts.append(f'{name}="{quoted}"')
    return " ".join(parts)


def render_books(books):
    lines = []
    for instrument in sorted(books):
        book = books[instrument]
        lines.append(f"I {instrument}")
        lines += [f"B {p} {s} {o}" for p, s, o in book.bids] + [f"S {p} {s} {o}" for p, s, o in book.asks]
    return "".join(line + "\n" for line in lines)


class EventsTest(unittest.TestCase):
    def test_callbacks_get_each_event_of_their_type_in_order(self):
        events = mdfanout.read_events((CONFORMANCE / "cases" / "normal-flow.mdfc").read_bytes())
        adds, others = [], []
        handled = mdfanout.dispatch(events, {"AddOrder": adds.append, "AddOrderAttributed": adds.append},
                                    default=others.append)
        self.assertEqual(len(events), handled)
        self.assertEqual([e for e in events if e["type"] in ("AddOrder", "AddOrderAttributed")], adds)
        self.assertEqual(len(events) - len(adds), len(others))
        self.assertEqual(3, mdfanout.dispatch(events, {"AddOrder": lambda e: None}), "only the handled types")

    def test_every_expected_line_reads_and_renders_back(self):
        files = sorted((CONFORMANCE / "expected").glob("*.txt"))
        self.assertGreaterEqual(len(files), 8, files)
        lines = 0
        for path in files:
            events, books = path.read_text().split("BOOKS\n", 1)
            for line in events.splitlines():
                if line.startswith(("COUNTERS ", "MALFORMED ")):
                    continue
                with self.subTest(case=path.stem, line=line):
                    self.assertEqual(line, render(mdfanout.parse_event(line)))
                    lines += 1
            with self.subTest(case=path.stem, books=True):
                self.assertEqual(books, render_books(mdfanout.parse_books(books)))
        self.assertGreater(lines, 100)

    def test_fields_are_typed(self):
        event = mdfanout.parse_event(
            'InstrumentDirectory p=0 ss=2 sent=9 xs=2 ts=7 inst=2 symbol="A\\x22B\\x5c    " roundLotSize=100')
        self.assertEqual({"type": "InstrumentDirectory", "p": 0, "ss": 2, "sent": 9, "xs": 2, "ts": 7, "inst": 2,
                          "symbol": 'A"B\\    ', "roundLotSize": 100}, event)
        self.assertEqual({"type": "STALE", "p": 1, "reason": "EXCHANGE_GAP", "seq": 12},
                         mdfanout.parse_event("STALE p=1 reason=EXCHANGE_GAP seq=12"))

    def test_what_is_no_canonical_line_is_refused(self):
        for line in ["", "AddOrder p", 'AddOrder symbol="AB', "AddOrder p=1x=2"]:
            with self.subTest(line=line), self.assertRaises(ValueError):
                mdfanout.parse_event(line)
        with self.assertRaises(ValueError):
            mdfanout.parse_books("X 1\n")


if __name__ == "__main__":
    unittest.main()
