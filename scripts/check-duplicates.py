#!/usr/bin/env python3
"""The duplicate-code check of issue 28: PMD's copy-paste detector over every Java source of the tree (main and
test, all modules at once, so a copy in another module counts), in two passes:

  same lines   tokens compared as written (identifiers and literals kept);
  same shapes  identifiers and literals ignored, so a copy with renamed variables still matches.

Each reported duplication of SIX lines or more is matched against the ideas issue 28 gave one home each
(IDEAS below: a name and the files where that idea lives or used to live). The check fails when a duplication
joins two files of one idea: that idea has two homes again. Repeats inside one file (a setter's shape in
a configuration class, one branch per template in a formatter) are listed but do not fail. Every other
duplication is listed (with --all) but does not fail the build: a fluent setter has the shape of every other
fluent setter, and that is not a second home of an idea.

Usage: scripts/check-duplicates.py [--all] [--keep-xml DIR]
"""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

MIN_LINES = 6
PMD = "org.apache.maven.plugins:maven-pmd-plugin:3.28.0:aggregate-cpd"
# Tokens per pass: about six lines of this code base (measured on the tree: 60 tokens is 6 to 8 lines).
PASSES = {
    "same lines": ["-DminimumTokens=60"],
    "same shapes": ["-DminimumTokens=60", "-Dcpd.ignoreIdentifiers=true", "-Dcpd.ignoreLiterals=true"],
}

# Ideas checked on exact copies only: every fluent configuration setter has the shape of every other one, so
# shapes would find nothing but setters here; a default written twice is a copy of the same lines.
SAME_LINES_ONLY = {
    "shared defaults of the roles": r"/(Defaults|FeedHandlerConfig|FanoutConfig|SubscriberOptions|FeedSubscriber(Options)?)\.java$",
}

# Each idea issue 28 names, and the files (path regular expressions) that hold it now or held it before.
IDEAS = {
    "MoldUDP64 sequencing": r"feed/handler/(LineArbiter|MoldUdp64PacketProcessor|SequenceTracker)\.java$",
    "idle-strategy parsing": r"/(IdleStrategies|IdleStrategyType|IdleStrategyChoice|IdleOptions|IdleStrategyParser)\.java$",
    "the subscriber tools' option preamble": r"subscribers/tools/src/main/java/io/mdfanout/tools/(Book|Check|Tail|Stats|Record|Latency)Command\.java$",
    "role option shapes": r"/(FeedHandlerCommand|FanoutCommand|ReplayCommand|SimulatorCommand|MediaDriverCommand)\.java$",
    "SDK packet processing": r"subscribers/sdk/src/main/java/io/mdfanout/sdk/[^/]+\.java$",
    "SDK test fixtures": r"subscribers/sdk/src/test/java/.*\.java$",
    "counter type ids": r"/(CounterTypeIds|CounterMappings|CounterRule)\.java$",
    "error reporting": r"/(RoleErrorLog|ErrorLog[A-Za-z]*)\.java$",
}


def run_cpd(root, flags, out_dir):
    cmd = ["mvn", "-B", "-ntp", "-q", PMD, "-Dformat=xml", "-DincludeTests=true",
           "-Dcpd.skip=false", "-DtargetDirectory=" + out_dir] + flags
    result = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    xml_path = os.path.join(root, "target", "cpd.xml")
    if result.returncode != 0 or not os.path.exists(xml_path):
        sys.stderr.write(result.stdout + result.stderr)
        sys.exit("check-duplicates: PMD's CPD failed (%s)" % " ".join(cmd))
    return xml_path


def duplications(xml_path, root):
    tree = ET.parse(xml_path).getroot()
    ns = tree.tag.split("}")[0] + "}" if tree.tag.startswith("{") else ""
    for dup in tree.findall(ns + "duplication"):
        lines = int(dup.get("lines"))
        places = [(os.path.relpath(f.get("path"), root), int(f.get("line"))) for f in dup.findall(ns + "file")]
        yield lines, places


def main():
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    show_all = "--all" in sys.argv
    failures = []
    others = 0
    for name, flags in PASSES.items():
        with tempfile.TemporaryDirectory() as scratch:
            xml_path = run_cpd(root, flags, scratch)
            for lines, places in duplications(xml_path, root):
                if lines < MIN_LINES:
                    continue
                text = "%s, %d lines: %s" % (name, lines, " | ".join("%s:%d" % p for p in places))
                hit = None
                ideas = dict(IDEAS, **SAME_LINES_ONLY) if name == "same lines" else IDEAS
                for idea, pattern in ideas.items():
                    inside = {p[0] for p in places if re.search(pattern, p[0])}
                    if len(inside) >= 2:
                        hit = idea
                        break
                if hit:
                    failures.append("%s (%s)" % (text, hit))
                else:
                    others += 1
                    if show_all:
                        print("  other: " + text)
    print("check-duplicates: %d duplication(s) of %d+ lines outside the named ideas (--all lists them)"
          % (others, MIN_LINES))
    if failures:
        print("check-duplicates: FAILED: an idea with one home is written twice:")
        for failure in failures:
            print("  " + failure)
        return 1
    print("check-duplicates: none of the named ideas is duplicated: " + ", ".join(list(IDEAS) + list(SAME_LINES_ONLY)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
