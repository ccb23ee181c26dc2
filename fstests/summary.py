#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise fstests runs of hugetmpfs against tmpfs.

usage: summary.py [--expunge FILE] [--out DIR] RESULTS...

Each RESULTS directory holds one fstests RESULT_BASE per mode, named
FS-HUGE (hugetmpfs-always, tmpfs-always, ...), each with its result.xml
(check -R xunit) or else its check.log and the tests' .notrun files.
A mode's timed-out file (from fstests/watchdog: "TEST SECONDS" lines)
marks the tests killed for taking too long: failed, and said so. Several
RESULTS directories (slices of one long run) are merged; a test seen twice
keeps its last result. Prints, and with --out writes as
summary.md and summary.json: per mode the tests that passed, failed and
did not run, and the list that matters: tests that fail on hugetmpfs but
pass on tmpfs with the same huge= option. Exits 1 if that list is not
empty, 2 if nothing ran.
"""
import argparse
import json
import os
import sys
import xml.etree.ElementTree as ET


def read_mode(path):
    """{test: (status, message)} from one result.xml"""
    tests = {}
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        name = case.get("name")
        failure = case.find("failure")
        skipped = case.find("skipped")
        if failure is not None:
            tests[name] = ("fail", failure.get("message") or "")
        elif skipped is not None:
            tests[name] = ("notrun", skipped.get("message") or "")
        else:
            tests[name] = ("pass", "")
    return tests


def read_log(base):
    """{test: (status, message)} from check.log, without an xunit report"""
    tests = {}
    with open(os.path.join(base, "check.log")) as f:
        for line in f:
            key, _, names = line.partition(": ")
            names = names.split()
            if key == "Ran":
                for t in names:
                    tests[t] = ("pass", "")
            elif key in ("Not run", "Failures"):
                for t in names:
                    why = ""
                    notrun = os.path.join(base, t + ".notrun")
                    if key == "Not run" and os.path.exists(notrun):
                        with open(notrun) as n:
                            why = n.read().strip()
                    tests[t] = ("notrun" if key == "Not run" else "fail", why)
    return tests


def read_timed_out(base, tests):
    """Mark the tests fstests/watchdog killed in base: failed, timed out"""
    path = os.path.join(base, "timed-out")
    if not os.path.exists(path):
        return
    with open(path) as f:
        for line in f:
            test, _, secs = line.partition(" ")
            if test:
                tests[test] = ("fail", "timed out after %s s" % secs.strip())


def read_expunge(path):
    """{test: reason} from an fstests expunge file (reason after #)"""
    reasons = {}
    if not path or not os.path.exists(path):
        return reasons
    with open(path) as f:
        for line in f:
            test, _, why = line.partition("#")
            if test.strip():
                reasons[test.strip()] = why.strip()
    return reasons


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expunge")
    ap.add_argument("--out")
    ap.add_argument("results", nargs="+")
    args = ap.parse_args()

    modes = {}
    for res in args.results:
        for name in sorted(os.listdir(res)):
            base = os.path.join(res, name)
            if os.path.exists(os.path.join(base, "result.xml")):
                tests = read_mode(os.path.join(base, "result.xml"))
            elif os.path.exists(os.path.join(base, "check.log")):
                tests = read_log(base)
            else:
                continue
            read_timed_out(base, tests)
            modes.setdefault(name, {}).update(tests)
    expunged = read_expunge(args.expunge)

    lines = ["# fstests: hugetmpfs against tmpfs", ""]
    lines.append("| mode | ran | passed | failed | not run |")
    lines.append("|---|---|---|---|---|")
    counts = {}
    for name in sorted(modes):
        st = [s for s, _ in modes[name].values()]
        c = {k: st.count(k) for k in ("pass", "fail", "notrun")}
        counts[name] = c
        lines.append("| %s | %d | %d | %d | %d |" % (
            name, c["pass"] + c["fail"], c["pass"], c["fail"], c["notrun"]))
    lines.append("")

    regressions = []
    for name in sorted(modes):
        fs, _, huge = name.partition("-")
        if fs != "hugetmpfs":
            continue
        ref = modes.get("tmpfs-" + huge, {})
        ht = modes[name]
        lines.append("## huge=%s" % huge)
        lines.append("")
        rows = []
        for test in sorted(set(ht) | set(ref) | set(expunged)):
            a = ht.get(test, ("expunged" if test in expunged else "-", ""))
            b = ref.get(test, ("-", ""))
            if a[0] == "fail" and b[0] == "pass":
                regressions.append("%s (huge=%s)" % (test, huge))
                verdict = "**fails on hugetmpfs only**"
                if a[1].startswith("timed out"):
                    verdict += ": " + a[1]
            elif a[0] == "fail" and b[0] == "fail":
                verdict = "fails on both"
                if a[1].startswith("timed out") and b[1].startswith("timed out"):
                    verdict = "times out on both"
            elif a[0] == "fail":
                verdict = "fails on hugetmpfs, tmpfs: %s" % b[0]
            elif b[0] == "fail" and a[0] == "pass":
                verdict = "fails on tmpfs only"
            elif a[0] == "notrun" and b[0] == "pass":
                verdict = "runs on tmpfs only: " + a[1]
            elif test in expunged and a[0] == "expunged":
                verdict = "expunged: " + expunged[test]
            else:
                continue
            rows.append("| %s | %s | %s | %s |" % (test, a[0], b[0], verdict))
        if rows:
            lines.append("| test | hugetmpfs | tmpfs | |")
            lines.append("|---|---|---|---|")
            lines.extend(rows)
        else:
            lines.append("Every test has the same result on both.")
        lines.append("")

    lines.append("## Fail on hugetmpfs, pass on tmpfs")
    lines.append("")
    lines.append(", ".join(regressions) if regressions else "None.")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "summary.md"), "w") as f:
            f.write(text)
        with open(os.path.join(args.out, "summary.json"), "w") as f:
            json.dump({"counts": counts, "regressions": regressions,
                       "tests": {m: {t: s for t, (s, _) in modes[m].items()}
                                 for m in modes}},
                      f, indent=1, sort_keys=True)
    if not any(c["pass"] + c["fail"] for c in counts.values()):
        print("summary: no test ran", file=sys.stderr)
        return 2
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
