#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a benchmark run (results.csv, plan.txt, meta.txt from run-bench) into
results.json, report.md and charts/*.png in the same directory.

    report.py DIR            write the report (charts need python3-matplotlib)
    report.py --check DIR    only check that every planned run produced every
                             figure it should, as numbers; exit 1 if not

Every figure is kept as median [min-max] over rounds. A ratio compares a
hugetmpfs mount with a reference run in the same round (rounds are
interleaved, so both saw the same noise) and is given as hugetmpfs's
advantage: above 1 is better for hugetmpfs, whichever way the unit goes.
"""
import csv
import json
import os
import statistics
import sys

# Units where a smaller figure is better; all others are higher-better.
LOWER_BETTER = {"ns", "ms", "s", "kB", "B/B", "%cpu"}

# The figures each workload must produce (besides peak_shmem and
# peak_page_tables, which every run has), by the workload's name prefix.
EXPECTED = {
    "memcpy": ["memcpy_write", "memcpy_read"],
    "stream": ["write", "read"],
    "mmap": ["first_touch", "chase", "scan"],
    "fio": ["iops", "latency"],
    "smallfiles": ["create", "shmem_per_byte_written", "statfs_per_byte_written",
                   "shmem_per_byte_dropped", "statfs_per_byte_dropped", "shrink_pass"],
    "meta": ["create", "stat", "rename", "unlink"],
    "punch": ["punch", "shmem_per_byte_punched", "refill"],
    "share": ["page_tables", "touch", "access"],
    "frag": ["write_4k", "pmd_fraction_0s", "background_mb_s", "background_cpu",
             "unthrottled_mb_s", "unthrottled_cpu", "pmd_fraction_unthrottled",
             "idle_cpu", "collapse", "pmd_fraction_collapsed"],
    "swap": ["write", "read", "swapped", "swapin"],
}
PEAKS = ["peak_shmem", "peak_page_tables"]

DESCRIBE = {
    "memcpy": "memcpy bandwidth on anonymous memory, 1 MiB blocks: the ceiling for write()/read() through the page cache",
    "stream": "write() then read() of a new file in 1 MiB blocks",
    "mmap": "shared mapping of a new file: first touch of every page (faults), dependent random pointer chase over every page (ns per step), sequential scan",
    "fio": "fio, 4 KiB random I/O on one shared file, time-based",
    "smallfiles": "many files of one size: create rate, memory per byte of data (Shmem and statfs) before and after drop_caches 2 (which runs the hole shrinker), and how long that pass takes",
    "meta": "create / stat / rename / unlink of empty files",
    "punch": "64 KiB of data at the start of each 2 MiB range, then a 4 KiB hole punched in it (the huge folio is split): time per punch and Shmem per byte of data after it; then 64 KiB written where there never was data: time per write. Data checked",
    "share": "two processes map one file already in memory: page-table memory, time to touch every page the first time and again",
    "swap": "through swap (zram), from a memory cgroup limited to half the file: write() of the file in 1 MiB blocks (half of it goes out as it is written), read() of it all back, checked (swapping in and out), then memory.reclaim of all of it (swapped: the MB in swap after it) and a second read: the rate at which a file swapped out comes back",
    "frag": "file written in 4 KiB pieces with huge pages unavailable, then available again and kept mapped: the background agent (hugetmpfs's collapse thread; khugepaged for tmpfs) at its defaults, then unthrottled (no pause, 1 GiB passes): rate made huge (MB/s) and its CPU use (% of one CPU), then idle; a second file collapsed explicitly with the agent paused (HUGETMPFS_IOC_COLLAPSE; MADV_COLLAPSE on tmpfs): time and fraction after",
}

# What each hugetmpfs mount is compared with.
TMPFS_TWIN = {"ht-always": "tmpfs-always", "ht-within": "tmpfs-within",
              "ht-never": "tmpfs-never"}
HT_MOUNTS = list(TMPFS_TWIN)


def prefix(workload):
    return workload.split("-")[0]


def load(d):
    rows = []
    with open(os.path.join(d, "results.csv")) as f:
        for r in csv.DictReader(f):
            r["round"] = int(r["round"])
            r["value"] = float(r["value"])
            rows.append(r)
    plan = []
    with open(os.path.join(d, "plan.txt")) as f:
        plan = [tuple(line.split()) for line in f if line.strip()]
    meta = {}
    for name in ("meta.txt", "host.txt"):
        p = os.path.join(d, name)
        if os.path.exists(p):
            with open(p) as f:
                for line in f:
                    k, _, v = line.rstrip("\n").partition(" ")
                    meta[k] = v
    return rows, plan, meta


def check(rows, plan, meta):
    """Problems with a run: missing or non-numeric figures."""
    problems = []
    rounds = int(meta.get("rounds", "1"))
    have = {}
    failed = {}
    for r in rows:
        # A failed run (data check, exit status) has a "failed" row and
        # no figures: analyse() leaves it out, here it is a problem.
        if r["metric"] == "failed":
            failed.setdefault((r["workload"], r["mount"]), set()).add(r["round"])
            problems.append("FAILED: %s on %s in round %d (left out)"
                            % (r["workload"], r["mount"], r["round"]))
            continue
        have.setdefault((r["workload"], r["mount"], r["metric"]), set()).add(r["round"])
        if r["value"] != r["value"]:
            problems.append("NaN: %s" % r)
    if not plan:
        problems.append("nothing was planned")
    for w, m in plan:
        if prefix(w) not in EXPECTED:
            problems.append("unknown workload %s" % w)
            continue
        for metric in EXPECTED[prefix(w)] + PEAKS:
            got = have.get((w, m, metric), set())
            if len(got) != rounds - len(failed.get((w, m), ())):
                problems.append("%s on %s: %s in %d of %d rounds"
                                % (w, m, metric, len(got), rounds))
    return problems


def summary(values):
    return {"median": statistics.median(values), "min": min(values),
            "max": max(values), "n": len(values)}


def advantage(ht, ref, unit):
    if unit in LOWER_BETTER:
        return ref / ht if ht > 0 else None
    return ht / ref if ref > 0 else None


def ratios(series, mount, ref, unit):
    """Per-round advantage of @mount over @ref, summarized; None if none."""
    a, b = series.get(mount, {}), series.get(ref, {})
    vals = [advantage(a[r], b[r], unit) for r in sorted(a) if r in b]
    vals = [v for v in vals if v is not None]
    return summary(vals) if vals else None


def analyse(rows):
    """{(workload, metric): {"unit", "series": {mount: {round: v}}, ...}}"""
    figs = {}
    for r in rows:
        if r["metric"] == "failed":
            continue
        f = figs.setdefault((r["workload"], r["metric"]),
                            {"unit": r["unit"], "series": {}})
        f["series"].setdefault(r["mount"], {})[r["round"]] = r["value"]
    for (w, metric), f in figs.items():
        f["stats"] = {m: summary(list(s.values())) for m, s in f["series"].items()}
        f["vs_tmpfs"] = {m: ratios(f["series"], m, TMPFS_TWIN[m], f["unit"])
                         for m in HT_MOUNTS if m in f["series"]}
        f["vs_hugetlbfs"] = {m: ratios(f["series"], m, "hugetlbfs", f["unit"])
                             for m in HT_MOUNTS if m in f["series"]}
        f["vs_never"] = {m: ratios(f["series"], m, "ht-never", f["unit"])
                         for m in HT_MOUNTS if m in f["series"] and m != "ht-never"}
    return figs


def fmt(v):
    if v is None:
        return "—"
    a = abs(v)
    if a >= 100 or v == 0:
        return "%.0f" % v
    if a >= 10:
        return "%.1f" % v
    if a >= 0.01:
        return "%.3g" % v
    return "%.2g" % v


def span(s):
    if s is None:
        return "—"
    if s["n"] == 1:
        return fmt(s["median"])
    return "%s [%s–%s]" % (fmt(s["median"]), fmt(s["min"]), fmt(s["max"]))


def ratio_span(s):
    if s is None:
        return "—"
    if s["n"] == 1:
        return "%.2f×" % s["median"]
    return "%.2f× [%.2f–%.2f]" % (s["median"], s["min"], s["max"])


# The targets of the benchmark issue: (workload, metric, comparison, mounts, goal)
TARGETS = [
    ("stream", "write", "vs_tmpfs", HT_MOUNTS, 1.0),
    ("stream", "read", "vs_tmpfs", HT_MOUNTS, 1.0),
    ("mmap", "first_touch", "vs_tmpfs", HT_MOUNTS, 1.0),
    ("mmap", "chase", "vs_tmpfs", HT_MOUNTS, 1.0),
    ("mmap", "scan", "vs_tmpfs", HT_MOUNTS, 1.0),
    ("mmap", "chase", "vs_hugetlbfs", ["ht-always", "ht-within"], 0.97),
    ("mmap", "first_touch", "vs_never", ["ht-always", "ht-within"], 2.5),
]


def targets(figs):
    out = []
    for w, metric, cmp, mounts, goal in TARGETS:
        f = figs.get((w, metric))
        for m in mounts:
            s = f[cmp].get(m) if f else None
            out.append({"workload": w, "metric": metric, "mount": m,
                        "against": cmp[3:], "goal": goal, "ratio": s,
                        "met": None if s is None else s["median"] >= goal})
    return out


def charts(d, figs, workloads):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "charts skipped: python3-matplotlib is not installed"
    os.makedirs(os.path.join(d, "charts"), exist_ok=True)
    for w in workloads:
        metrics = [k[1] for k in figs if k[0] == w and figs[k]["vs_tmpfs"]]
        metrics = [m for m in metrics
                   if any(figs[(w, m)]["vs_tmpfs"].values())]
        if not metrics:
            continue
        fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(metrics) + 2), 4))
        width = 0.8 / len(HT_MOUNTS)
        for i, mount in enumerate(HT_MOUNTS):
            xs, ys, lo, hi = [], [], [], []
            for j, metric in enumerate(metrics):
                s = figs[(w, metric)]["vs_tmpfs"].get(mount)
                if not s:
                    continue
                xs.append(j + (i - 1) * width)
                ys.append(s["median"])
                lo.append(s["median"] - s["min"])
                hi.append(s["max"] - s["median"])
            ax.bar(xs, ys, width, yerr=[lo, hi], capsize=3,
                   label="%s vs %s" % (mount, TMPFS_TWIN[mount]))
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(metrics)))
        ax.set_xticklabels(metrics, rotation=20, ha="right")
        ax.set_ylabel("hugetmpfs advantage (×, >1 better)")
        ax.set_title("%s: hugetmpfs / tmpfs, same huge= (median, min–max)" % w)
        ax.legend(fontsize="small")
        fig.tight_layout()
        fig.savefig(os.path.join(d, "charts", "%s.png" % w), dpi=90)
        plt.close(fig)
    return None


def report(d, rows, plan, meta, problems):
    figs = analyse(rows)
    workloads = []
    for w, _ in plan:
        if w not in workloads:
            workloads.append(w)
    tgt = targets(figs)
    note = charts(d, figs, workloads)

    L = []
    L.append("# hugetmpfs benchmark: %s" % meta.get("date", "?"))
    L.append("")
    L.append("| | |")
    L.append("|---|---|")
    for k in ("mode", "rounds", "kernel", "commit", "accel", "cpus",
              "memory_kb", "cpu_model", "host_cpu", "thp_enabled", "thp_defrag"):
        if k in meta:
            L.append("| %s | %s |" % (k, meta[k]))
    L.append("")
    if meta.get("accel", "tcg") == "tcg":
        L.append("**The guest ran under QEMU TCG** (no KVM): every figure is "
                 "emulated time. TCG does not model the hardware TLB, so it "
                 "cannot show the TLB reach that PMD mappings buy (the random "
                 "pointer chase and the shared-mapping access times are page-"
                 "walk and fault costs as TCG emulates them, not what a real "
                 "CPU would see). Faults, zeroing, copies and page-table "
                 "memory are real work and compare fairly.")
        L.append("")
    L.append("How to read: every figure is the median over rounds with "
             "[min–max]. Rounds are interleaved (round 1 of every workload "
             "on every mount, then round 2 ...). Ratios are taken per round "
             "against the reference run of the same round, then summarized "
             "the same way; a ratio is hugetmpfs's **advantage**: above 1× "
             "is better for hugetmpfs whichever way the unit goes (MB/s, "
             "ops/s, files/s and fraction: higher is better; ns, ms, kB and "
             "B/B: lower is better). `peak_shmem` and `peak_page_tables` "
             "are the highest rise of Shmem and PageTables during the run.")
    L.append("")
    if problems:
        L.append("**Problems:** " + "; ".join(problems))
        L.append("")
    if note:
        L.append("(%s)" % note)
        L.append("")

    L.append("## Targets")
    L.append("")
    L.append("| workload | figure | mount | against | goal | advantage | met |")
    L.append("|---|---|---|---|---|---|---|")
    for t in tgt:
        L.append("| %s | %s | %s | %s | ≥ %.2f× | %s | %s |" % (
            t["workload"], t["metric"], t["mount"], t["against"], t["goal"],
            ratio_span(t["ratio"]),
            "—" if t["met"] is None else ("yes" if t["met"] else "**no**")))
    L.append("")

    for w in workloads:
        L.append("## %s" % w)
        L.append("")
        L.append(DESCRIBE.get(prefix(w), ""))
        L.append("")
        if os.path.exists(os.path.join(d, "charts", "%s.png" % w)):
            L.append("![%s](charts/%s.png)" % (w, w))
            L.append("")
        mounts = [m for ww, m in plan if ww == w]
        has_tlb = "hugetlbfs" in mounts
        head = "| figure | unit | mount | median [min–max] | vs tmpfs same huge= |"
        if has_tlb:
            head += " vs hugetlbfs |"
        L.append(head)
        L.append("|---" * (6 if has_tlb else 5) + "|")
        for (ww, metric), f in figs.items():
            if ww != w:
                continue
            for m in mounts:
                if m not in f["stats"]:
                    continue
                line = "| %s | %s | %s | %s | %s |" % (
                    metric, f["unit"], m, span(f["stats"][m]),
                    ratio_span(f["vs_tmpfs"].get(m)))
                if has_tlb:
                    line += " %s |" % ratio_span(f["vs_hugetlbfs"].get(m))
                L.append(line)
        L.append("")

    with open(os.path.join(d, "report.md"), "w") as f:
        f.write("\n".join(L))
    out = {"meta": meta, "problems": problems, "targets": tgt,
           "rows": rows,
           "figures": [{"workload": w, "metric": m, "unit": f["unit"],
                        "stats": f["stats"], "vs_tmpfs": f["vs_tmpfs"],
                        "vs_hugetlbfs": f["vs_hugetlbfs"],
                        "vs_never": f["vs_never"]}
                       for (w, m), f in figs.items()]}
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump(out, f, indent=1)


def main(argv):
    only_check = len(argv) == 3 and argv[1] == "--check"
    if len(argv) != 2 and not only_check:
        print(__doc__, file=sys.stderr)
        return 2
    d = argv[-1]
    rows, plan, meta = load(d)
    problems = check(rows, plan, meta)
    if only_check:
        for p in problems:
            print("report: %s" % p)
        print("report: %d figures from %d runs, %d problems"
              % (len(rows), len(plan), len(problems)))
        return 1 if problems else 0
    report(d, rows, plan, meta, problems)
    print(os.path.join(d, "report.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
