"""Events as pandas DataFrames: a recorded packet stream (a conformance case) read into one, exact to the nanosecond,
filtered by type; a clear error without pandas."""

import pathlib
import sys
import unittest

import mdfanout

CONFORMANCE = pathlib.Path(__file__).resolve().parents[3] / "conformance"


class PandasTest(unittest.TestCase):
    def setUp(self):
        self.case = (CONFORMANCE / "cases" / "normal-flow.mdfc").read_bytes()
        expected = (CONFORMANCE / "expected" / "normal-flow.txt").read_text()
        self.lines = expected.split("COUNTERS ", 1)[0].splitlines()

    def test_a_recorded_stream_reads_as_the_events_every_sdk_delivers(self):
        events = mdfanout.read_events(self.case)
        self.assertEqual([mdfanout.parse_event(line) for line in self.lines], events)

    def test_a_dataframe_has_a_row_per_event_and_a_column_per_field_exactly(self):
        events = mdfanout.read_events(self.case)
        frame = mdfanout.to_dataframe(events)
        self.assertEqual(len(events), len(frame))
        self.assertEqual(["type", "p"], list(frame.columns[:2]))
        self.assertEqual([e["type"] for e in events], list(frame["type"]))
        for name in ("sent", "ts", "xs"):
            self.assertEqual("Int64", str(frame[name].dtype), name)
            self.assertEqual([e.get(name) for e in events],
                             [None if v is frame[name].dtype.na_value else int(v) for v in frame[name]], name)
        # nanosecond times beyond a float's 53 bits stay exact
        big = {"type": "Trade", "p": 0, "sent": (1 << 62) + 1, "symbol": "AAPL    "}
        one = mdfanout.to_dataframe([big, {"type": "HEARTBEAT", "p": 1, "next": (1 << 64) - 1}])
        self.assertEqual((1 << 62) + 1, int(one["sent"][0]))
        self.assertEqual("UInt64", str(one["next"].dtype))
        self.assertEqual("AAPL    ", one["symbol"][0])
        self.assertTrue(one["symbol"].isna()[1])

    def test_a_dataframe_of_some_types_only(self):
        events = mdfanout.read_events(self.case)
        adds = mdfanout.to_dataframe(events, types=["AddOrder"])
        expected = [e for e in events if e["type"] == "AddOrder"]
        self.assertGreater(len(expected), 0)
        self.assertEqual(len(expected), len(adds))
        self.assertEqual([e["price"] for e in expected], [int(v) for v in adds["price"]])
        self.assertEqual(0, len(mdfanout.to_dataframe(events, types=["NoSuchTemplate"])))

    def test_without_pandas_the_error_says_what_to_install(self):
        saved = sys.modules.get("pandas")
        sys.modules["pandas"] = None  # import pandas now raises ImportError
        try:
            with self.assertRaises(ImportError) as raised:
                mdfanout.to_dataframe([])
            self.assertIn("mdfanout[pandas]", str(raised.exception))
        finally:
            if saved is None:
                del sys.modules["pandas"]
            else:
                sys.modules["pandas"] = saved


if __name__ == "__main__":
    unittest.main()
