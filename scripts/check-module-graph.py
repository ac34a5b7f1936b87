#!/usr/bin/env python3
"""Checks that the module dependency graph in docs/DESIGN.md is the one the poms declare.

The graph is the fenced block after the line `<!-- module-graph -->` in docs/DESIGN.md, one line per reactor
module, in the order of the root pom's <modules>:

    module -> dep, dep (test: dep, dep)

`module` is the module's directory (as the root pom lists it), each `dep` the directory of another reactor module;
test-scoped dependencies (test-jars included) go after `test:`. The poms are the truth: the check fails, naming
each difference, when the block and the poms disagree (a missing or extra module, edge or scope).

Usage: scripts/check-module-graph.py [--design FILE]
       scripts/check-module-graph.py --self-test   (shows the check fails on a wrong graph)
"""
import os
import re
import sys
import tempfile
import xml.etree.ElementTree as ET

POM_NS = {"m": "http://maven.apache.org/POM/4.0.0"}
MARKER = "<!-- module-graph -->"


def read_pom(path):
    return ET.parse(path).getroot()


def reactor_modules(root_dir):
    """(module directory, artifactId) for every module of the reactor, in <modules> order, recursively."""
    result = []

    def walk(directory, prefix):
        pom = read_pom(os.path.join(directory, "pom.xml"))
        for module in pom.findall("m:modules/m:module", POM_NS):
            name = module.text.strip()
            path = os.path.normpath(os.path.join(directory, name))
            rel = os.path.normpath(os.path.join(prefix, name)) if prefix else name
            module_pom = read_pom(os.path.join(path, "pom.xml"))
            artifact = module_pom.find("m:artifactId", POM_NS).text.strip()
            result.append((rel, artifact))
            if module_pom.find("m:modules", POM_NS) is not None:
                walk(path, rel)

    walk(root_dir, "")
    return result


def pom_graph(root_dir):
    modules = reactor_modules(root_dir)
    by_artifact = {artifact: rel for rel, artifact in modules}
    graph = {}
    for rel, _ in modules:
        pom = read_pom(os.path.join(root_dir, rel, "pom.xml"))
        compile_deps, test_deps = [], []
        for dep in pom.findall("m:dependencies/m:dependency", POM_NS):
            artifact = dep.find("m:artifactId", POM_NS).text.strip()
            if artifact not in by_artifact:
                if artifact.startswith("mdfanout-"):
                    UNKNOWN.append("%s -> %s: the pom names a project artifact that is no module of the reactor" %
                                   (rel, artifact))
                continue
            scope = dep.find("m:scope", POM_NS)
            dep_type = dep.find("m:type", POM_NS)
            classifier = dep.find("m:classifier", POM_NS)
            is_test = (scope is not None and scope.text.strip() == "test") or \
                (dep_type is not None and dep_type.text.strip() == "test-jar") or \
                (classifier is not None and classifier.text.strip() == "tests")
            target = test_deps if is_test else compile_deps
            if by_artifact[artifact] not in target:
                target.append(by_artifact[artifact])
        test_only = [d for d in test_deps if d not in compile_deps]
        graph[rel] = (set(compile_deps), set(test_only))
    return [rel for rel, _ in modules], graph


UNKNOWN = []

LINE = re.compile(r"^\s*(\S+)\s*->\s*([^()]*?)\s*(?:\(test:\s*([^)]*)\))?\s*$")


def design_graph(design_path):
    text = open(design_path, encoding="utf-8").read()
    if MARKER not in text:
        sys.exit("check-module-graph: %s has no '%s' followed by the graph block" % (design_path, MARKER))
    after = text.split(MARKER, 1)[1]
    match = re.search(r"```[a-z]*\n(.*?)```", after, re.S)
    if not match:
        sys.exit("check-module-graph: no fenced block after '%s' in %s" % (MARKER, design_path))
    order, graph = [], {}
    for raw in match.group(1).splitlines():
        if not raw.strip():
            continue
        parsed = LINE.match(raw)
        if not parsed:
            sys.exit("check-module-graph: cannot read the graph line %r (module -> dep, dep (test: dep))" % raw)
        split = lambda s: {d.strip() for d in (s or "").split(",") if d.strip() and d.strip() != "-"}
        order.append(parsed.group(1))
        graph[parsed.group(1)] = (split(parsed.group(2)), split(parsed.group(3)))
    return order, graph


def differences(root_dir, design_path):
    pom_order, poms = pom_graph(root_dir)
    doc_order, doc = design_graph(design_path)
    problems = list(dict.fromkeys(UNKNOWN))
    for module in pom_order:
        if module not in doc:
            problems.append("module %s: in the poms, missing from DESIGN.md" % module)
    for module in doc_order:
        if module not in poms:
            problems.append("module %s: in DESIGN.md, not a module of the reactor" % module)
    for module in pom_order:
        if module not in doc:
            continue
        for index, kind in ((0, "compile"), (1, "test")):
            pom_deps, doc_deps = poms[module][index], doc[module][index]
            for dep in sorted(pom_deps - doc_deps):
                problems.append("%s -> %s (%s): the pom says so, DESIGN.md does not" % (module, dep, kind))
            for dep in sorted(doc_deps - pom_deps):
                problems.append("%s -> %s (%s): DESIGN.md says so, the pom does not" % (module, dep, kind))
    if not problems and [m for m in doc_order] != pom_order:
        problems.append("order: DESIGN.md lists %s, the root pom %s" % (", ".join(doc_order), ", ".join(pom_order)))
    return problems


def self_test(root_dir, design_path):
    """The check must fail on a graph with an edge removed and on one with an edge added."""
    text = open(design_path, encoding="utf-8").read()
    block = text.split(MARKER, 1)[1]
    line = next(l for l in re.search(r"```[a-z]*\n(.*?)```", block, re.S).group(1).splitlines() if "->" in l and
                LINE.match(l).group(2).strip() not in ("", "-"))
    module, deps = LINE.match(line).group(1), LINE.match(line).group(2)
    first = [d.strip() for d in deps.split(",")][0]
    removed = line.replace(first + ", ", "", 1) if first + ", " in line else line.replace(first, "-", 1)
    cases = {"an edge removed": text.replace(line, removed, 1),
             "an edge added": text.replace(line, line.replace("->", "-> bench,", 1), 1)}
    for name, wrong in cases.items():
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as scratch:
            scratch.write(wrong)
        try:
            found = differences(root_dir, scratch.name)
        finally:
            os.unlink(scratch.name)
        if not found:
            print("check-module-graph: self-test FAILED: %s (%s) was not noticed" % (name, module))
            return 1
        print("check-module-graph: self-test: %s is noticed: %s" % (name, found[0]))
    return 0


def main():
    root_dir = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    design_path = os.path.join(root_dir, "docs", "DESIGN.md")
    if "--design" in sys.argv:
        design_path = sys.argv[sys.argv.index("--design") + 1]
    if "--self-test" in sys.argv:
        return self_test(root_dir, design_path)
    problems = differences(root_dir, design_path)
    if problems:
        print("check-module-graph: FAILED: docs/DESIGN.md's module graph is not the poms':")
        for problem in problems:
            print("  " + problem)
        return 1
    print("check-module-graph: docs/DESIGN.md's module graph matches the poms (%d modules)" % len(pom_graph(root_dir)[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
